/**
 * Deleting one person's events for good (issue 18): N events of one person (two distinct
 * ids) among as many of other persons, deleted by the background worker's pass
 * (`runPersonDeletions`, in its production batch size). Prints the time and rate, and
 * checks that exactly that person's events went. The database is a throwaway one as in the
 * tests: PGlite by default, BURROW_TEST_DB=postgres for the server, BURROW_TEST_EVENTS=clickhouse
 * for events in ClickHouse (chdb).
 *
 *   npx tsx bench/person-deletion.ts [--events 100000]
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import type { StoredEventInput } from "@/server/db/events";
import { runPersonDeletions } from "@/server/persons/deletion-worker";

const { values } = parseArgs({ options: { events: { type: "string", default: "100000" } } });
const EVENTS = Number(values.events);

const db = await createTestDatabase();
try {
  const project = await db.prisma.project.create({ data: { organization: { create: { name: "Bench" } }, name: "Bench", apiToken: `phc_bench_${randomUUID()}` } });
  const doomed = randomUUID();
  const start = Date.parse("2024-01-01T00:00:00Z");
  const batch = (person: string, distinctIds: string[], from: number): StoredEventInput[] =>
    Array.from({ length: 10_000 }, (_, i) => ({
      uuid: randomUUID(),
      projectId: project.id,
      event: i % 3 ? "$pageview" : "purchase",
      distinctId: distinctIds[i % distinctIds.length]!,
      properties: { $current_url: `https://shop.example/${i % 50}`, amount: i },
      timestamp: new Date(start + (from + i) * 60_000),
      personId: person,
    }));
  for (let n = 0; n < EVENTS; n += 10_000) {
    await db.events.insert(batch(doomed, ["user-1", "anon-1"], n));
    await db.events.insert(batch(randomUUID(), [`other-${n}`], n));
  }
  await db.prisma.personDeletion.create({ data: { projectId: project.id, personUuid: doomed, distinctIds: ["user-1", "anon-1"] } });
  const started = performance.now();
  const pass = await runPersonDeletions(db);
  const seconds = (performance.now() - started) / 1000;
  const left = await db.events.trend(project.id, { event: null, filters: [], math: "total", from: new Date(0), to: new Date(start + 10 * EVENTS * 60_000), zone: "UTC", interval: null, breakdown: null, now: new Date() });
  console.log(
    `${testStoresName}: deleted ${pass.deletedEvents} of ${2 * EVENTS} events in ${seconds.toFixed(2)} s (${Math.round(pass.deletedEvents / seconds)} events/s); ${left[0]?.n ?? 0} events left`,
  );
  if (pass.deletedEvents !== EVENTS || (left[0]?.n ?? 0) !== EVENTS) throw new Error(`expected ${EVENTS} deleted and ${EVENTS} left`);
} finally {
  await db.close();
}
