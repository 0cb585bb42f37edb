"use client";

import { Bar, BarChart, CartesianGrid, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { insightActors } from "./actors-query";
import { bucketTick, bucketTitle, intervalOfDays, queryInterval } from "./bucket-dates";
import { ChartLegend } from "./chart-legend";
import { TooltipBox, tooltipFrame } from "./chart-tooltip";
import { axisTick, compactFormat, numberFormat, PointPicker, ResultEmpty, ResultFrame, ResultMismatch, type ChartPoint, type SelectHandler } from "./chart-parts";
import { LIFECYCLE_STATUSES, lifecycleBuckets, seriesResults, type LifecycleStatus } from "./series-shapes";

/**
 * A LifecycleQuery result: per period, new, returning and resurrecting persons stacked above
 * the axis and dormant ones below it, with a legend. A bar segment lists its persons.
 */
export function LifecycleView({ query, results, onSelect, personless = 0 }: { query: unknown; results: unknown; onSelect?: SelectHandler; personless?: number }) {
  const kind = "lifecycle";
  const series = seriesResults(results);
  if (!series) return <ResultMismatch kind={kind} message="Expected lifecycle rows (new, returning, resurrecting, dormant)." />;
  const buckets = lifecycleBuckets(series);
  if (buckets.every((bucket) => LIFECYCLE_STATUSES.every(({ status }) => bucket[status] === 0))) return <ResultEmpty kind={kind} />;
  const select = (bucket: number, status: LifecycleStatus) => {
    const row = buckets[bucket]!;
    const name = LIFECYCLE_STATUSES.find((item) => item.status === status)!.name;
    return { title: `${name} on ${row.label}`, source: insightActors(query, { day: row.day, status }) };
  };
  const grid: ChartPoint[][] = buckets.map((row, bucket) =>
    LIFECYCLE_STATUSES.map(({ status, name }) => ({ description: `${row.label} · ${name}: ${numberFormat.format(Math.abs(row[status]))}`, selection: select(bucket, status) })),
  );
  // Short dates on the axis ("Nov 3"), the full date in the tooltip.
  const interval = intervalOfDays(buckets.map((row) => row.day), queryInterval(query));
  const dayOf = new Map(buckets.map((row) => [row.label, row.day ?? row.label]));
  const legend = LIFECYCLE_STATUSES.map(({ status, name, color }, index) => ({
    index,
    name,
    color,
    total: Math.abs(buckets.reduce((sum, row) => sum + row[status], 0)),
    previous: false,
  }));
  const summary = LIFECYCLE_STATUSES.map(({ status, name }) => `${name}: ${numberFormat.format(Math.abs(buckets.reduce((sum, row) => sum + row[status], 0)))}`).join("; ");

  return (
    <ResultFrame kind={kind} state="ready">
      <PointPicker grid={grid} label={`Lifecycle. ${summary}`} onSelect={onSelect}>
        {(active) => (
          <figure className="flex h-full min-h-0 flex-col" aria-label={summary} data-testid="insight-chart">
            <div className="min-h-0 flex-1">
              <ResponsiveContainer width="100%" height="100%">
                <BarChart data={buckets} stackOffset="sign" margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
                  <CartesianGrid vertical={false} stroke="#e5e7eb" />
                  <XAxis dataKey="label" tick={axisTick} tickFormatter={(label: string) => bucketTick(dayOf.get(label), interval)} minTickGap={20} tickMargin={6} interval="preserveStartEnd" />
                  <YAxis tick={axisTick} tickFormatter={(value: number) => compactFormat.format(value)} allowDecimals={false} width={40} axisLine={false} tickLine={false} />
                  <Tooltip
                    {...tooltipFrame}
                    cursor={{ fill: "#f3f4f6" }}
                    content={({ active, payload, label }) => {
                      const row = payload?.[0]?.payload as (typeof buckets)[number] | undefined;
                      if (!active || !row) return null;
                      // PostHog's order (new, returning, resurrecting, dormant), dormant counted as persons.
                      const rows = LIFECYCLE_STATUSES.map(({ status, name, color }) => ({ key: status, name, color, value: Math.abs(row[status]) }));
                      return <TooltipBox title={bucketTitle(dayOf.get(String(label)), interval)} rows={rows} />;
                    }}
                  />
                  <ReferenceLine y={0} stroke="#9ca3af" />
                  {active !== null && <ReferenceLine x={buckets[active]?.label} stroke="#4f46e5" strokeDasharray="3 3" />}
                  {LIFECYCLE_STATUSES.map(({ status, name, color }) => (
                    <Bar
                      key={status}
                      dataKey={status}
                      name={name}
                      stackId="lifecycle"
                      fill={color}
                      isAnimationActive={false}
                      cursor={onSelect ? "pointer" : undefined}
                      onClick={(_, index) => onSelect?.(select(index, status))}
                    />
                  ))}
                </BarChart>
              </ResponsiveContainer>
            </div>
            <ChartLegend entries={legend} />
            {personless > 0 && <PersonlessNote count={personless} />}
          </figure>
        )}
      </PointPicker>
    </ResultFrame>
  );
}


/**
 * Why lifecycle may count fewer than stickiness, retention or the persons list: it follows
 * persons, and under posthog-js's default `person_profiles: 'identified_only'` an anonymous
 * visitor's events come without a person profile (docs/query-api.md).
 */
function PersonlessNote({ count }: { count: number }) {
  const visitors = `${numberFormat.format(count)} visitor${count === 1 ? "" : "s"}`;
  return (
    <p className="mt-2 text-xs text-gray-600" data-testid="lifecycle-personless-note">
      Lifecycle follows person profiles: {visitors} whose events in this range came without one {count === 1 ? "is" : "are"} left out (posthog-js&apos;s default{" "}
      <code className="text-[11px]">person_profiles: &apos;identified_only&apos;</code> sends anonymous visitors&apos; events so). Trends, stickiness, retention and Persons count
      them.
    </p>
  );
}
