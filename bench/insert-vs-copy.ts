/**
 * What bench:hot's `/batch/` goal ("≥ 0.9 of the raw COPY ceiling") asks of the events'
 * write on PostgreSQL, without HTTP: posthog-js page views (~35 properties, a `$session_id`
 * each) written four statements in flight, in alternating blocks, as
 *   - the store's insert (`insertEvents`: the events and their session deltas in one statement),
 *     in chunks of 100 (one `/batch/` request's) and of 1,000;
 *   - COPY of the same 100 rows and their session deltas in one transaction (what the store
 *     would do with COPY);
 *   - a raw COPY of 100 and of 1,000 rows, nothing else (bench:hot's ceiling: 1,000-row COPY,
 *     the best of one, two and four streams).
 * Prints rows/s and the CPU per row of this process and of PostgreSQL, medians over the blocks.
 *
 *   npm run bench:insert-vs-copy [-- --rows 30000 --blocks 5]
 *
 * A throwaway database on TEST_POSTGRES_URL's server (127.0.0.1:5432 by default).
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import pg from "pg";
import { insertEvents, type StoredEventInput } from "@/server/db/events";
import { sessionDeltasOf } from "@/server/db/events/sessions/deltas";
import { insertSessionDeltas } from "@/server/db/events/sessions/postgres";
import { createTestDatabase, TEST_POSTGRES_ADMIN_URL } from "@/test-support/db";
import { postgresCpuSeconds, postgresCpuSince } from "./lib/cpu";
import { posthogJsPageviewProperties } from "./lib/posthog-js-event";
import { copyBatch } from "./lib/raw-copy";

const { values } = parseArgs({ options: { rows: { type: "string", default: "30000" }, blocks: { type: "string", default: "5" } } });
const ROWS = Number(values.rows);
const BLOCKS = Number(values.blocks);
const IN_FLIGHT = 4;
const VISITORS = 300;

const db = await createTestDatabase({ kind: "postgres" });
const [{ name }] = (await db.sql.query<{ name: string }>("SELECT current_database() AS name")) as [{ name: string }];
const url = new URL(TEST_POSTGRES_ADMIN_URL);
url.pathname = `/${name}`;
const clients = await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    return client;
  }),
);

interface Way {
  label: string;
  chunk: number;
  write(client: pg.Client, rows: StoredEventInput[]): Promise<unknown>;
}

const WAYS: Way[] = [
  { label: "insert, 100 a statement", chunk: 100, write: (_, rows) => insertEvents(db.sql, rows) },
  { label: "insert, 1,000 a statement", chunk: 1_000, write: (_, rows) => insertEvents(db.sql, rows) },
  {
    label: "COPY + deltas, 100 a transaction",
    chunk: 100,
    async write(client, rows) {
      await client.query("BEGIN");
      try {
        await copyBatch(client, rows);
        await client.query(insertSessionDeltas("$1"), [JSON.stringify(sessionDeltasOf(rows))]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    },
  },
  { label: "raw COPY, 100 a statement", chunk: 100, write: copyBatch },
  { label: "raw COPY, 1,000 (the ceiling)", chunk: 1_000, write: copyBatch },
];

try {
  const org = await db.prisma.organization.create({ data: { name: "bench" } });
  const project = await db.prisma.project.create({ data: { organizationId: org.id, name: "bench", apiToken: `phc_insert_vs_copy_${Date.now()}` } });
  const now = new Date();
  const rowsOf = (count: number): StoredEventInput[] =>
    Array.from({ length: count }, (_, i) => ({
      uuid: randomUUID(),
      projectId: project.id,
      event: "$pageview",
      distinctId: `bench-user-${i % VISITORS}`,
      properties: posthogJsPageviewProperties(i % VISITORS, i),
      timestamp: now,
    }));

  async function block(way: Way) {
    const chunks: StoredEventInput[][] = [];
    for (let i = 0; i < ROWS; i += way.chunk) chunks.push(rowsOf(Math.min(way.chunk, ROWS - i)));
    const process0 = process.cpuUsage();
    const postgres0 = postgresCpuSeconds();
    const started = performance.now();
    await Promise.all(clients.map(async (client) => { for (let next = chunks.shift(); next; next = chunks.shift()) await way.write(client, next); }));
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(process0);
    return { rate: ROWS / seconds, processUs: (used.user + used.system) / ROWS, postgresUs: (postgresCpuSince(postgres0) * 1e6) / ROWS };
  }

  // Plans, prepared statements and the JIT warm on every way first.
  for (const way of WAYS) await block(way);
  const results = new Map(WAYS.map((way) => [way, [] as Awaited<ReturnType<typeof block>>[]]));
  for (let i = 0; i < BLOCKS; i++) {
    // The order reverses every block, so that a drift of the machine falls on all.
    for (const way of i % 2 === 0 ? WAYS : [...WAYS].reverse()) results.get(way)!.push(await block(way));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`\nPostgreSQL server: ${BLOCKS} blocks of ${ROWS} posthog-js page views each way, ${IN_FLIGHT} statements in flight (medians)`);
  for (const [way, list] of results) {
    console.log(
      `  ${way.label.padEnd(34)} ${median(list.map((r) => r.rate)).toFixed(0).padStart(6)} rows/s  this process ${median(list.map((r) => r.processUs)).toFixed(1).padStart(5)} µs  PostgreSQL ${median(list.map((r) => r.postgresUs)).toFixed(1).padStart(5)} µs a row`,
    );
  }
} finally {
  await Promise.all(clients.map((client) => client.end()));
  await db.close();
}
