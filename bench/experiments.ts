/**
 * Experiment results at 1,000,000 exposures, PostgreSQL and ClickHouse side by side: one
 * running experiment (control/test 50/50 on PostHog's hash), each user exposed through a
 * `$feature_flag_called` event, a fifth of them converting with a `purchase` (an amount),
 * written through each event store's own insert. Timed uncached through `computeQuery`
 * (`refresh: "force"`), p50 and max of `--runs` runs after one warm-up, the stores taking
 * turns: the ExperimentQuery of a funnel metric and of a mean metric (sum of amount).
 *
 * Targets (issue 37): under 1 s on PostgreSQL, under 300 ms on ClickHouse.
 *
 *   npm run bench:experiments [-- --exposures 1000000 --runs 5]
 *
 * One throwaway PostgreSQL database on TEST_POSTGRES_URL's server; ClickHouse is chdb on disk
 * in a temporary directory, or CLICKHOUSE_URL's server in a throwaway database. Everything
 * is dropped at the end.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { bootstrap } from "@/server/accounts/service";
import { registerDb } from "@/server/db";
import { openDatabase, type Database } from "@/server/db/client";
import type { StoredEventInput } from "@/server/db/events";
import { ClickHouseEventStore } from "@/server/db/events/clickhouse/store";
import { migrate } from "@/server/db/migrate";
import { matchingVariant } from "@/server/flags/evaluation";
import { computeQuery } from "@/server/query/service";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import { benchClickHouse } from "./lib/clickhouse";
import { p50AndMax } from "./lib/seed-events";

const { values } = parseArgs({ options: { exposures: { type: "string", default: "1000000" }, runs: { type: "string", default: "5" } } });
const EXPOSURES = Number(values.exposures);
const RUNS = Number(values.runs);
const TARGET_MS = { postgres: 1000, clickhouse: 300 } as const;
const FLAG = "bench-checkout";
const VARIANTS = [
  { key: "control", rollout_percentage: 50 },
  { key: "test", rollout_percentage: 50 },
];

const NOW = new Date();
const START = NOW.getTime() - 14 * 86_400_000;
const clickhouse = benchClickHouse("experiments");
const database = await createEmptyPostgresDatabase();
const opened: Database[] = [];
try {
  const postgres = await openDatabase({ kind: "postgres", url: database.url });
  opened.push(postgres);
  await migrate(postgres.sql);
  registerDb(postgres);
  const { project_id: projectId, user } = await bootstrap(postgres.prisma, { email: "bench-experiments@example.com", password: "bench-password" });
  const ch = await openDatabase({ kind: "postgres", url: database.url }, clickhouse.config);
  opened.push(ch);
  const flag = await postgres.prisma.featureFlag.create({
    data: { projectId, key: FLAG, active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: VARIANTS } } },
  });
  const experiment = await postgres.prisma.experiment.create({
    data: { projectId, name: "Bench", featureFlagId: flag.id, startDate: new Date(START), parameters: { feature_flag_variants: VARIANTS }, createdById: user.id },
  });
  const definition = { id: flag.id, key: FLAG, active: true, filters: { multivariate: { variants: VARIANTS } } };

  console.log(`seeding ${EXPOSURES.toLocaleString("en")} exposures (and a fifth as many purchases) through each store's insert…`);
  let pgSeconds = 0;
  let chSeconds = 0;
  let total = 0;
  const BATCH = 20_000;
  for (let from = 0; from < EXPOSURES; from += BATCH) {
    const rows: StoredEventInput[] = [];
    for (let i = from; i < Math.min(EXPOSURES, from + BATCH); i++) {
      const distinctId = `user-${i}`;
      const variant = matchingVariant(definition, distinctId)!;
      const at = START + (i % (13 * 86_400)) * 1000;
      rows.push({ uuid: randomUUID(), projectId, event: "$feature_flag_called", distinctId, properties: { $feature_flag: FLAG, $feature_flag_response: variant }, timestamp: new Date(at) });
      if (i % 5 === 0 || (variant === "test" && i % 23 === 0)) rows.push({ uuid: randomUUID(), projectId, event: "purchase", distinctId, properties: { amount: (i % 50) + 1 }, timestamp: new Date(at + 60_000) });
    }
    total += rows.length;
    let started = performance.now();
    await postgres.events.insert(rows);
    pgSeconds += (performance.now() - started) / 1000;
    started = performance.now();
    await ch.events.insert(rows);
    chSeconds += (performance.now() - started) / 1000;
  }
  let started = performance.now();
  await postgres.sql.exec(`ANALYZE events;`);
  pgSeconds += (performance.now() - started) / 1000;
  started = performance.now();
  if (ch.events instanceof ClickHouseEventStore) await ch.events.settle();
  chSeconds += (performance.now() - started) / 1000;
  console.log(`${total.toLocaleString("en")} events; insert: PostgreSQL ${pgSeconds.toFixed(1)} s, ClickHouse ${chSeconds.toFixed(1)} s`);
  console.log(`ClickHouse: ${clickhouse.where}. ${RUNS} uncached runs each after one warm-up, the stores alternating.`);
  console.log(`targets: p50 under ${TARGET_MS.postgres} ms on PostgreSQL, under ${TARGET_MS.clickhouse} ms on ClickHouse\n`);

  const MEASURES = [
    { label: "ExperimentQuery, funnel", metric: { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "EventsNode", event: "purchase" }] } },
    { label: "ExperimentQuery, mean (sum)", metric: { kind: "ExperimentMetric", metric_type: "mean", source: { kind: "EventsNode", event: "purchase", math: "sum", math_property: "amount" } } },
  ];
  console.log(`${"".padEnd(32)} ${"PostgreSQL p50 / max".padStart(24)} ${"ClickHouse p50 / max".padStart(24)}`);
  let missed = 0;
  const stores = [postgres, ch] as const;
  for (const item of MEASURES) {
    const times: number[][] = [[], []];
    const shown = ["", ""];
    const query = { kind: "ExperimentQuery", experiment_id: experiment.id, metric: item.metric };
    const once = async (i: number) => {
      registerDb(stores[i]!);
      const begun = performance.now();
      const computed = await computeQuery(stores[i]!, projectId, query, { refresh: "force", now: NOW });
      const elapsed = performance.now() - begun;
      const extra = computed.answer?.extra as { baseline: { number_of_samples: number; sum: number }; variant_results: { number_of_samples: number; sum: number; chance_to_win: number | null }[] };
      const test = extra.variant_results[0]!;
      shown[i] = `control ${extra.baseline.number_of_samples}/${extra.baseline.sum}, test ${test.number_of_samples}/${test.sum} (${test.chance_to_win?.toFixed(4)})`;
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
    console.log(`${item.label.padEnd(32)} ${verdict(pg!, TARGET_MS.postgres).padStart(24)} ${verdict(chFigure!, TARGET_MS.clickhouse).padStart(24)}   ${agree}`);
  }
  console.log(`\n${missed === 0 ? "every target met" : `${missed} target(s) missed`}`);
} finally {
  for (const db of opened.reverse()) await db.close();
  await database.drop();
  await clickhouse.cleanUp();
}
