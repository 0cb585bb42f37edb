"use client";

import { Popover } from "@/components/ui";
import { Bar, BarChart, CartesianGrid, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { insightActors } from "./actors-query";
import { bucketTick, bucketTitle, intervalOfDays, queryInterval } from "./bucket-dates";
import { ChartLegend } from "./chart-legend";
import { TooltipBox, tooltipFrame } from "./chart-tooltip";
import { axisTick, compactFormat, numberFormat, PointPicker, ResultEmpty, ResultFrame, ResultMismatch, type ChartPoint, type SelectHandler } from "./chart-parts";
import { LIFECYCLE_STATUSES, lifecycleBuckets, seriesResults, type LifecycleStatus } from "./series-shapes";

/**
 * A LifecycleQuery result: per period, new, returning and resurrecting persons stacked above
 * the axis and dormant ones below it, with a legend. A bar segment lists its persons. With
 * `compact` (a dashboard tile) the note on visitors left out is one line that opens the full text.
 */
export function LifecycleView({
  query,
  results,
  onSelect,
  personless = 0,
  compact = false,
}: {
  query: unknown;
  results: unknown;
  onSelect?: SelectHandler;
  personless?: number;
  compact?: boolean;
}) {
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
            {personless > 0 && (compact ? <PersonlessLine count={personless} /> : <PersonlessNote count={personless} />)}
          </figure>
        )}
      </PointPicker>
    </ResultFrame>
  );
}


const visitorsText = (count: number) => `${numberFormat.format(count)} visitor${count === 1 ? "" : "s"}`;

/**
 * Why lifecycle may count fewer than stickiness, retention or the persons list: it follows
 * persons, and under posthog-js's default `person_profiles: 'identified_only'` an anonymous
 * visitor's events come without a person profile (docs/query-api.md).
 */
function PersonlessExplanation({ count }: { count: number }) {
  return (
    <>
      Lifecycle follows person profiles: {visitorsText(count)} whose events in this range came without one {count === 1 ? "is" : "are"} left out (posthog-js&apos;s default{" "}
      <code className="text-[11px]">person_profiles: &apos;identified_only&apos;</code> sends anonymous visitors&apos; events so). Trends, stickiness, retention and Persons count
      them.
    </>
  );
}

/** The note in full, under the editor's chart. */
function PersonlessNote({ count }: { count: number }) {
  return (
    <p className="mt-2 text-xs text-gray-600" data-testid="lifecycle-personless-note">
      <PersonlessExplanation count={count} />
    </p>
  );
}

/** The note as a tile has room for it: one line, a button that shows the full text (placed against the viewport, as the tile clips). */
function PersonlessLine({ count }: { count: number }) {
  return (
    <Popover
      className="mt-1 min-w-0"
      strategy="fixed"
      button={
        <>
          <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className="size-3.5 shrink-0 text-gray-500">
            <path
              fillRule="evenodd"
              d="M18 10a8 8 0 1 1-16 0 8 8 0 0 1 16 0Zm-7-4a1 1 0 1 1-2 0 1 1 0 0 1 2 0ZM9 9a.75.75 0 0 0 0 1.5h.253a.25.25 0 0 1 .244.304l-.459 2.066A1.75 1.75 0 0 0 10.747 15H11a.75.75 0 0 0 0-1.5h-.253a.25.25 0 0 1-.244-.304l.459-2.066A1.75 1.75 0 0 0 9.253 9H9Z"
              clipRule="evenodd"
            />
          </svg>
          <span className="truncate">{visitorsText(count)} without a person profile not counted</span>
        </>
      }
      buttonClassName="flex max-w-full items-center gap-1 rounded-control text-left text-xs text-gray-600 hover:text-gray-900 focus-visible:outline-2 focus-visible:outline-brand-600"
      buttonTestId="lifecycle-personless-note"
      panelClassName="max-w-xs px-3.5 py-2.5 text-xs leading-relaxed text-gray-700"
      panelTestId="lifecycle-personless-detail"
    >
      {() => <PersonlessExplanation count={count} />}
    </Popover>
  );
}
