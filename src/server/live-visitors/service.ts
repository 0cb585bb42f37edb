/**
 * The live visitor count of the web analytics page: unique visitors (persons, as the
 * overview counts them) with a `$pageview` in the last 30 minutes, to the second rather
 * than to the hour a TrendsQuery's range would round to. It asks the event store's trend
 * aggregation for one bucket, so both stores answer it with code they already test.
 */
import type { Context } from "@/server/context";
import { LIVE_WINDOW_MINUTES, type LiveVisitors, type LiveVisitorsInput } from "./contract";

export async function countLiveVisitors(ctx: Context, input: LiveVisitorsInput, now: Date = new Date()): Promise<LiveVisitors> {
  const from = new Date(now.getTime() - LIVE_WINDOW_MINUTES * 60_000);
  const rows = await ctx.db.events.trend(ctx.project.id, {
    event: "$pageview",
    filters: input.host
      ? [{ type: "AND", values: [{ type: "event", key: "$host", operator: "exact", value: [input.host], negation: false }] }]
      : [],
    math: "dau",
    from,
    to: now,
    zone: "UTC",
    interval: null,
    breakdown: null,
    now,
  });
  return { visitors: rows.reduce((sum, row) => sum + row.n, 0), windowMinutes: LIVE_WINDOW_MINUTES, at: now.toISOString() };
}
