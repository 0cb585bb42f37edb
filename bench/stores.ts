/**
 * The two event stores side by side on the same 1,000,000 generated events (90 days,
 * bench/lib/seed-events.ts): PostgreSQL (TEST_POSTGRES_URL's server) and ClickHouse (chdb
 * on disk in a temporary directory, or CLICKHOUSE_URL's server in a throwaway database).
 * Persons and everything else are in PostgreSQL both times. Measured: the insert rate
 * through `store.insert` (10,000 a batch, one after another), the events list's first page
 * and a property filter through the real route handler, and uncached insights through
 * `computeInsight` (a 30-day daily trend, unique users, breakdowns). Each read is timed
 * over repeated runs after one warm-up; the ratio is PostgreSQL's p50 over ClickHouse's.
 *
 *   npm run bench:stores [-- --events 1000000 --runs 10]
 *
 * Targets (issue 10): ClickHouse at least 3× faster on the trend and the breakdown, and no
 * more than 2× slower on the first page.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { GET as listEvents } from "@/app/api/projects/[project_id]/events/route";
import { registerDb } from "@/server/db";
import { eventStoreConfigFromEnv, type EventStoreConfig } from "@/server/events/store/config";
import { dropClickHouseDatabase } from "@/server/events/store/clickhouse/open";
import { computeInsight } from "@/server/insights/service";
import { seedEvents, timeRuns, type SeededDatabase } from "./lib/seed-events";

const { values } = parseArgs({ options: { events: { type: "string", default: "1000000" }, runs: { type: "string", default: "10" } } });
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
    const counted = answer.result!.reduce((sum, item) => sum + (item.aggregated_value ?? item.count), 0);
    return `${answer.result!.length} series, ${counted} counted`;
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
];

interface StoreFigures {
  insertRate: number;
  p50: number[];
  max: number[];
  shown: string[];
}

/** Both seeds end at the same instant, so that both stores hold the very same events. */
const SEEDED_AT = new Date();

async function measure(name: string, eventStore: EventStoreConfig): Promise<StoreFigures> {
  const seeded = await seedEvents(EVENTS, eventStore, SEEDED_AT);
  try {
    registerDb(seeded.db);
    const figures: StoreFigures = { insertRate: EVENTS / seeded.insertSeconds, p50: [], max: [], shown: [] };
    console.log(`${name}: inserted at ${Math.round(figures.insertRate).toLocaleString("en")} events/s`);
    for (const item of MEASURES) {
      let shown = "";
      const { p50, max } = await timeRuns(RUNS, async () => {
        shown = await item.run(seeded);
      });
      figures.p50.push(p50);
      figures.max.push(max);
      figures.shown.push(shown);
      console.log(`  ${item.label.padEnd(48)} p50 ${p50.toFixed(1).padStart(7)} ms   max ${max.toFixed(1).padStart(7)} ms   ${shown}`);
    }
    return figures;
  } finally {
    await seeded.close();
  }
}

/** ClickHouse for the run: CLICKHOUSE_URL's server (a throwaway database), else chdb in a temporary directory. */
function clickHouseConfig(): { config: Exclude<EventStoreConfig, { kind: "postgres" }>; where: string; cleanUp(): Promise<void> } {
  const configured = eventStoreConfigFromEnv();
  if (configured.kind === "clickhouse") {
    const config = { ...configured, database: `burrow_bench_${randomBytes(4).toString("hex")}` };
    return { config, where: `server ${new URL(configured.url).host}`, cleanUp: () => dropClickHouseDatabase(config) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-chdb-"));
  return {
    config: { kind: "chdb", path: dir, database: "burrow" },
    where: `chdb on disk (${dir})`,
    cleanUp: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

console.log(`${EVENTS} events over 90 days; ${RUNS} runs each after one warm-up; insights uncached.\n`);
const postgres = await measure("PostgreSQL", { kind: "postgres" });
const clickhouse = clickHouseConfig();
let ch: StoreFigures;
try {
  console.log();
  ch = await measure(`ClickHouse, ${clickhouse.where}`, clickhouse.config);
} finally {
  await clickhouse.cleanUp();
}

const cell = (text: string, width: number) => text.padStart(width);
console.log(`\n${"".padEnd(48)} ${cell("PostgreSQL", 12)} ${cell("ClickHouse", 12)} ${cell("PG / CH", 9)}   target`);
console.log(
  `${"insert rate (events/s)".padEnd(48)} ${cell(Math.round(postgres.insertRate).toLocaleString("en"), 12)} ${cell(Math.round(ch.insertRate).toLocaleString("en"), 12)} ${cell(`${(ch.insertRate / postgres.insertRate).toFixed(2)}× `, 9)}`,
);
let missed = 0;
MEASURES.forEach((item, i) => {
  const ratio = postgres.p50[i]! / ch.p50[i]!;
  let verdict = "";
  if (item.target !== undefined) {
    const met = ratio >= item.target;
    if (!met) missed++;
    verdict = item.target >= 1 ? `≥ ${item.target}× faster: ${met ? "met" : "MISSED"}` : `≤ ${1 / item.target}× slower: ${met ? "met" : "MISSED"}`;
  }
  const agree = postgres.shown[i] === ch.shown[i] ? "" : `   (answers differ: ${postgres.shown[i]} / ${ch.shown[i]})`;
  console.log(`${item.label.padEnd(48)} ${cell(`${postgres.p50[i]!.toFixed(1)} ms`, 12)} ${cell(`${ch.p50[i]!.toFixed(1)} ms`, 12)} ${cell(`${ratio.toFixed(2)}×`, 9)}   ${verdict}${agree}`);
});
console.log(missed === 0 ? "\nevery target met" : `\n${missed} target(s) missed`);
