/**
 * `actorBuckets` (actor-buckets.ts) in PostgreSQL: one statement that filters the range's
 * events, groups them by actor and wall-clock bucket (a bit per matcher, counts when asked),
 * then folds each actor's buckets into arrays, so one row comes back per actor; the
 * first-ever buckets come from a second grouping over the matcher's events of all time.
 */
import { propertiesSql, readsPersonProperties, SqlParams } from "@/server/properties/sql";
import type { PropertyGroup } from "@/server/properties/contract";
import { postgresCohortResolver } from "./cohorts";
import { POSTGRES_EVENTS } from "./postgres-dialect";
import { ANONYMOUS_ACTOR, type EventMatcher } from "./actor-events";
import type { ActorBucketsQuery } from "./actor-buckets";

/** The wall-clock bucket of a timestamptz expression in the zone, as hours since 1970 (see actor-buckets.ts). */
export function postgresWallBucketHours(time: string, zone: string, interval: ActorBucketsQuery["interval"]): string {
  return `(extract(epoch FROM ${POSTGRES_EVENTS.bucket[interval](`(${time} AT TIME ZONE ${zone})`)}) / 3600)::int`;
}

/** The statement: rows (a, bs int[], ms int[], cs int[][] | null, fb int | null). */
export function postgresActorBucketsStatement(projectId: number, query: ActorBucketsQuery): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const base = query.firstEver?.onlyIfFirstOf ?? null;
  const groups: PropertyGroup[] = [...query.filters, ...query.matchers.flatMap((matcher) => matcher.filters), ...(base?.filters ?? [])];
  const join = groups.some(readsPersonProperties) ? ` LEFT JOIN persons pp ON pp.uuid = e.person_id AND pp.project_id = e.project_id` : "";
  const columns = { event: "e.properties", person: join ? "COALESCE(pp.properties, '{}'::jsonb)" : "'{}'::jsonb" };
  const filter = (group: PropertyGroup) => propertiesSql(group, { params, columns, now: query.now, cohort: postgresCohortResolver(params) });
  const test = (matcher: EventMatcher) => {
    const parts = [...(matcher.event === null ? [] : [`e.event = ${params.add(matcher.event, "text")}`]), ...matcher.filters.map(filter)];
    return parts.length === 0 ? "true" : parts.join(" AND ");
  };
  const namesOf = (matchers: EventMatcher[]) => {
    const names = matchers.map((matcher) => matcher.event);
    return names.length > 0 && !names.includes(null) ? [`e.event = ANY(${params.add([...new Set(names)], "text[]")})`] : [];
  };

  const project = `e.project_id = ${params.add(projectId, "int")}`;
  const to = `e.timestamp < ${params.add(query.to.toISOString(), "timestamptz")}`;
  const zone = params.add(query.zone, "text");
  const filters = query.filters.map(filter);
  const tests = query.matchers.map(test);
  const where = [project, `e.timestamp >= ${params.add(query.from.toISOString(), "timestamptz")}`, to, ...namesOf(query.matchers), ...filters];
  where.push(tests.length === 0 ? "false" : `(${tests.map((t) => `(${t})`).join(" OR ")})`);
  const mask = tests.length === 0 ? "0" : tests.map((t, i) => `(CASE WHEN ${t} THEN ${2 ** i} ELSE 0 END)`).join(" + ");
  const actor = `COALESCE(e.person_id::text, ${params.constant(ANONYMOUS_ACTOR)} || e.distinct_id)`;
  const counts = query.counts ? tests.map((t, i) => `, count(*) FILTER (WHERE ${t})::int AS c${i}`).join("") : "";
  const countArrays = query.counts && tests.length > 0 ? `array_agg(ARRAY[${tests.map((_, i) => `g.c${i}`).join(", ")}] ORDER BY g.b)` : "NULL::int[]";

  let first = "";
  let firstBucket = "NULL::int";
  if (query.firstEver) {
    const matcher = query.matchers[query.firstEver.matcher]!;
    const firstTest = test(matcher);
    const baseTest = base ? test(base) : null;
    const firstWhere = [project, to, ...namesOf(base ? [matcher, base] : [matcher]), ...filters, baseTest ? `((${firstTest}) OR (${baseTest}))` : `(${firstTest})`];
    first = `, f AS (SELECT ${actor} AS a, min(e.timestamp) FILTER (WHERE ${firstTest}) AS t${baseTest ? `, min(e.timestamp) FILTER (WHERE ${baseTest}) AS t0` : ""}
                  FROM events e${join} WHERE ${firstWhere.join(" AND ")} GROUP BY 1)`;
    firstBucket = `CASE WHEN f.t IS NOT NULL${baseTest ? " AND f.t = f.t0" : ""} THEN ${postgresWallBucketHours("f.t", zone, query.interval)} END`;
  }
  return {
    text: `WITH g AS (
             SELECT ${actor} AS a, ${postgresWallBucketHours("e.timestamp", zone, query.interval)} AS b, bit_or(${mask})::int AS m${counts}
               FROM events e${join} WHERE ${where.join(" AND ")} GROUP BY 1, 2
           ), r AS (
             SELECT g.a, array_agg(g.b ORDER BY g.b) AS bs, array_agg(g.m ORDER BY g.b) AS ms, ${countArrays} AS cs FROM g GROUP BY g.a
           )${first}
           SELECT r.a, r.bs, r.ms, r.cs, ${firstBucket} AS fb FROM r${query.firstEver ? " LEFT JOIN f ON f.a = r.a" : ""}`,
    values: params.values,
  };
}
