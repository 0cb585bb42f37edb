/**
 * Trends by session start (TrendsSpec.bySessionStart, PostHog's web analytics trends): each
 * series' buckets from the event store's web trend — the sessions starting in each bucket
 * with the series' event in the range — instead of its events per bucket. A session's views
 * all count in the bucket it started in, so the buckets add up to the web overview's views
 * and sessions, and a month of them is one read of the sessions table, not of the events.
 */
import type { EventStore, TrendRow, WebTrendEvent, WebTrendQuery, WebTrendRow, WebTrendStarts } from "@/server/db/events";
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

/** The store's web trend of a series over `range`. */
function webTrendQuery(spec: TrendsSpec, index: number, range: ResolvedDateRange, now: Date): WebTrendQuery {
  // contract.ts's webTrendsServable admitted only WEB_TREND_EVENTS.
  const event = spec.series[index]!.event as WebTrendEvent;
  return { event, filters: seriesFilters(spec, index), from: range.from, to: range.to, zone: range.zone, interval: range.interval, now };
}

/** Each series' rows over `range`: one store read per (event, filters) the series share. */
export async function sessionStartRows(store: EventStore, projectId: number, spec: TrendsSpec, range: ResolvedDateRange, now: Date): Promise<TrendRow[][]> {
  const reads = new Map<string, Promise<WebTrendRow[]>>();
  return Promise.all(
    spec.series.map(async (series, index) => {
      const key = JSON.stringify([series.event, seriesFilters(spec, index)]);
      let read = reads.get(key);
      if (read === undefined) {
        read = store.webTrend(projectId, webTrendQuery(spec, index, range, now));
        reads.set(key, read);
      }
      return (await read).map((row): TrendRow => ({ value: null, bucket: row.bucket, n: figureOf(series, row) }));
    }),
  );
}

/**
 * The actors behind a point of a series by session start: the visitors of the sessions the
 * point counts — those starting in `starts` with the series' event in the range — most of
 * the event first, so that the list matches the point.
 */
export function sessionStartActors(store: EventStore, projectId: number, spec: TrendsSpec, index: number, range: ResolvedDateRange, now: Date, starts: WebTrendStarts): Promise<string[]> {
  return store.webTrendActors(projectId, webTrendQuery(spec, index, range, now), starts);
}
