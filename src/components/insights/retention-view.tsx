"use client";

import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { insightActors } from "./actors-query";
import { bucketTick, bucketTitle, parseWall, spansYears, type BucketInterval } from "./bucket-dates";
import { axisTick, numberFormat, ResultEmpty, ResultFrame, ResultMismatch, type SelectHandler } from "./chart-parts";
import { TooltipBox, tooltipFrame } from "./chart-tooltip";
import { formatPercent } from "./funnel-steps";
import { retentionCurve, retentionMatrix, retentionShade, type RetentionCohort, type RetentionMatrix } from "./retention-matrix";

/**
 * A RetentionQuery result as PostHog's cohort table: one row per cohort (its date and
 * size), one column per period, each cell shaded by its share of the cohort. The table
 * scrolls inside a small tile, with the cohort column and header kept in view. With
 * `onSelect`, each cell is a button (Tab reaches it) listing the cohort's persons.
 */
export function RetentionView({ query, results, onSelect }: { query: unknown; results: unknown; onSelect?: SelectHandler }) {
  const kind = "retention";
  const matrix = retentionMatrix(results);
  if (!matrix) return <ResultMismatch kind={kind} message="Expected retention cohorts." />;
  if (matrix.cohorts.every((cohort) => cohort.size === 0)) return <ResultEmpty kind={kind} />;
  const withBreakdown = matrix.cohorts.some((cohort) => cohort.breakdown !== null);
  const cohortName = cohortNamer(query, matrix.cohorts);

  return (
    <ResultFrame kind={kind} state="ready" className="flex flex-col gap-2">
      <RetentionCurve matrix={matrix} />
      <div className="min-h-0 flex-1 overflow-auto">
      <table className="w-max min-w-full border-separate border-spacing-0.5 text-xs tabular-nums" data-testid="retention-table">
        <caption className="sr-only">Retention by cohort: the share of each cohort that came back in each period.</caption>
        <thead className="sticky top-0 z-10 bg-white">
          <tr className="text-gray-500">
            <th scope="col" className="sticky left-0 z-10 bg-white px-1.5 py-1 text-left font-medium">
              Cohort
            </th>
            <th scope="col" className="px-1.5 py-1 text-right font-medium">
              Size
            </th>
            {matrix.periods.map((period) => (
              <th key={period} scope="col" className="px-1.5 py-1 text-center font-medium whitespace-nowrap">
                {period}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {matrix.cohorts.map((cohort) => (
            <tr key={cohort.index} data-testid="retention-row">
              <th scope="row" className="sticky left-0 bg-white px-1.5 py-1 text-left font-medium whitespace-nowrap text-gray-800">
                {cohortName(cohort)}
                {withBreakdown && cohort.breakdown && <span className="ml-1 font-normal text-gray-500">{cohort.breakdown}</span>}
              </th>
              <td className="px-1.5 py-1 text-right text-gray-700">{numberFormat.format(cohort.size)}</td>
              {cohort.cells.map((cell) => {
                if (cell.future) return <td key={cell.period} aria-label="Not yet" />;
                const shade = retentionShade(cell.share);
                // An empty cohort has no share to show: a dash, not "0%".
                const text = cohort.size === 0 ? "–" : formatPercent(cell.share);
                const described = `${cohortName(cohort)}, ${matrix.periods[cell.period]}: ${numberFormat.format(cell.count)} of ${numberFormat.format(cohort.size)} (${text})`;
                const style = { background: shade.background, color: shade.color };
                return (
                  <td key={cell.period} className="p-0">
                    {onSelect ? (
                      <button
                        type="button"
                        className="block w-full min-w-12 rounded-sm px-1.5 py-1 text-center focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600"
                        style={style}
                        title={described}
                        aria-label={`${described}. List the cohort's persons`}
                        onClick={() =>
                          onSelect({
                            title: `Cohort of ${cohortName(cohort)}${cohort.breakdown ? ` (${cohort.breakdown})` : ""}`,
                            source: insightActors(query, { interval: cohort.interval, breakdown: cohort.breakdownValue ?? undefined }),
                          })
                        }
                        data-testid="retention-cell"
                      >
                        {text}
                      </button>
                    ) : (
                      <span className="block min-w-12 rounded-sm px-1.5 py-1 text-center" style={style} title={described} data-testid="retention-cell">
                        {text}
                      </span>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      </div>
    </ResultFrame>
  );
}

/** The interval of a retention query's cohorts (`retentionFilter.period`). */
function periodOf(query: unknown): BucketInterval {
  const source = (query as { kind?: string; source?: unknown } | null)?.kind === "InsightVizNode" ? (query as { source?: unknown }).source : query;
  const period = (source as { retentionFilter?: { period?: unknown } } | null)?.retentionFilter?.period;
  return period === "Hour" ? "hour" : period === "Week" ? "week" : period === "Month" ? "month" : "day";
}

/**
 * A cohort by its date, short ("Nov 17"; "Nov 2026" by month; "Nov 17, 14:00" by hour; the
 * year too when the cohorts span years), else PostHog's label ("Day 0").
 */
function cohortNamer(query: unknown, cohorts: readonly RetentionCohort[]): (cohort: RetentionCohort) => string {
  const period = periodOf(query);
  const withYear = spansYears(cohorts.map((cohort) => cohort.date));
  return (cohort) => {
    if (!parseWall(cohort.date)) return cohort.label;
    return period === "hour" ? bucketTitle(cohort.date, "hour") : bucketTick(cohort.date, period, { withYear });
  };
}

/** PostHog's retention graph above its table: every cohort together, the share back in each period. */
function RetentionCurve({ matrix }: { matrix: RetentionMatrix }) {
  const points = retentionCurve(matrix).map((point) => ({ ...point, percent: point.share === null ? null : Math.round(point.share * 1000) / 10 }));
  const summary = points.map((point) => `${point.period}: ${point.share === null ? "no cohort yet" : formatPercent(point.share)}`).join("; ");
  return (
    <figure className="h-32 shrink-0 sm:h-40" aria-label={`Retention of all cohorts together. ${summary}`} data-testid="retention-curve">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid vertical={false} stroke="#e5e7eb" />
          <XAxis dataKey="period" tick={axisTick} minTickGap={16} tickMargin={6} interval="preserveStartEnd" />
          <YAxis tick={axisTick} domain={[0, 100]} ticks={[0, 50, 100]} tickFormatter={(value: number) => `${value}%`} width={40} axisLine={false} tickLine={false} />
          <Tooltip
            {...tooltipFrame}
            content={({ active, payload, label }) => {
              const point = payload?.[0]?.payload as (typeof points)[number] | undefined;
              if (!active || !point || point.share === null) return null;
              return <TooltipBox title={String(label)} rows={[{ key: "all", name: "All cohorts", color: "#4f46e5", value: point.share }]} format={formatPercent} />;
            }}
          />
          <Line dataKey="percent" name="All cohorts" stroke="#4f46e5" strokeWidth={2} dot={{ r: 3 }} connectNulls={false} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
