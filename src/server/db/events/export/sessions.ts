/** Export pages of the sessions table (PostgreSQL store), by when each row last changed (its `updated_at` index). */
import type { SqlExecutor } from "@/server/db/driver";
import { SESSION_DURATION } from "../sessions/postgres";
import type { ExportedSession, ExportPageQuery } from "./query";

type Row = Omit<ExportedSession, "start_timestamp" | "end_timestamp" | "updated_at"> & { start_timestamp: Date; end_timestamp: Date; updated_at: Date };

export async function postgresExportSessionPage(sql: SqlExecutor, projectId: number, query: ExportPageQuery): Promise<ExportedSession[]> {
  const params: unknown[] = [projectId, query.from, query.to, query.limit];
  let after = "";
  if (query.after) {
    params.push(query.after.at, query.after.uuid);
    after = "AND (s.updated_at, s.session_id) > ($5::timestamptz, $6::text)";
  }
  const rows = await sql.query<Row>(
    `SELECT s.session_id, s.distinct_id, s.person_id::text, s.start_timestamp, s.end_timestamp, ${SESSION_DURATION}::int AS duration,
            s.pageview_count, s.screen_count, s.autocapture_count, s.entry_url, s.entry_pathname, s.entry_referring_domain,
            s.entry_utm_source, s.entry_utm_medium, s.entry_utm_campaign, s.entry_utm_term, s.entry_utm_content, s.exit_url, s.exit_pathname, s.updated_at
     FROM sessions s
     WHERE s.project_id = $1 AND s.updated_at >= $2 AND s.updated_at < $3 ${after}
     ORDER BY s.updated_at, s.session_id LIMIT $4`,
    params,
  );
  return rows.map((row) => ({
    ...row,
    duration: Number(row.duration),
    start_timestamp: new Date(row.start_timestamp).toISOString(),
    end_timestamp: new Date(row.end_timestamp).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  }));
}
