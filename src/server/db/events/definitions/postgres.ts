/** The definitions backfill's reads (query.ts) in PostgreSQL. */
import type { SqlExecutor } from "@/server/db/driver";
import type { EventNameDay, EventPropertySample } from "./query";

export async function postgresEventNameDays(sql: SqlExecutor, projectId: number): Promise<EventNameDay[]> {
  const rows = await sql.query<{ name: string; day: string; count: number; first: Date; last: Date }>(
    `SELECT event AS name, to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS count, min(timestamp) AS first, max(timestamp) AS last
       FROM events WHERE project_id = $1::int GROUP BY 1, 2`,
    [projectId],
  );
  return rows.map((row) => ({ ...row, first: new Date(row.first), last: new Date(row.last) }));
}

export async function postgresPropertySamples(sql: SqlExecutor, projectId: number, sample: number): Promise<EventPropertySample[]> {
  const rows = await sql.query<{ event: string; key: string; sample: string | null; count: number }>(
    `SELECT e.event, p.key, min(p.value::text) AS sample, count(*)::int AS count
       FROM (SELECT event, properties FROM events WHERE project_id = $1::int ORDER BY timestamp DESC LIMIT $2::int) e,
            jsonb_each(e.properties) p
      GROUP BY e.event, p.key, jsonb_typeof(p.value)`,
    [projectId, sample],
  );
  return rows.map((row) => ({ event: row.event, key: row.key, sample: row.sample === null ? null : JSON.parse(row.sample), count: row.count }));
}
