/**
 * The two event stores side by side on the same 1,000,000 generated events (90 days,
 * bench/lib/seed-events.ts): PostgreSQL (TEST_POSTGRES_URL's server) and ClickHouse (chdb
 * on disk in a temporary directory, or CLICKHOUSE_URL's server in a throwaway database).
 * Persons and everything else are in PostgreSQL both times. Measured: the insert rate
 * through `store.insert` (10,000 a batch, one after another), the events list's first page
 * and a property filter through the real route handler, and uncached insights through
 * `computeInsight` (a 30-day daily trend, unique users, breakdowns). Both stores are seeded
 * first; then each read is timed over repeated runs after one warm-up, the two stores taking
 * turns, so that a busy moment of the machine weighs on both; the ratio is PostgreSQL's p50
 * over ClickHouse's.
 *
 *   npm run bench:stores [-- --events 1000000 --runs 20]
 *
 * Targets (issue 10): ClickHouse at least 3× faster on the trend and the breakdown, and no
 * more than 2× slower on the first page.
 */
import type { TrendsSeriesResult } from "@/server/trends/service";
import { parseArgs } from "node:util";
import { registerDb } from "@/server/db";
import { computeInsight } from "@/server/insights/service";
import { p50AndMax, seedEvents, type SeededDatabase } from "./lib/seed-events";
import { restRoute } from "@/test-support/rest-routes";
import { benchClickHouse } from "./lib/clickhouse";

const { GET: listEvents } = restRoute("projects", "events");

const { values } = parseArgs({ options: { events: { type: "string", default: "1000000" }, runs: { type: "string", default: "20" } } });
const EVENTS = Number(values.events);
const RUNS = Number(values.runs);

interface Measure {
  label: string;
  /** At least this many times faster on ClickHouse (a ratio below 1 is a slowdown allowed up to 1/ratio). */
  target?: number;
  run(seeded: SeededDatabase): Promise<string>;
}

function listPage(query: string): Measure["run"] {
  return async ({ projectId, personalApiKey }) => {
    const response = await listEvents(
      new Request(`http://localhost/api/projects/${projectId}/events/?${query}`, { headers: { authorization: `Bearer ${personalApiKey}` } }),
      { params: Promise.resolve({ project_id: String(projectId) }) },
    );
    if (response.status !== 200) throw new Error(`events list: ${response.status} ${await response.text()}`);
    return `${((await response.json()) as { results: unknown[] }).results.length} rows`;
  };
}

function trend(query: Record<string, unknown>): Measure["run"] {
  return async ({ db, projectId, seededAt }) => {
    // As of the seed's "now", so that both stores count the same events.
    const answer = await computeInsight(db, projectId, { query: { kind: "TrendsQuery", dateRange: { date_from: "-30d" }, ...query } }, { refresh: "force", now: seededAt });
    const counted = (answer.result as TrendsSeriesResult[]).reduce((sum, item) => sum + (item.aggregated_value ?? item.count), 0);
    return `${(answer.result as TrendsSeriesResult[]).length} series, ${counted} counted`;
  };
}

const enterprise = encodeURIComponent(JSON.stringify([{ key: "plan", value: "enterprise", operator: "exact", type: "event" }]));
const MEASURES: Measure[] = [
  { label: "events list, first page (100)", target: 0.5, run: listPage("") },
  { label: "events list, property plan = enterprise", run: listPage(`properties=${enterprise}`) },
  { label: "events list, event = purchase", run: listPage("event=purchase") },
  { label: "30-day daily trend, all events", target: 3, run: trend({ series: [{ event: null }] }) },
  { label: "30-day daily trend, $pageview", run: trend({ series: [{ event: "$pageview" }] }) },
  { label: "30-day daily unique users", run: trend({ series: [{ event: null, math: "dau" }] }) },
  { label: "30-day daily, plan = enterprise", run: trend({ series: [{ event: null }], properties: [{ key: "plan", value: "enterprise", operator: "exact", type: "event" }] }) },
  { label: "breakdown $browser (4 values)", target: 3, run: trend({ series: [{ event: null }], breakdownFilter: { breakdown: "$browser" } }) },
  { label: "breakdown $current_url (top 10 of 500 + other)", target: 3, run: trend({ series: [{ event: null }], breakdownFilter: { breakdown: "$current_url" } }) },
  { label: "breakdown plan (2 values, not a hot column)", run: trend({ series: [{ event: null }], breakdownFilter: { breakdown: "plan" } }) },
  { label: "breakdown $current_url, unique users", run: trend({ series: [{ event: null, math: "dau" }], breakdownFilter: { breakdown: "$current_url" } }) },
  { label: "30-day daily weekly active users", run: trend({ series: [{ event: null, math: "weekly_active" }] }) },
  { label: "30-day daily sum of amount", run: trend({ series: [{ event: null, math: "sum", math_property: "amount" }] }) },
  { label: "breakdown $current_url, p90 of amount", run: trend({ series: [{ event: null, math: "p90", math_property: "amount" }], breakdownFilter: { breakdown: "$current_url" } }) },
];

/** Both seeds end at the same instant, so that both stores hold the very same events. */
const SEEDED_AT = new Date();

/** One measure on one store: p50 and max in milliseconds, and what the answer held. */
interface Figure {
  p50: number;
  max: number;
  shown: string;
}

/**
 * Each measure runs on both stores in turn, PostgreSQL and ClickHouse alternating (and which
 * goes first alternating too), so that whatever else the machine does at the time weighs on
 * both alike. The route reads the process's database: each run registers its own first.
 */
async function timeBoth(item: Measure, stores: readonly SeededDatabase[]): Promise<Figure[]> {
  const times: number[][] = stores.map(() => []);
  const shown: string[] = stores.map(() => "");
  const once = async (i: number) => {
    registerDb(stores[i]!.db);
    const started = performance.now();
    shown[i] = await item.run(stores[i]!);
    return performance.now() - started;
  };
  for (let i = 0; i < stores.length; i++) await once(i); // warm-up
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 === 0 ? stores.map((_, i) => i) : stores.map((_, i) => stores.length - 1 - i);
    for (const i of order) times[i]!.push(await once(i));
  }
  return stores.map((_, i) => ({ ...p50AndMax(times[i]!), shown: shown[i]! }));
}

console.log(`${EVENTS} events over 90 days; ${RUNS} runs each after one warm-up, the two stores alternating; insights uncached.\n`);
const clickhouse = benchClickHouse("chdb");
const seeded: SeededDatabase[] = [];
try {
  seeded.push(await seedEvents(EVENTS, { kind: "postgres" }, SEEDED_AT));
  seeded.push(await seedEvents(EVENTS, clickhouse.config, SEEDED_AT));
  const [postgres, ch] = seeded as [SeededDatabase, SeededDatabase];
  const insertRates = seeded.map((store) => EVENTS / store.insertSeconds);
  console.log(`\nClickHouse: ${clickhouse.where}`);
  console.log(`${"".padEnd(48)} ${"PostgreSQL p50 / max".padStart(22)} ${"ClickHouse p50 / max".padStart(22)}`);
  const figures: (readonly [Figure, Figure])[] = [];
  for (const item of MEASURES) {
    const [pg, chFigure] = (await timeBoth(item, [postgres, ch])) as [Figure, Figure];
    figures.push([pg, chFigure] as const);
    const both = (f: Figure) => `${f.p50.toFixed(1)} / ${f.max.toFixed(1)} ms`.padStart(22);
    console.log(`${item.label.padEnd(48)} ${both(pg)} ${both(chFigure)}   ${pg.shown}${pg.shown === chFigure.shown ? "" : ` (ClickHouse: ${chFigure.shown})`}`);
  }
  report(insertRates as [number, number], figures);
} finally {
  for (const store of seeded) await store.close();
  await clickhouse.cleanUp();
}


function report([pgRate, chRate]: [number, number], figures: (readonly [Figure, Figure])[]): void {
  const cell = (text: string, width: number) => text.padStart(width);
  console.log(`\n${"".padEnd(48)} ${cell("PostgreSQL", 12)} ${cell("ClickHouse", 12)} ${cell("PG / CH", 9)}   target`);
  console.log(`${"insert rate (events/s)".padEnd(48)} ${cell(Math.round(pgRate).toLocaleString("en"), 12)} ${cell(Math.round(chRate).toLocaleString("en"), 12)} ${cell(`${(chRate / pgRate).toFixed(2)}× `, 9)}`);
  let missed = 0;
  MEASURES.forEach((item, i) => {
    const [pg, ch] = figures[i]!;
    const ratio = pg.p50 / ch.p50;
    let verdict = "";
    if (item.target !== undefined) {
      const met = ratio >= item.target;
      if (!met) missed++;
      verdict = item.target >= 1 ? `≥ ${item.target}× faster: ${met ? "met" : "MISSED"}` : `≤ ${1 / item.target}× slower: ${met ? "met" : "MISSED"}`;
    }
    const agree = pg.shown === ch.shown ? "" : `   (answers differ: ${pg.shown} / ${ch.shown})`;
    console.log(`${item.label.padEnd(48)} ${cell(`${pg.p50.toFixed(1)} ms`, 12)} ${cell(`${ch.p50.toFixed(1)} ms`, 12)} ${cell(`${ratio.toFixed(2)}×`, 9)}   ${verdict}${agree}`);
  });
  console.log(missed === 0 ? "\nevery target met" : `\n${missed} target(s) missed`);
}
