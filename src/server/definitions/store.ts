/**
 * The definitions tables: event and property definitions, which events carry which
 * properties, per-day use counters, and which projects were backfilled. Writes are batched
 * upserts over `unnest` (one statement per table per flush); reads sum the last 30 days of
 * counters for "most used first".
 */
import type { SqlExecutor } from "@/server/db/driver";

/** Counter kinds in definition_volumes. */
export const VOLUME_KIND = { event: 0, eventProperty: 1, personProperty: 2 } as const;
export type VolumeKind = (typeof VOLUME_KIND)[keyof typeof VOLUME_KIND];

/** PostHog's property definition `type` numbers. */
export const PROPERTY_TYPE_NUMBER = { event: 1, person: 2 } as const;

export interface EventDefinitionUpsert {
  projectId: number;
  name: string;
  lastSeenAt: Date;
  createdAt?: Date;
}

export interface PropertyDefinitionUpsert {
  projectId: number;
  type: 1 | 2;
  name: string;
  /** Kept once known: a null here never clears it. */
  propertyType: string | null;
  lastSeenAt: Date;
}

export interface EventPropertyRow {
  projectId: number;
  event: string;
  property: string;
}

export interface VolumeRow {
  projectId: number;
  kind: VolumeKind;
  name: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  count: number;
}

export async function upsertEventDefinitions(sql: SqlExecutor, rows: readonly EventDefinitionUpsert[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO event_definitions (project_id, name, created_at, last_seen_at)
     SELECT u.project_id, u.name, u.created_at, u.last_seen_at
       FROM unnest($1::int[], $2::text[], $3::timestamptz[], $4::timestamptz[]) AS u(project_id, name, created_at, last_seen_at)
      WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = u.project_id)
     ON CONFLICT (project_id, name) DO UPDATE
       SET last_seen_at = GREATEST(event_definitions.last_seen_at, excluded.last_seen_at),
           created_at = LEAST(event_definitions.created_at, excluded.created_at)`,
    [rows.map((r) => r.projectId), rows.map((r) => r.name), rows.map((r) => r.createdAt ?? new Date()), rows.map((r) => r.lastSeenAt)],
  );
}

export async function upsertPropertyDefinitions(sql: SqlExecutor, rows: readonly PropertyDefinitionUpsert[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO property_definitions (project_id, type, name, property_type, last_seen_at)
     SELECT u.project_id, u.type, u.name, u.property_type, u.last_seen_at
       FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::timestamptz[]) AS u(project_id, type, name, property_type, last_seen_at)
      WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = u.project_id)
     ON CONFLICT (project_id, type, name) DO UPDATE
       SET property_type = COALESCE(property_definitions.property_type, excluded.property_type),
           last_seen_at = GREATEST(property_definitions.last_seen_at, excluded.last_seen_at)`,
    [rows.map((r) => r.projectId), rows.map((r) => r.type), rows.map((r) => r.name), rows.map((r) => r.propertyType), rows.map((r) => r.lastSeenAt)],
  );
}

export async function insertEventProperties(sql: SqlExecutor, rows: readonly EventPropertyRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO event_properties (project_id, event, property)
     SELECT u.project_id, u.event, u.property
       FROM unnest($1::int[], $2::text[], $3::text[]) AS u(project_id, event, property)
      WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = u.project_id)
     ON CONFLICT DO NOTHING`,
    [rows.map((r) => r.projectId), rows.map((r) => r.event), rows.map((r) => r.property)],
  );
}

/** Adds to the day's counters (`replace`: sets them, for a backfill read from the store). */
export async function addVolumes(sql: SqlExecutor, rows: readonly VolumeRow[], options: { replace?: boolean } = {}): Promise<void> {
  if (rows.length === 0) return;
  const update = options.replace ? "excluded.count" : "definition_volumes.count + excluded.count";
  await sql.query(
    `INSERT INTO definition_volumes (project_id, kind, name, day, count)
     SELECT u.project_id, u.kind, u.name, u.day, u.count
       FROM unnest($1::int[], $2::int[], $3::text[], $4::date[], $5::int[]) AS u(project_id, kind, name, day, count)
      WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = u.project_id)
     ON CONFLICT (project_id, kind, name, day) DO UPDATE SET count = LEAST(${update}, 2147483647)`,
    [rows.map((r) => r.projectId), rows.map((r) => r.kind), rows.map((r) => r.name), rows.map((r) => r.day), rows.map((r) => Math.min(r.count, 2_147_483_647))],
  );
}

/** Counters older than the volume window are never read again. */
export async function pruneVolumes(sql: SqlExecutor, before: string): Promise<void> {
  await sql.query(`DELETE FROM definition_volumes WHERE day < $1::date`, [before]);
}

export async function isBackfilled(sql: SqlExecutor, projectId: number): Promise<boolean> {
  const rows = await sql.query(`SELECT 1 FROM definition_backfills WHERE project_id = $1::int`, [projectId]);
  return rows.length > 0;
}

export async function markBackfilled(sql: SqlExecutor, projectId: number): Promise<void> {
  await sql.query(`INSERT INTO definition_backfills (project_id) VALUES ($1::int) ON CONFLICT DO NOTHING`, [projectId]);
}

export interface DefinitionRow {
  id: string;
  name: string;
  created_at: Date;
  last_seen_at: Date;
  volume: number;
}

export interface PropertyDefinitionRow extends DefinitionRow {
  type: number;
  property_type: string | null;
  /** null when no events were named. */
  seen_on_events: boolean | null;
}

export interface DefinitionFilter {
  projectId: number;
  search: string | null;
  /** Counters from this day on (YYYY-MM-DD) make the volume. */
  since: string;
  take: number;
  skip: number;
}

// A case-insensitive contains match with no pattern syntax: `%`, `_` and `\` are literal.
const CONTAINS = `strpos(lower(d.name), lower($2::text)) > 0`;

export async function findEventDefinitions(sql: SqlExecutor, filter: DefinitionFilter): Promise<{ count: number; rows: DefinitionRow[] }> {
  const where = `d.project_id = $1::int AND ($2::text IS NULL OR ${CONTAINS})`;
  const [counted] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM event_definitions d WHERE ${where}`, [filter.projectId, filter.search]);
  const rows = await sql.query<DefinitionRow>(
    `SELECT d.id::text AS id, d.name, d.created_at, d.last_seen_at, COALESCE(v.volume, 0)::int AS volume
       FROM event_definitions d
       LEFT JOIN (SELECT name, sum(count) AS volume FROM definition_volumes
                   WHERE project_id = $1::int AND kind = ${VOLUME_KIND.event} AND day >= $3::date GROUP BY name) v ON v.name = d.name
      WHERE ${where}
      ORDER BY COALESCE(v.volume, 0) DESC, d.name ASC
      LIMIT $4::int OFFSET $5::int`,
    [filter.projectId, filter.search, filter.since, filter.take, filter.skip],
  );
  return { count: counted?.n ?? 0, rows };
}

export async function findEventDefinition(sql: SqlExecutor, projectId: number, id: string, since: string): Promise<DefinitionRow | null> {
  const rows = await sql.query<DefinitionRow>(
    `SELECT d.id::text AS id, d.name, d.created_at, d.last_seen_at,
            COALESCE((SELECT sum(count) FROM definition_volumes v
                       WHERE v.project_id = d.project_id AND v.kind = ${VOLUME_KIND.event} AND v.name = d.name AND v.day >= $3::date), 0)::int AS volume
       FROM event_definitions d WHERE d.project_id = $1::int AND d.id = $2::uuid`,
    [projectId, id, since],
  );
  return rows[0] ?? null;
}

export interface PropertyDefinitionFilter extends DefinitionFilter {
  type: 1 | 2;
  /** Properties seen on these events come first; with `onlyEvents`, only they. */
  eventNames: string[] | null;
  onlyEvents: boolean;
  isNumerical: boolean | null;
  names: string[] | null;
}

export async function findPropertyDefinitions(sql: SqlExecutor, filter: PropertyDefinitionFilter): Promise<{ count: number; rows: PropertyDefinitionRow[] }> {
  const kind = filter.type === PROPERTY_TYPE_NUMBER.person ? VOLUME_KIND.personProperty : VOLUME_KIND.eventProperty;
  const seen = `EXISTS (SELECT 1 FROM event_properties ep WHERE ep.project_id = d.project_id AND ep.property = d.name AND ep.event = ANY($6::text[]))`;
  const where = [
    `d.project_id = $1::int`,
    `($2::text IS NULL OR ${CONTAINS})`,
    `d.type = $3::int`,
    `($7::boolean IS NULL OR (d.property_type = 'Numeric') = $7::boolean)`,
    `($8::text[] IS NULL OR d.name = ANY($8::text[]))`,
    filter.onlyEvents && filter.eventNames ? seen : "TRUE",
    // Every parameter typed even where unused (the count reads no volume; no events named), as PostgreSQL requires.
    `$4::date IS NOT NULL AND $5::int IS NOT NULL AND $6::text[] IS NOT NULL`,
  ].join(" AND ");
  const seenColumn = filter.eventNames ? seen : "NULL::boolean";
  const params = [filter.projectId, filter.search, filter.type, filter.since, kind, filter.eventNames ?? [], filter.isNumerical, filter.names];
  const [counted] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM property_definitions d WHERE ${where}`, params);
  const rows = await sql.query<PropertyDefinitionRow>(
    `SELECT d.id::text AS id, d.name, d.type, d.property_type, d.created_at, d.last_seen_at, COALESCE(v.volume, 0)::int AS volume,
            ${seenColumn} AS seen_on_events
       FROM property_definitions d
       LEFT JOIN (SELECT name, sum(count) AS volume FROM definition_volumes
                   WHERE project_id = $1::int AND kind = $5::int AND day >= $4::date GROUP BY name) v ON v.name = d.name
      WHERE ${where}
      ORDER BY ${filter.eventNames ? `${seen} DESC, ` : ""}COALESCE(v.volume, 0) DESC, d.name ASC
      LIMIT $9::int OFFSET $10::int`,
    [...params, filter.take, filter.skip],
  );
  return { count: counted?.n ?? 0, rows };
}

export async function findPropertyDefinition(sql: SqlExecutor, projectId: number, id: string, since: string): Promise<PropertyDefinitionRow | null> {
  const rows = await sql.query<PropertyDefinitionRow>(
    `SELECT d.id::text AS id, d.name, d.type, d.property_type, d.created_at, d.last_seen_at, NULL::boolean AS seen_on_events,
            COALESCE((SELECT sum(count) FROM definition_volumes v
                       WHERE v.project_id = d.project_id AND v.kind = CASE d.type WHEN 2 THEN ${VOLUME_KIND.personProperty} ELSE ${VOLUME_KIND.eventProperty} END
                         AND v.name = d.name AND v.day >= $3::date), 0)::int AS volume
       FROM property_definitions d WHERE d.project_id = $1::int AND d.id = $2::uuid`,
    [projectId, id, since],
  );
  return rows[0] ?? null;
}
