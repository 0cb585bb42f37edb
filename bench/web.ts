/**
 * Web analytics at 1,000,000 events, PostgreSQL and ClickHouse side by side: 10,000 sessions a
 * day for 30 days (page views, page leaves and autocaptures; three hosts, 60 paths, ten
 * referrers, UTM on a fifth of sessions, 20 countries, five browsers and OSes), written
 * through each event store's own insert (so the sessions table is kept as ingestion keeps
 * it; the insert time is printed too). Timed uncached through `computeQuery` (`refresh:
 * "force"`), p50 and max of `--runs` runs after one warm-up, the stores taking turns; each
 * query as the `/web` page builds it (src/components/web/web-query.ts), over the last 30 days:
 *
 *   - WebOverviewQuery, compared with the period before;
 *   - WebStatsTableQuery by Page, InitialPage (with its bounce rate, as the Entry tab asks),
 *     Country and Browser;
 *   - WebTopClicksQuery;
 *   - the graph's TrendsQuery (visitors, views, sessions a day) and the sparklines' (session
 *     duration and bounce rate a day), both tagged as web analytics' and so counted by
 *     session start from the sessions table.
 *
 * Targets: p50 under 500 ms on PostgreSQL, under 150 ms on ClickHouse.
 *
 *   npm run bench:web [-- --sessions-per-day 10000 --days 30 --runs 5 --only Page --range=-7d --host docs.example.com --test-accounts]
 *
 * `--range` is the page's date range (default the last 30 days, the whole seeded month; the
 * page opens on the last 7). `--host` filters the page by one of the three hosts, as its host
 * filter does: every query then reads the matching events rather than the sessions alone.
 * `--test-accounts` turns on "Filter out internal and test users", as the page opens for a new
 * project: the project's default test account filters (`$host` not localhost, `email` not
 * `@example.com`, accounts/test-account-defaults.ts) on every query, persons read too.
 *
 * One throwaway PostgreSQL database on TEST_POSTGRES_URL's server; ClickHouse is chdb on disk
 * in a temporary directory, or CLICKHOUSE_URL's server in a throwaway database. Everything
 * is dropped at the end.
 */
import { parseArgs } from "node:util";
import { bootstrap } from "@/server/accounts/service";
import { registerDb } from "@/server/db";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import { dayOfEvents, HOSTS } from "./lib/web-events";
import { ClickHouseEventStore } from "@/server/db/events/clickhouse/store";
import { computeQuery } from "@/server/query/service";
import { p50AndMax } from "./lib/seed-events";
import { benchClickHouse } from "./lib/clickhouse";
import { seededRandom } from "./lib/product-events";
import { DATE_RANGES, type WebFilters } from "@/components/web/web-filters";
import { overviewQuery, sessionTrendQuery, showsBounceRate, statsTableQuery, TABLE_PAGE, topClicksQuery, trendQuery } from "@/components/web/web-query";

const { values } = parseArgs({
  options: {
    "sessions-per-day": { type: "string", default: "10000" },
    range: { type: "string", default: "-30d" },
    days: { type: "string", default: "30" },
    runs: { type: "string", default: "5" },
    only: { type: "string", default: "" },
    host: { type: "string", default: "" },
    "test-accounts": { type: "boolean", default: false },
  },
});
const SESSIONS_PER_DAY = Number(values["sessions-per-day"]);
const DAYS = Number(values.days);
const RUNS = Number(values.runs);
const TARGET_MS = { postgres: 500, clickhouse: 150 } as const;

const RANGE = DATE_RANGES.find((range) => range.value === values.range)?.value;
if (!RANGE) throw new Error(`--range must be one of ${DATE_RANGES.map((range) => range.value).join(", ")} (/web's date ranges).`);
const filters: WebFilters = { host: values.host || null, path: null, dateFrom: RANGE, order: null, goal: null, filterTestAccounts: values["test-accounts"] };
if (filters.host !== null && !HOSTS.includes(filters.host)) throw new Error(`--host must be one of ${HOSTS.join(", ")} (the seeded hosts).`);
const MEASURES: { label: string; query: Record<string, unknown> }[] = [
  { label: "WebOverviewQuery, compared", query: overviewQuery(filters) },
  ...(["Page", "InitialPage", "Country", "Browser"] as const).map((breakdown) => ({
    label: `WebStatsTableQuery ${breakdown}${showsBounceRate(breakdown) ? " + bounce rate" : ""}`,
    query: statsTableQuery(filters, breakdown, TABLE_PAGE),
  })),
  { label: "WebTopClicksQuery", query: topClicksQuery(filters) },
  { label: "TrendsQuery, the graph", query: trendQuery(filters) },
  { label: "TrendsQuery, session sparklines", query: sessionTrendQuery(filters) },
];

/** What an answer held, in a few words (the same on both stores when they agree). */
function summary(results: unknown): string {
  const rows = results as unknown[];
  const first = (cell: unknown) => (Array.isArray(cell) ? cell[0] : cell);
  if (rows.length > 0 && Array.isArray(rows[0])) return (rows as unknown[][]).slice(0, 2).map((row) => `${JSON.stringify(row[0])} ${first(row[1])}/${first(row[2])}`).join(", ");
  if (rows.length > 0 && Array.isArray((rows[0] as { data?: unknown }).data)) {
    const series = rows as { label: string; data: number[] }[];
    return series.map((item) => `${item.label} ${Math.round(item.data.reduce((sum, value) => sum + value, 0) * 10) / 10}`).join(", ");
  }
  return (rows as { key: string; value: number | null; previous: number | null }[]).map((item) => `${item.key} ${item.value === null ? "–" : Math.round(item.value * 10) / 10}`).join(", ");
}

const NOW = new Date();
const clickhouse = benchClickHouse("web");
const database = await createEmptyPostgresDatabase();
const opened: Database[] = [];
try {
  const postgres = await openDatabase({ kind: "postgres", url: database.url });
  opened.push(postgres);
  await migrate(postgres.sql);
  registerDb(postgres);
  const { project_id: projectId } = await bootstrap(postgres.prisma, { email: "bench-web@example.com", password: "bench-password" });
  const ch = await openDatabase({ kind: "postgres", url: database.url }, clickhouse.config);
  opened.push(ch);

  console.log(`seeding ${SESSIONS_PER_DAY.toLocaleString("en")} sessions a day for ${DAYS} days through each store's insert…`);
  const pick = seededRandom(21);
  const today = Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth(), NOW.getUTCDate());
  let total = 0;
  let pgSeconds = 0;
  let chSeconds = 0;
  for (let day = DAYS - 1; day >= 0; day--) {
    // Yesterday and back: the last day ends before now.
    const rows = dayOfEvents(projectId, today - (day + 1) * 86_400_000, SESSIONS_PER_DAY, pick);
    total += rows.length;
    let started = performance.now();
    await postgres.events.insert(rows);
    pgSeconds += (performance.now() - started) / 1000;
    started = performance.now();
    for (let i = 0; i < rows.length; i += 10_000) await ch.events.insert(rows.slice(i, i + 10_000));
    chSeconds += (performance.now() - started) / 1000;
  }
  let started = performance.now();
  await postgres.sql.exec(`ANALYZE events; ANALYZE sessions;`);
  pgSeconds += (performance.now() - started) / 1000;
  started = performance.now();
  if (ch.events instanceof ClickHouseEventStore) await ch.events.settle();
  chSeconds += (performance.now() - started) / 1000;
  const [counts] = await postgres.sql.query<{ sessions: string; views: string }>(
    `SELECT (SELECT count(*) FROM sessions WHERE project_id = $1::int) AS sessions, count(*) FILTER (WHERE event = '$pageview') AS views FROM events WHERE project_id = $1::int`,
    [projectId],
  );
  console.log(
    `${total.toLocaleString("en")} events (${Number(counts!.views).toLocaleString("en")} page views), ${Number(counts!.sessions).toLocaleString("en")} sessions; ` +
      `insert with the sessions' upkeep: PostgreSQL ${pgSeconds.toFixed(1)} s (${Math.round(total / pgSeconds).toLocaleString("en")}/s), ClickHouse ${chSeconds.toFixed(1)} s (${Math.round(total / chSeconds).toLocaleString("en")}/s)`,
  );
  console.log(`ClickHouse: ${clickhouse.where}. ${RUNS} uncached runs each after one warm-up, the stores alternating.`);
  console.log(`targets: p50 under ${TARGET_MS.postgres} ms on PostgreSQL, under ${TARGET_MS.clickhouse} ms on ClickHouse\n`);
  console.log(`${"".padEnd(40)} ${"PostgreSQL p50 / max".padStart(24)} ${"ClickHouse p50 / max".padStart(24)}`);
  let missed = 0;
  const stores = [postgres, ch] as const;
  for (const item of MEASURES.filter((measure) => measure.label.includes(values.only))) {
    const times: number[][] = [[], []];
    const shown = ["", ""];
    const once = async (i: number) => {
      registerDb(stores[i]!);
      const begun = performance.now();
      const computed = await computeQuery(stores[i]!, projectId, item.query, { refresh: "force", now: NOW });
      const elapsed = performance.now() - begun;
      shown[i] = summary(computed.answer?.results);
      return elapsed;
    };
    await once(0);
    await once(1);
    for (let run = 0; run < RUNS; run++) for (const i of run % 2 === 0 ? [0, 1] : [1, 0]) times[i]!.push(await once(i));
    const [pg, chFigure] = times.map(p50AndMax);
    const verdict = (figure: { p50: number; max: number }, target: number) => {
      if (figure.p50 >= target) missed++;
      return `${figure.p50.toFixed(1)} / ${figure.max.toFixed(1)} ms ${figure.p50 < target ? "ok" : "SLOW"}`;
    };
    const agree = shown[0] === shown[1] ? shown[0] : `${shown[0]} (ClickHouse: ${shown[1]})`;
    console.log(`${item.label.padEnd(40)} ${verdict(pg!, TARGET_MS.postgres).padStart(24)} ${verdict(chFigure!, TARGET_MS.clickhouse).padStart(24)}   ${agree}`);
  }
  console.log(`\n${missed === 0 ? "every target met" : `${missed} target(s) missed`}`);
} finally {
  for (const db of opened.reverse()) await db.close();
  await database.drop();
  await clickhouse.cleanUp();
}
