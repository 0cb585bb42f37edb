/**
 * The SQL editor's first queries, built here for both sides: its server page prefetches them
 * (src/trpc/server.ts) and the client editor asks for them, so the query keys match and the
 * HTML holds the schema (and a saved query with its result).
 */

/** A saved SQL insight, named by `?insight=<short id>`. */
export function sqlInsightInput(projectId: number, shortId: string) {
  return { projectId, short_id: shortId, limit: 1 };
}

/** The schema browser's properties of events (30) or persons (15), matching its search (trimmed). */
export function sqlPropertiesInput(projectId: number, type: "event" | "person", search = "") {
  return { projectId, type, search: search || undefined, limit: type === "event" ? 30 : 15 };
}

/** A query as the editor runs it. */
export function sqlRunInput(projectId: number, query: string) {
  return { projectId, request: { query: { kind: "HogQLQuery" as const, query }, refresh: "force_blocking" as const } };
}
