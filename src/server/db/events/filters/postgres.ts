/**
 * Filters in the PostgreSQL store: the persons join when a filter reads person properties,
 * each group compiled by the property engine (cohorts as cohorts.ts tests them), event
 * matchers, and the check of regular expressions before a read.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { isPropertyGroup, type PropertyGroup, type PropertyNode } from "@/server/properties/contract";
import { propertiesSql, readsPersonProperties, type SqlParams } from "@/server/properties/sql";
import { POSTGRES } from "@/server/sql/postgres";
import { postgresCohortResolver } from "./cohorts";
import { matcherSql } from "./matchers";

/**
 * Compiles every regular expression of the filters once, on no data: PostgreSQL compiles a
 * pattern only when a row reaches it, so without this a pattern it refuses would fail (or
 * not) depending on the data — and a CSV export could fail halfway through its stream.
 */
export async function checkRegexes(sql: SqlExecutor, node: PropertyNode | null): Promise<void> {
  const patterns = regexesOf(node);
  if (patterns.length === 0) return;
  await sql.query(`SELECT ${patterns.map((_, i) => `'' ~ $${i + 1}::text`).join(", ")}`, patterns);
}

/** The patterns of every regex / not_regex filter. */
export function regexesOf(node: PropertyNode | null): string[] {
  const patterns: string[] = [];
  const walk = (n: PropertyNode) => {
    if (isPropertyGroup(n)) n.values.forEach(walk);
    else if (n.operator === "regex" || n.operator === "not_regex") patterns.push(String(n.value));
  };
  if (node) walk(node);
  return patterns;
}

/**
 * PostgreSQL's filter compiler for the groups of a per-actor read: the persons join when a
 * group reads person properties, and each group as the events list compiles it.
 */
export function postgresFilters(params: SqlParams, groups: readonly PropertyGroup[], now: Date, alsoPerson = false): { join: string; person: string; filter(group: PropertyGroup): string } {
  const joined = alsoPerson || groups.some(readsPersonProperties);
  const join = joined ? ` LEFT JOIN persons pp ON pp.uuid = e.person_id AND pp.project_id = e.project_id` : "";
  const columns = { event: "e.properties", person: joined ? "COALESCE(pp.properties, '{}'::jsonb)" : "'{}'::jsonb" };
  return { join, person: columns.person, filter: (group) => propertiesSql(group, { params, columns, now, cohort: postgresCohortResolver(params) }) };
}

/** PostgreSQL's `matcherSql`. */
export const postgresMatchers = (params: SqlParams, filter: (group: PropertyGroup) => string) => matcherSql(POSTGRES, params, filter);
