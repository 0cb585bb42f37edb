/**
 * Every insight kind on a product-like project, PostgreSQL and ClickHouse side by side:
 * 1,000,000 events over 90 days from 100,000 persons (bench/lib/product-events.ts: sessions
 * of page views over ~50 paths, autocapture, page leaves, custom events, sign-ups and
 * purchases days later), person rows in PostgreSQL's `persons` (created at their first
 * event, as ingestion creates them) and `person_id` on every event. Timed uncached
 * (`refresh: "force"` through `computeQuery`: parsing, the project's zone, the store's
 * read, the kind's algorithm), p50 and max over `--runs` runs after one warm-up, the two
 * stores taking turns:
 *
 *   - a 3-step funnel over 30 days ($pageview → signed_up → purchase),
 *   - retention over 8 weeks (Week period, $pageview),
 *   - lifecycle over 30 days (daily, $pageview),
 *   - paths over 30 days ($pageview),
 *   - a 30-day daily trend ($pageview).
 *
 * A kind not registered in src/server/query/kinds.ts is reported "not available" (and one
 * that refuses the node, with its message). Targets: p50 under 1 s on PostgreSQL and under
 * 300 ms on ClickHouse.
 *
 *   npm run bench:insights [-- --events 1000000 --persons 100000 --runs 10 --only paths]
 *
 * One throwaway PostgreSQL database on TEST_POSTGRES_URL's server holds the project and the
 * persons, and the events (bulk-inserted); the same events go into ClickHouse (chdb on disk
 * in a temporary directory, or CLICKHOUSE_URL's server in a throwaway database) through its
 * store, parts merged after the load. The same database is opened twice, once with each
 * event store. Everything is dropped at the end.
 */
import { parseArgs } from "node:util";
import { bootstrap } from "@/server/accounts/service";
import { registerDb } from "@/server/db";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import { ClickHouseEventStore } from "@/server/db/events/clickhouse/store";
import { AppError } from "@/server/errors";
import { QUERY_KINDS } from "@/server/query/kinds";
import { computeQuery, projectZone } from "@/server/query/service";
import { resolveDateRange } from "@/server/analytics/date-range";
import { p50AndMax } from "./lib/seed-events";
import { productEvents } from "./lib/product-events";
import { createEventStaging, insertPersons, moveStagedEvents, stageEvents } from "./lib/product-events-postgres";
import { benchClickHouse } from "./lib/clickhouse";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "1000000" },
    persons: { type: "string", default: "100000" },
    runs: { type: "string", default: "10" },
    /** Only the measures whose label contains this text (e.g. `--only paths`). */
    only: { type: "string", default: "" },
  },
});
const EVENTS = Number(values.events);
const PERSONS = Number(values.persons);
const RUNS = Number(values.runs);
const DAYS = 90;
const TARGET_MS = { postgres: 1000, clickhouse: 300 } as const;
for (const [name, value] of [["--events", EVENTS], ["--persons", PERSONS], ["--runs", RUNS]] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
}

const events = (...names: string[]) => names.map((event) => ({ kind: "EventsNode", event, name: event }));
const last30Days = { date_from: "-30d" };

interface Measure {
  label: string;
  query: Record<string, unknown>;
}

const MEASURES: Measure[] = [
  {
    label: "funnel $pageview → signed_up → purchase, 30 d",
    query: { kind: "FunnelsQuery", series: events("$pageview", "signed_up", "purchase"), dateRange: last30Days, funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: "day" } },
  },
  {
    label: "retention, 8 weeks (Week), $pageview",
    query: {
      kind: "RetentionQuery",
      retentionFilter: { period: "Week", totalIntervals: 8, targetEntity: { id: "$pageview", type: "events" }, returningEntity: { id: "$pageview", type: "events" } },
    },
  },
  { label: "lifecycle, 30 d daily, $pageview", query: { kind: "LifecycleQuery", series: events("$pageview"), interval: "day", dateRange: last30Days } },
  { label: "paths, 30 d, $pageview", query: { kind: "PathsQuery", dateRange: last30Days, pathsFilter: { includeEventTypes: ["$pageview"] } } },
  { label: "trend, 30 d daily, $pageview", query: { kind: "TrendsQuery", series: events("$pageview"), interval: "day", dateRange: last30Days } },
];

/** What an answer held, in a few words (the same words on both stores when they agree). */
function summary(kind: string, results: unknown): string {
  if (!Array.isArray(results)) return "no list of results";
  const rows = results as Record<string, unknown>[];
  const number = (value: unknown) => (typeof value === "number" ? value : 0);
  switch (kind) {
    case "FunnelsQuery": {
      // One list of steps (or one per breakdown value).
      const steps = (Array.isArray(rows[0]) ? rows[0] : rows) as Record<string, unknown>[];
      return `steps ${steps.map((step) => number(step.count)).join(" → ")}`;
    }
    case "RetentionQuery": {
      const first = rows[0] as { values?: { count?: number }[] } | undefined;
      const cohort = (row: Record<string, unknown>) => number((row.values as { count?: number }[] | undefined)?.[0]?.count);
      return `${rows.length} cohorts, ${rows.reduce((sum, row) => sum + cohort(row), 0)} people; first: ${(first?.values ?? []).map((v) => v.count ?? 0).join(" ")}`;
    }
    case "LifecycleQuery":
      return rows.map((row) => `${String(row.status ?? row.label)} ${number(row.count)}`).join(", ");
    case "PathsQuery": {
      const traversals = rows.reduce((sum, row) => sum + number(row.value), 0);
      return `${rows.length} edges, ${traversals} traversals`;
    }
    case "TrendsQuery":
      return `${rows.length} series, ${rows.reduce((sum, row) => sum + number(row.count), 0)} counted`;
    default:
      return `${rows.length} rows`;
  }
}

interface Figure {
  p50: number;
  max: number;
  shown: string;
}

type Outcome = { available: false; why: string } | { available: true; figures: [Figure, Figure] };

/** One measure on both stores, alternating (and which goes first alternating too), so a busy moment of the machine weighs on both. */
async function timeBoth(item: Measure, stores: readonly [Database, Database], projectId: number, now: Date): Promise<Outcome> {
  const kind = String(item.query.kind);
  if (!QUERY_KINDS.has(kind)) return { available: false, why: `not available (${kind} is not registered)` };
  const times: number[][] = [[], []];
  const shown = ["", ""];
  const once = async (i: number) => {
    registerDb(stores[i]!);
    const started = performance.now();
    const computed = await computeQuery(stores[i]!, projectId, item.query, { refresh: "force", now });
    const elapsed = performance.now() - started;
    shown[i] = summary(kind, computed.answer?.results);
    return elapsed;
  };
  try {
    await once(0);
    await once(1);
  } catch (error) {
    if (error instanceof AppError) return { available: false, why: `refused: ${error.message.slice(0, 160)}` };
    throw error;
  }
  for (let run = 0; run < RUNS; run++) {
    for (const i of run % 2 === 0 ? [0, 1] : [1, 0]) times[i]!.push(await once(i));
  }
  return { available: true, figures: [0, 1].map((i) => ({ ...p50AndMax(times[i]!), shown: shown[i]! })) as [Figure, Figure] };
}

const NOW = new Date();
const clickhouse = benchClickHouse("insights");
const database = await createEmptyPostgresDatabase();
const opened: Database[] = [];
try {
  const postgres = await openDatabase({ kind: "postgres", url: database.url });
  opened.push(postgres);
  await migrate(postgres.sql);
  registerDb(postgres);
  const { project_id: projectId } = await bootstrap(postgres.prisma, { email: "bench-insights@example.com", password: "bench-password" });
  const ch = await openDatabase({ kind: "postgres", url: database.url }, clickhouse.config);
  opened.push(ch);

  console.log(`seeding ${EVENTS.toLocaleString("en")} events from ${PERSONS.toLocaleString("en")} persons over ${DAYS} days…`);
  const seedStarted = performance.now();
  await createEventStaging(postgres);
  let pgSeconds = 0;
  let chSeconds = 0;
  for (const chunk of productEvents({ projectId, events: EVENTS, persons: PERSONS, end: NOW, days: DAYS })) {
    let started = performance.now();
    await insertPersons(postgres, projectId, chunk.persons);
    await stageEvents(postgres, chunk.events);
    pgSeconds += (performance.now() - started) / 1000;
    started = performance.now();
    for (let i = 0; i < chunk.events.length; i += 10_000) await ch.events.insert(chunk.events.slice(i, i + 10_000));
    chSeconds += (performance.now() - started) / 1000;
  }
  let started = performance.now();
  await moveStagedEvents(postgres, projectId);
  pgSeconds += (performance.now() - started) / 1000;
  started = performance.now();
  // ClickHouse merges a bulk load's parts in the background; done now, as a settled installation has them.
  if (ch.events instanceof ClickHouseEventStore) await ch.events.settle();
  chSeconds += (performance.now() - started) / 1000;
  console.log(
    `seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (PostgreSQL ${pgSeconds.toFixed(1)} s, ClickHouse ${chSeconds.toFixed(1)} s, generating the rest)`,
  );

  // The rows involved, counted in PostgreSQL (ClickHouse holds the same events), over the range "-30d" resolves to.
  const range = resolveDateRange(last30Days, "day", await projectZone(postgres.prisma, projectId), NOW);
  const [counts] = await postgres.sql.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM persons WHERE project_id = $1::int) AS persons,
            count(*) AS events,
            count(*) FILTER (WHERE timestamp BETWEEN $2::timestamptz AND $3::timestamptz) AS events_30d,
            count(*) FILTER (WHERE event = '$pageview' AND timestamp BETWEEN $2::timestamptz AND $3::timestamptz) AS pageviews_30d,
            count(DISTINCT person_id) FILTER (WHERE timestamp BETWEEN $2::timestamptz AND $3::timestamptz) AS persons_30d,
            count(*) FILTER (WHERE event = 'signed_up') AS signed_up,
            count(*) FILTER (WHERE event = 'purchase') AS purchases,
            count(DISTINCT properties->>'$pathname') FILTER (WHERE event = '$pageview') AS paths
       FROM events WHERE project_id = $1::int`,
    [projectId, range.from.toISOString(), range.to.toISOString()],
  );
  const n = (key: string) => Number(counts![key]).toLocaleString("en");
  console.log(
    `rows: ${n("persons")} persons, ${n("events")} events (${n("events_30d")} in the 30-day range, of them ${n("pageviews_30d")} $pageview, from ${n("persons_30d")} persons); ` +
      `${n("signed_up")} signed_up, ${n("purchases")} purchase; ${n("paths")} distinct page paths`,
  );
  console.log(`ClickHouse: ${clickhouse.where}. ${RUNS} uncached runs each after one warm-up, the stores alternating.`);
  console.log(`targets: p50 under ${TARGET_MS.postgres} ms on PostgreSQL, under ${TARGET_MS.clickhouse} ms on ClickHouse\n`);

  const cell = (text: string, width: number) => text.padStart(width);
  console.log(`${"".padEnd(48)} ${cell("PostgreSQL p50 / max", 24)} ${cell("ClickHouse p50 / max", 24)}`);
  let missed = 0;
  let unavailable = 0;
  for (const item of MEASURES.filter((measure) => measure.label.includes(values.only))) {
    const outcome = await timeBoth(item, [postgres, ch], projectId, NOW);
    if (!outcome.available) {
      unavailable++;
      console.log(`${item.label.padEnd(48)} ${outcome.why}`);
      continue;
    }
    const [pg, chFigure] = outcome.figures;
    const verdict = (figure: Figure, target: number) => {
      const met = figure.p50 < target;
      if (!met) missed++;
      return `${figure.p50.toFixed(1)} / ${figure.max.toFixed(1)} ms ${met ? "ok" : "SLOW"}`;
    };
    const agree = pg.shown === chFigure.shown ? pg.shown : `${pg.shown} (ClickHouse: ${chFigure.shown})`;
    console.log(`${item.label.padEnd(48)} ${cell(verdict(pg, TARGET_MS.postgres), 24)} ${cell(verdict(chFigure, TARGET_MS.clickhouse), 24)}   ${agree}`);
  }
  console.log(
    `\n${missed === 0 ? "every target met" : `${missed} target(s) missed`} by the kinds measured` + (unavailable > 0 ? `; ${unavailable} kind(s) not measured` : ""),
  );
} finally {
  for (const db of opened.reverse()) await db.close();
  await database.drop();
  await clickhouse.cleanUp();
}
