/**
 * The sessions table (clickhouse/migrations/0003_sessions.sql) as readers join it: each
 * session's merged row, and its duration and bounce as ../web-analytics.ts defines them
 * (the PostgreSQL store's SESSION_DURATION and SESSION_BOUNCE). Both read a session row `s`.
 */
import { BOUNCE_SECONDS } from "../web-analytics";
import type { ChParams } from "./params";

const ENTRY_FIELDS = ["entry_url", "entry_pathname", "entry_referring_domain", "entry_utm_source", "entry_utm_medium", "entry_utm_campaign", "entry_utm_term", "entry_utm_content"];

/** Whole seconds from the session's first event to its last. */
export const CH_SESSION_DURATION = `(toUnixTimestamp(s.s_end) - toUnixTimestamp(s.s_start))`;
/** 1 bounced, 0 not, NULL without a `$pageview`. */
export const CH_SESSION_BOUNCE = `multiIf(s.s_pageviews = 0, NULL, s.s_pageviews > 1 OR s.s_autocaptures > 0 OR ${CH_SESSION_DURATION} >= ${BOUNCE_SECONDS}, 0, 1)`;

/**
 * The project's sessions, merged, that may hold events of [from, to] (parameters already
 * added), keyed `sid`; the entry/exit fields only when `fields`.
 */
export function chSessionsSubquery(sessions: string, params: ChParams, projectId: number, from: string, to: string, fields: boolean): string {
  const entry = fields
    ? `, argMinMerge(entry) AS entry_tuple, argMaxMerge(exit) AS exit_tuple, ${ENTRY_FIELDS.map((name, i) => `nullIf(tupleElement(entry_tuple, ${i + 1}), '') AS ${name}`).join(", ")},
       nullIf(tupleElement(exit_tuple, 1), '') AS exit_url, nullIf(tupleElement(exit_tuple, 2), '') AS exit_pathname`
    : "";
  // (Aliases apart from the column names: an alias named like a column would shadow it inside the aggregates.)
  return `(SELECT session_id AS sid, min(start_timestamp) AS s_start, max(end_timestamp) AS s_end,
            sum(pageview_count) AS s_pageviews, sum(autocapture_count) AS s_autocaptures${entry}
          FROM ${sessions} WHERE project_id = ${params.add(projectId, "int")}
          GROUP BY session_id HAVING s_start <= ${to} AND s_end >= ${from})`;
}
