"use client";

import { insightActors } from "./actors-query";
import { bucketTick, bucketTitle, parseWall, spansYears, type BucketInterval } from "./bucket-dates";
import { numberFormat, ResultEmpty, ResultFrame, ResultMismatch, type SelectHandler } from "./chart-parts";
import { formatPercent } from "./funnel-steps";
import { retentionMatrix, retentionShade, type RetentionCohort } from "./retention-matrix";

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
    <ResultFrame kind={kind} state="ready" className="overflow-auto">
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
