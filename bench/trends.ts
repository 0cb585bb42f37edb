/**
 * Trends on a project with 1,000,000 events (90 days), on PostgreSQL, uncached: each run
 * forces a recompute through `computeInsight` (query parsing, the project's time zone, the
 * SQL, the result), timed over repeated runs after one warm-up. The target: a 30-day daily
 * trend under 300 ms.
 *
 *   npm run bench:trends [-- --events 1000000 --runs 10]
 *
 * (bench:insights times every insight kind on both stores with persons; this one is the
 * trends variety on PostgreSQL alone.)
 *
 * Seeded by bench/lib/seed-events.ts (as bench:events) into a throwaway database on
 * TEST_POSTGRES_URL's server, dropped at the end.
 */
import type { TrendsSeriesResult } from "@/server/trends/service";
import { parseArgs } from "node:util";
import { computeInsight } from "@/server/insights/service";
import { seedEvents, timeRuns } from "./lib/seed-events";

const { values } = parseArgs({ options: { events: { type: "string", default: "1000000" }, runs: { type: "string", default: "10" } } });
const EVENTS = Number(values.events);
const RUNS = Number(values.runs);
const TARGET_MS = 300;

const seeded = await seedEvents(EVENTS);
try {
  const { db, projectId } = seeded;
  const last30Days = { date_from: "-30d" };

  async function time(label: string, query: Record<string, unknown>) {
    let series = 0;
    let counted = 0;
    const { p50, max } = await timeRuns(RUNS, async () => {
      const answer = await computeInsight(db, projectId, { query: { kind: "TrendsQuery", dateRange: last30Days, ...query } }, { refresh: "force" });
      series = (answer.result as TrendsSeriesResult[]).length;
      counted = (answer.result as TrendsSeriesResult[]).reduce((sum, item) => sum + (item.aggregated_value ?? item.count), 0);
    });
    const verdict = p50 < TARGET_MS ? `under ${TARGET_MS} ms` : `OVER ${TARGET_MS} ms`;
    console.log(`  ${label.padEnd(52)} p50 ${p50.toFixed(1).padStart(6)} ms   max ${max.toFixed(1).padStart(6)} ms   ${series} series, ${counted} counted   ${verdict}`);
  }

  console.log(`\nPostgreSQL, ${EVENTS} events over 90 days, ${RUNS} uncached runs each (after one warm-up):`);
  await time("30-day daily trend, all events", { series: [{ event: null }] });
  await time("30-day daily trend, $pageview", { series: [{ event: "$pageview" }] });
  await time("30-day daily unique users, all events", { series: [{ event: null, math: "dau" }] });
  await time("30-day hourly trend, all events", { interval: "hour", series: [{ event: null }] });
  await time("30-day total (BoldNumber), all events", { series: [{ event: null }], trendsFilter: { display: "BoldNumber" } });
  await time("30-day daily, plan = enterprise", { series: [{ event: null }], properties: [{ key: "plan", value: "enterprise", operator: "exact", type: "event" }] });
  await time("breakdown $browser (4 values), all events", { series: [{ event: null }], breakdownFilter: { breakdown: "$browser" } });
  await time("breakdown $current_url (500 values: top 10 + other)", { series: [{ event: null }], breakdownFilter: { breakdown: "$current_url" } });
  await time("breakdown $current_url, unique users", { series: [{ event: null, math: "dau" }], breakdownFilter: { breakdown: "$current_url" } });
} finally {
  await seeded.close();
}
