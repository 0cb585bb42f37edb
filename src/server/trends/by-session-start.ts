/**
 * Trends by session start (TrendsSpec.bySessionStart, PostHog's web analytics trends): each
 * series' buckets from the event store's web trend — the sessions starting in each bucket
 * with the series' event in the range — instead of its events per bucket. A session's views
 * all count in the bucket it started in, so the buckets add up to the web overview's views
 * and sessions, and a month of them is one read of the sessions table, not of the events.
 */
import type { EventStore, TrendRow, WebTrendEvent, WebTrendRow } from "@/server/db/events";
import type { ResolvedDateRange } from "@/server/analytics/date-range";
import type { TrendsSpec } from "./contract";
import { seriesFilters } from "./series-query";

type Series = TrendsSpec["series"][number];

/** A series' figure of a bucket (contract.ts's webTrendsServable admits only these maths). */
function figureOf(series: Series, row: WebTrendRow): number {
  if (series.math === "dau") return row.visitors;
  if (series.math === "unique_session") return row.sessions;
  if (series.session_property === "$session_duration") return row.duration ?? 0;
  if (series.session_property === "$is_bounce") return row.bounce ?? 0;
  return row.views;
}

/** Each series' rows over `range`: one store read per (event, filters) the series share. */
export async function sessionStartRows(store: EventStore, projectId: number, spec: TrendsSpec, range: ResolvedDateRange, now: Date): Promise<TrendRow[][]> {
  const reads = new Map<string, Promise<WebTrendRow[]>>();
  return Promise.all(
    spec.series.map(async (series, index) => {
      const filters = seriesFilters(spec, index);
      const key = JSON.stringify([series.event, filters]);
      let read = reads.get(key);
      if (read === undefined) {
        const event = series.event as WebTrendEvent;
        read = store.webTrend(projectId, { event, filters, from: range.from, to: range.to, zone: range.zone, interval: range.interval, now });
        reads.set(key, read);
      }
      return (await read).map((row): TrendRow => ({ value: null, bucket: row.bucket, n: figureOf(series, row) }));
    }),
  );
}
