/**
 * How long each background worker holds the database connection at a time (issue 31: on the
 * embedded database, whose one connection every request shares, at most ~50 ms), and what a
 * simple request issued all through the run waits meanwhile. On one project of 50,000 persons
 * and 200,000 events (4 each), per worker:
 *
 *   - cohorts: a dynamic cohort (a person property and "$pageview at least twice in 30 days")
 *     computed by the worker; and, for comparison, the same membership as one transaction (how
 *     every computation ran before on both databases, and still does on PostgreSQL);
 *   - person-deletions: the events of a person with 50,000 events;
 *   - definitions: a flush of 20,000 new event names and property keys;
 *   - sessions: the background merges of the deltas of 100,000 events over 20,000 sessions,
 *     while they are inserted (1,000 per insert) and until all are merged.
 *
 * It prints per worker the checkouts (chunks) it made, their p50/max hold, its total time,
 * and the p50/p99/max of a `SELECT 1` sent to the requests' connection every 2 ms meanwhile.
 *
 *   npm run bench:workers [-- --db pglite|postgres --persons 50000]
 */
import { seedWorkerProject } from "@/test-support/worker-seed";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import type { Database } from "@/server/db/client";
import type { StoredEventInput } from "@/server/db/events";
import { recordHolds } from "@/server/db/holds";
import { createTestDatabase } from "@/test-support/db";

const { values } = parseArgs({ options: { db: { type: "string", default: "pglite" }, persons: { type: "string", default: "50000" } } });
const KIND = values.db === "postgres" ? "postgres" : "pglite";
const PERSONS = Number(values.persons);
if (process.env.DATABASE_URL && !process.env.TEST_POSTGRES_URL) process.env.TEST_POSTGRES_URL = process.env.DATABASE_URL;

const { computeCohort } = await import("@/server/cohorts/worker");
const cohortStore = await import("@/server/cohorts/store");
const { runPersonDeletions } = await import("@/server/persons/deletion-worker");
const { definitionsUpkeep } = await import("@/server/definitions/upkeep");

const quantile = (sorted: number[], q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);

interface Figures {
  worker: string;
  chunks: number;
  holdP50: number;
  holdMax: number;
  totalMs: number;
  probeP50: number;
  probeP99: number;
  probeMax: number;
}

/** Runs `work` with holds recorded for `caller` and a SELECT 1 probe on the requests' connection. */
async function measure(db: Database, worker: string, caller: string, work: () => Promise<unknown>): Promise<Figures> {
  const recorder = recordHolds();
  const probes: number[] = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      const start = performance.now();
      await db.sql.query("SELECT 1");
      probes.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  const start = performance.now();
  try {
    await work();
  } finally {
    done = true;
    await probing;
    recorder.stop();
  }
  const totalMs = performance.now() - start;
  const holds = recorder
    .of(caller)
    .map((hold) => hold.ms)
    .sort((a, b) => a - b);
  probes.sort((a, b) => a - b);
  return {
    worker,
    chunks: holds.length,
    holdP50: quantile(holds, 0.5),
    holdMax: holds.at(-1) ?? 0,
    totalMs,
    probeP50: quantile(probes, 0.5),
    probeP99: quantile(probes, 0.99),
    probeMax: probes.at(-1) ?? 0,
  };
}

const db = await createTestDatabase({ kind: KIND, events: "postgres" });
const rows: Figures[] = [];
try {
  let started = performance.now();
  const projectId = await seedWorkerProject(db, "bench_workers", PERSONS, 4);
  const doomed = randomUUID();
  await db.sql.query(
    `INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp, person_id)
     SELECT gen_random_uuid(), $1::int, '$pageview', 'doomed', '{}'::jsonb, now() - (g % 1000) * interval '1 minute', $2::uuid FROM generate_series(1, 50000) g`,
    [projectId, doomed],
  );
  await db.sql.exec("ANALYZE persons; ANALYZE events;");
  console.log(`${KIND}: seeded ${PERSONS} persons, ${PERSONS * 4 + 50_000} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const properties = {
    type: "AND",
    values: [
      { type: "person", key: "plan", operator: "exact", value: ["free"] },
      { type: "behavioral", key: "$pageview", value: "performed_event_multiple", event_type: "events", time_value: 30, time_interval: "day", operator: "gte", operator_value: 2 },
    ],
  };
  const cohort = await db.prisma.cohort.create({ data: { projectId, name: "bench", filters: { properties } as object, isCalculating: true } });
  rows.push(
    await measure(db, "cohorts", "cohorts", async () => {
      const outcome = await computeCohort(db, cohort.id);
      if (outcome.status !== "done") throw new Error(`cohort: ${JSON.stringify(outcome)}`);
    }),
  );
  // The same membership as one transaction (every computation before issue 31; PostgreSQL's still).
  const again = await db.prisma.cohort.create({ data: { projectId, name: "bench, one transaction", filters: { properties } as object, isCalculating: true } });
  const { storedTree, eventCountOf } = await import("@/server/cohorts/stored-filters");
  const now = new Date();
  rows.push(
    await measure(db, "cohorts, one transaction", "cohorts-one-transaction", () =>
      cohortStore.replaceMembership(db.worker.as("cohorts-one-transaction"), {
        cohortId: again.id,
        projectId,
        version: again.version,
        tree: storedTree(again.filters)!,
        nested: new Map(),
        eventCount: (leaf) => eventCountOf(leaf, now),
        behavioralPersons: null,
        now,
      }),
    ),
  );

  await db.sql.query(`INSERT INTO person_deletions (project_id, person_uuid, distinct_ids) VALUES ($1::int, $2::uuid, $3::text[])`, [projectId, doomed, ["doomed"]]);
  rows.push(
    await measure(db, "person-deletions (50,000 events)", "person-deletions", async () => {
      const pass = await runPersonDeletions(db);
      if (pass.deletedEvents !== 50_000) throw new Error(`deletions: ${JSON.stringify(pass)}`);
    }),
  );

  const upkeep = definitionsUpkeep(db.sql);
  const at = new Date();
  upkeep.observeEvents(
    Array.from({ length: 2_000 }, (_, i) => ({
      projectId,
      event: `event-${i}`,
      properties: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`key-${i}-${k}`, k % 2 ? i : `v${k}`])),
      timestamp: at,
    })),
  );
  rows.push(await measure(db, "definitions flush (2,000 names, 20,000 keys)", "definitions", () => upkeep.flush()));

  const sessions: StoredEventInput[] = Array.from({ length: 100_000 }, (_, i) => ({
    uuid: randomUUID(),
    projectId,
    event: "$pageview",
    distinctId: `visitor-${i % 20_000}`,
    properties: { $session_id: `session-${i % 20_000}`, $current_url: `https://example.com/${i % 50}` },
    timestamp: new Date(at.getTime() - (i % 3_600) * 1_000),
  }));
  rows.push(
    // The background merges inserts schedule, while they go on and until nothing is left (the SELECT 1 also waits for the inserts).
    await measure(db, "sessions merge (inserting 100,000 events)", "sessions", async () => {
      for (let i = 0; i < sessions.length; i += 1_000) await db.events.insert(sessions.slice(i, i + 1_000));
      for (;;) {
        const [left] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM session_deltas`);
        if (left!.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  );
} finally {
  await db.close();
}

const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(10);
console.log(`\n${KIND === "pglite" ? "embedded database (PGlite, one connection)" : "PostgreSQL server (workers on their own pool)"}: holds of the connection per worker, and a SELECT 1 every 2 ms meanwhile`);
console.log(`${"worker".padEnd(46)} ${"chunks".padStart(7)} ${"hold p50".padStart(10)} ${"hold max".padStart(10)} ${"total".padStart(10)}   ${"SELECT 1 p50".padStart(12)} ${"p99".padStart(10)} ${"max".padStart(10)}`);
for (const row of rows) {
  console.log(`${row.worker.padEnd(46)} ${String(row.chunks).padStart(7)} ${ms(row.holdP50)} ${ms(row.holdMax)} ${ms(row.totalMs)}   ${ms(row.probeP50).padStart(12)} ${ms(row.probeP99)} ${ms(row.probeMax)}`);
}
