import type { SqlExecutor } from "@/server/db/driver";

/** An event as it is stored (after ingestion has normalised it). */
export interface StoredEventInput {
  uuid: string;
  projectId: number;
  event: string;
  distinctId: string;
  properties: Record<string, unknown>;
  timestamp: Date;
  personId?: string | null;
  elementsChain?: string;
  historicalMigration?: boolean;
}

/** Rows per statement: bounded so one statement's arrays stay a few MB at most. */
const CHUNK = 5_000;

/**
 * Writes events with one `INSERT … SELECT FROM unnest(…)` per chunk: one round trip and one
 * plan for thousands of rows, which is what lets ingestion keep up. A uuid the project
 * already has is skipped, so a retried batch is not stored twice. Returns rows written.
 */
export async function insertEvents(sql: SqlExecutor, events: readonly StoredEventInput[]): Promise<number> {
  let inserted = 0;
  for (let start = 0; start < events.length; start += CHUNK) {
    const chunk = events.slice(start, start + CHUNK);
    const rows = await sql.query<{ n: number }>(
      `WITH inserted AS (
         INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp, person_id, elements_chain, historical_migration)
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::jsonb[], $6::timestamptz[], $7::uuid[], $8::text[], $9::bool[])
         ON CONFLICT (project_id, uuid) DO NOTHING
         RETURNING 1
       ) SELECT count(*)::int AS n FROM inserted`,
      [
        chunk.map((e) => e.uuid),
        chunk.map((e) => e.projectId),
        chunk.map((e) => e.event),
        chunk.map((e) => e.distinctId),
        chunk.map((e) => JSON.stringify(e.properties)),
        chunk.map((e) => e.timestamp.toISOString()),
        chunk.map((e) => e.personId ?? null),
        chunk.map((e) => e.elementsChain ?? ""),
        chunk.map((e) => e.historicalMigration ?? false),
      ],
      { prepare: "burrow_insert_events" },
    );
    inserted += rows[0]!.n;
  }
  return inserted;
}
