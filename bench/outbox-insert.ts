/**
 * What the destinations' outbox adds to capture's own write: one-event statements through the
 * events store (as `/capture/` writes them, four in flight as the event writer keeps them),
 * with the events routed to five destinations (the outbox batch row in the same statement)
 * and without, in alternating blocks. Prints, per statement, the wall time and the CPU of
 * this process and of PostgreSQL's processes, medians over the blocks.
 *
 *   npm run bench:outbox-insert [-- --db postgres|pglite --statements 2000 --blocks 5]
 *
 * PostgreSQL: a throwaway database on TEST_POSTGRES_URL's server; the embedded database
 * runs in this process (its CPU is this process's).
 */
import { parseArgs } from "node:util";
import { createTestDatabase } from "@/test-support/db";
import { insertEvents } from "@/server/db/events";
import { makeEvents } from "./lib/raw-insert";
import { postgresCpuSeconds, postgresCpuSince } from "./lib/cpu";

const { values } = parseArgs({ options: { db: { type: "string", default: "postgres" }, statements: { type: "string", default: "2000" }, blocks: { type: "string", default: "5" } } });
const KIND = values.db === "pglite" ? "pglite" : "postgres";
const STATEMENTS = Number(values.statements);
const BLOCKS = Number(values.blocks);
const IN_FLIGHT = 4;
const DESTINATIONS = ["0190f7a1-0000-7000-8000-000000000001", "0190f7a1-0000-7000-8000-000000000002", "0190f7a1-0000-7000-8000-000000000003", "0190f7a1-0000-7000-8000-000000000004", "0190f7a1-0000-7000-8000-000000000005"];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const db = await createTestDatabase({ kind: KIND });
try {
  const org = await db.prisma.organization.create({ data: { name: "bench" } });
  const project = await db.prisma.project.create({ data: { organizationId: org.id, name: "bench", apiToken: `phc_bench_outbox_${Date.now()}` } });

  async function block(routed: boolean) {
    const events = makeEvents(project.id, STATEMENTS).map((event) => (routed ? { ...event, destinations: DESTINATIONS } : event));
    const process0 = process.cpuUsage();
    const postgres0 = postgresCpuSeconds();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < events.length) await insertEvents(db.sql, [events[next++]!]);
      }),
    );
    const wall = performance.now() - started;
    const used = process.cpuUsage(process0);
    return {
      wallUs: (wall * 1000) / STATEMENTS,
      processUs: (used.user + used.system) / STATEMENTS,
      postgresUs: KIND === "postgres" ? (postgresCpuSince(postgres0) * 1e6) / STATEMENTS : 0,
    };
  }

  // Plans, prepared statements and JIT warm on both shapes first.
  await block(false);
  await block(true);
  const results = { without: [] as Awaited<ReturnType<typeof block>>[], with: [] as Awaited<ReturnType<typeof block>>[] };
  for (let i = 0; i < BLOCKS; i++) {
    // Which goes first alternates, so that a drift of the machine falls on both.
    for (const routed of i % 2 === 0 ? [false, true] : [true, false]) (routed ? results.with : results.without).push(await block(routed));
  }
  const outboxRows = await db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM hog_function_outbox_batches");
  console.log(`\n${KIND === "postgres" ? "PostgreSQL server" : "embedded PostgreSQL (PGlite)"}: ${BLOCKS} blocks of ${STATEMENTS} one-event statements each way, ${IN_FLIGHT} in flight (${outboxRows[0]!.n} outbox batch rows written)`);
  const row = (label: string, list: Awaited<ReturnType<typeof block>>[]) =>
    console.log(
      `  ${label.padEnd(22)} wall ${median(list.map((r) => r.wallUs)).toFixed(0).padStart(5)} µs  this process ${median(list.map((r) => r.processUs)).toFixed(0).padStart(5)} µs` +
        (KIND === "postgres" ? `  PostgreSQL ${median(list.map((r) => r.postgresUs)).toFixed(0).padStart(5)} µs` : "") +
        "  per statement (medians)",
    );
  row("no destinations", results.without);
  row("five destinations", results.with);
} finally {
  await db.close();
}
