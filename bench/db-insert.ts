/**
 * Insert throughput of event rows on each database: the events store (the path ingestion
 * writes through) beside a raw multi-row INSERT … VALUES on the same connection, the ceiling
 * later ingestion work is measured against. Also Prisma's createMany, for reference.
 *
 *   npm run bench:db-insert [-- --rows 100000]
 *
 * PostgreSQL: TEST_POSTGRES_URL (default postgresql://root@127.0.0.1:5432/postgres) is used
 * to create and drop a throwaway database.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createTestDatabase } from "@/test-support/db";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { insertEvents, type StoredEventInput } from "@/server/db/events";
import { makeEvents, rawInsert, timedInsert } from "./lib/raw-insert";

const { values } = parseArgs({ options: { rows: { type: "string", default: "100000" }, batch: { type: "string", default: "1000" } } });
const ROWS = Number(values.rows);
const BATCH = Number(values.batch);

async function timed(label: string, events: StoredEventInput[], write: (batch: StoredEventInput[]) => Promise<unknown>) {
  return { label, ...(await timedInsert(events, BATCH, write)) };
}

function prismaCreateMany(db: Database) {
  return async (batch: StoredEventInput[]) => {
    await db.prisma.event.createMany({
      data: batch.map(({ uuid, projectId, event, distinctId, properties, timestamp }) => ({ uuid, projectId, event, distinctId, properties: properties as object, timestamp })),
    });
  };
}

async function benchmark(kind: "pglite" | "postgres") {
  // The embedded database as Burrow runs it: on disk in a DATA_DIR of its own.
  const dataDir = kind === "pglite" ? fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-")) : null;
  const db = dataDir ? await openDatabase({ kind: "pglite", dataDir }) : await createTestDatabase({ kind });
  if (dataDir) await migrate(db.sql);
  try {
    const org = await db.prisma.organization.create({ data: { name: "bench" } });
    const project = await db.prisma.project.create({ data: { organizationId: org.id, name: "bench", apiToken: `phc_bench_${kind}` } });
    // Warm up each path once so plans and JIT are not part of the figure.
    await insertEvents(db.sql, makeEvents(project.id, BATCH));
    await rawInsert(db)(makeEvents(project.id, BATCH));
    const results = [
      await timed("events store (unnest)", makeEvents(project.id, ROWS), (batch) => insertEvents(db.sql, batch)),
      await timed("raw INSERT … VALUES", makeEvents(project.id, ROWS), rawInsert(db)),
      await timed("Prisma createMany", makeEvents(project.id, ROWS), prismaCreateMany(db)),
    ];
    const ceiling = results[1]!.rate;
    console.log(`\n${kind === "pglite" ? "embedded PostgreSQL (PGlite, on disk)" : "PostgreSQL server"}: ${ROWS} rows in batches of ${BATCH}`);
    for (const r of results) {
      console.log(`  ${r.label.padEnd(24)} ${Math.round(r.rate).toString().padStart(8)} rows/s  ${r.seconds.toFixed(2).padStart(6)} s  ratio to raw ${(r.rate / ceiling).toFixed(2)}`);
    }
  } finally {
    await db.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await benchmark("pglite");
await benchmark("postgres");
