import { randomUUID } from "node:crypto";
import type { Database } from "@/server/db/client";
import type { StoredEventInput } from "@/server/db/events";

/** Synthetic events shaped like posthog-js pageviews. */
export function makeEvents(projectId: number, count: number): StoredEventInput[] {
  const base = Date.parse("2026-11-01T00:00:00Z");
  return Array.from({ length: count }, (_, i) => ({
    uuid: randomUUID(),
    projectId,
    event: i % 5 === 0 ? "$identify" : "$pageview",
    distinctId: `user-${i % 1000}`,
    properties: { $current_url: `https://example.com/page/${i % 50}`, $browser: "Chrome", $lib: "web", index: i, plan: i % 2 ? "pro" : "free" },
    timestamp: new Date(base + i * 1000),
  }));
}

/** The ceiling: one parameterised INSERT … VALUES (…),(…) per batch, on the same connection. */
export function rawInsert(db: Database) {
  return async (batch: StoredEventInput[]) => {
    const params: unknown[] = [];
    const tuples = batch.map((e) => {
      const n = params.push(e.uuid, e.projectId, e.event, e.distinctId, JSON.stringify(e.properties), e.timestamp.toISOString());
      return `($${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}::jsonb, $${n}::timestamptz)`;
    });
    await db.sql.query(
      `INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp) VALUES ${tuples.join(", ")}`,
      params,
    );
  };
}

/** Rows per second of `write` over `events`, in batches of `batch`. */
export async function timedInsert(events: StoredEventInput[], batch: number, write: (rows: StoredEventInput[]) => Promise<unknown>) {
  const started = performance.now();
  for (let i = 0; i < events.length; i += batch) await write(events.slice(i, i + batch));
  const seconds = (performance.now() - started) / 1000;
  return { seconds, rate: events.length / seconds };
}
