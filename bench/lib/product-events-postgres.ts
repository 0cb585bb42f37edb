/**
 * bench/lib/product-events.ts's persons and events into PostgreSQL, fast: persons (and their
 * distinct ids) one statement per chunk, events into an unindexed staging table, moved into
 * `events` in time order at the end — the generator goes person by person, but a real
 * installation's rows arrive roughly in time order, so a month's events sit in neighbouring
 * pages. (The benches measure reads, not the ingestion path.)
 */
import type { Database } from "@/server/db/client";
import type { StoredEventInput } from "@/server/db/events";
import type { ProductPerson } from "./product-events";

const STAGING = "bench_product_events";

export async function createEventStaging(db: Database): Promise<void> {
  await db.sql.exec(`CREATE UNLOGGED TABLE ${STAGING} (uuid uuid, event text, distinct_id text, properties jsonb, timestamp timestamptz, person_id uuid)`);
}

/** Persons as PostgreSQL rows, one statement per chunk, each created at its first event (as ingestion creates them). */
export async function insertPersons(db: Database, projectId: number, persons: ProductPerson[]): Promise<void> {
  if (persons.length === 0) return;
  await db.sql.query(
    `WITH new AS (
       INSERT INTO persons (uuid, project_id, properties, is_identified, created_at, updated_at)
       SELECT u, $1::int, jsonb_build_object('email', d || '@example.com'), true, c, c FROM unnest($2::uuid[], $3::text[], $4::timestamptz[]) AS t(u, d, c)
       RETURNING id, uuid)
     INSERT INTO person_distinct_ids (project_id, person_id, distinct_id)
     SELECT $1::int, new.id, t.d FROM new JOIN unnest($2::uuid[], $3::text[]) AS t(u, d) ON t.u = new.uuid`,
    [projectId, persons.map((p) => p.uuid), persons.map((p) => p.distinctId), persons.map((p) => p.createdAt.toISOString())],
  );
}

export async function stageEvents(db: Database, rows: StoredEventInput[]): Promise<void> {
  if (rows.length === 0) return;
  await db.sql.query(
    `INSERT INTO ${STAGING} (uuid, event, distinct_id, properties, timestamp, person_id)
     SELECT u, e, d, p::jsonb, t, pid FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::uuid[]) AS x(u, e, d, p, t, pid)`,
    [
      rows.map((r) => r.uuid),
      rows.map((r) => r.event),
      rows.map((r) => r.distinctId),
      rows.map((r) => JSON.stringify(r.properties)),
      rows.map((r) => r.timestamp.toISOString()),
      rows.map((r) => r.personId ?? null),
    ],
  );
}

/** The staged events into `events` in time order; the staging table dropped; statistics gathered. */
export async function moveStagedEvents(db: Database, projectId: number): Promise<void> {
  await db.sql.query(
    `INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp, person_id)
     SELECT uuid, $1::int, event, distinct_id, properties, timestamp, person_id FROM ${STAGING} ORDER BY timestamp`,
    [projectId],
  );
  await db.sql.exec(`DROP TABLE ${STAGING}; ANALYZE persons; ANALYZE person_distinct_ids; ANALYZE events;`);
}
