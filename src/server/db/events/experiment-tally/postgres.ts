/**
 * `experimentTally` (query.ts) in PostgreSQL, one statement: the range's events as narrow
 * rows (time, exposure variant number, metric tests, amount), each test evaluated once per
 * event, in parallel workers (the subquery is kept apart by OFFSET 0, which PostgreSQL
 * neither flattens, so that each reference re-evaluated the test, nor runs serially above
 * the Gather as it did the materialised CTE, which also spilled to disk); grouped per actor
 * (person, or distinct id without one) with hashable aggregates of fixed size where the
 * metric allows it (a funnel or mean without a window), else with the metric events' times
 * as arrays; each actor's value; the actors grouped per variant.
 *
 * Measured at a million exposures (bench/experiments.ts), the GROUP BY of a million actors
 * is the floor of the time: hence the variant as its number (min/max of text copied every
 * actor's text) and times as timestamps (the numeric epoch of every event cost more than its
 * test); microseconds only to pack first_seen's (time, variant) into one bigint.
 */
import type { SqlDriver, SqlExecutor } from "@/server/db/driver";
import { SqlParams } from "@/server/properties/sql";
import { POSTGRES } from "@/server/sql/postgres";
import { cohortIdsOf, requireCohorts } from "../filters/cohorts";
import { postgresFilters, postgresMatchers } from "../filters/postgres";
import { queryWithSmallHashes } from "../postgres/hash-settings";
import { numberedVariants, tallyFromRows, tallyGroups, tallyMatchers, windowMicros, type ExperimentTally, type ExperimentTallyQuery } from "./query";

export async function postgresExperimentTally(sql: SqlExecutor & Pick<SqlDriver, "transaction">, projectId: number, query: ExperimentTallyQuery): Promise<ExperimentTally> {
  await requireCohorts(sql, projectId, cohortIdsOf(tallyGroups(query)));
  const statement = postgresExperimentTallyStatement(projectId, query);
  // A million actors grouped: see hash-settings.ts.
  const rows = await queryWithSmallHashes<{ k: number; n: number; s: number; q: number; c: number[] | null }>(sql, statement, "many");
  return tallyFromRows(query, rows.map((row) => ({ ...row, c: row.c ?? [] })));
}

/** Rows (k: variant number or 0 for `$multiple`, n: actors, s: sum of values, q: sum of squares, c: actors per funnel step reached). */
function postgresExperimentTallyStatement(projectId: number, query: ExperimentTallyQuery): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const { join, filter } = postgresFilters(params, tallyGroups(query), query.now);
  const matchers = postgresMatchers(params, filter);
  const all = tallyMatchers(query);
  const tests = all.map(matchers.test);
  const from = params.add(query.from.toISOString(), "timestamptz");
  // Which events are read; each matcher's test is a column, the rows matching none left out above them.
  const where = [
    `e.project_id = ${params.add(projectId, "int")}`,
    `e.timestamp >= ${from}`,
    `e.timestamp <= ${params.add(query.to.toISOString(), "timestamptz")}`,
    ...matchers.eventNames(all),
    ...query.filters.map(filter),
  ];
  const variants = numberedVariants(query);
  const numbered = params.add(variants, "text[]");
  const metric = query.metric;
  const window = windowMicros(metric);
  const windowEnd = (start: string) => `${start} + ${params.add(window, "bigint")} * interval '1 microsecond'`;
  // Within the metric's reach of the actor's exposure (`x` one of the actor's event times).
  const reach = (x: string, after = `${x} >= a.s`) => (window === null ? after : `${after} AND ${x} <= ${windowEnd("a.s")}`);

  // Per event: its time, the exposure's variant number (NULL: no exposure) and the metric's tests.
  const columns = [`e.timestamp AS t`, `CASE WHEN ${tests[0]} THEN array_position(${numbered}, e.properties ->> ${params.add(query.variantKey, "text")}) END AS v`];
  const perActor = [`min(x.t) FILTER (WHERE x.v IS NOT NULL) AS s`];
  // An actor's variant number (0: `$multiple`; numbers, not texts, until the last rows): from
  // the lowest and highest it was shown (exclude), or the lowest of (microseconds from the
  // range's start, variant) packed into one bigint (first_seen).
  let key: string;
  if (query.handling === "exclude") {
    perActor.push(`min(x.v) AS lo`, `max(x.v) AS hi`);
    key = `CASE WHEN a.lo <> a.hi THEN 0 ELSE a.lo END`;
  } else {
    const radix = params.add(variants.length + 1, "bigint");
    perActor.push(`min((extract(epoch FROM x.t - ${from}) * 1000000)::bigint * ${radix} + x.v) AS first`);
    key = `(a.first % ${radix})::int`;
  }
  // The events the actors' aggregates read: exposures and the metric's (the others matched a name only).
  const read = ["x.v IS NOT NULL"];
  let value: string;
  let lateral = "";
  let stepColumns = "NULL::int[]";
  if (metric.type === "funnel") {
    metric.steps.forEach((_, k) => columns.push(`(${tests[k + 1]}) AS m${k}`));
    read.push(...metric.steps.map((_, k) => `x.m${k}`));
    if (window === null && (metric.steps.length === 1 || !metric.ordered)) {
      // A step is reached when its last event is from the exposure on: aggregates PostgreSQL hashes, no arrays.
      metric.steps.forEach((_, k) => perActor.push(`max(x.t) FILTER (WHERE x.m${k}) AS l${k}`));
      value = `(${metric.steps.map((_, k) => `COALESCE(a.l${k} >= a.s, false)::int`).join(" + ")})`;
    } else {
      metric.steps.forEach((_, k) => perActor.push(`array_agg(x.t) FILTER (WHERE x.m${k}) AS s${k}`));
      metric.steps.forEach((_, k) => {
        const after = metric.ordered && k > 0 ? `y > c${k - 1}.t` : "y >= a.s";
        lateral += ` CROSS JOIN LATERAL (SELECT min(y) AS t FROM unnest(a.s${k}) y WHERE ${reach("y", after)}) c${k}`;
      });
      // Ordered: a step is reached only when every earlier one is (the chain's NULLs carry over).
      value = `(${metric.steps.map((_, k) => `(c${k}.t IS NOT NULL)::int`).join(" + ")})`;
    }
    stepColumns = `ARRAY[${metric.steps.map((_, k) => `count(*) FILTER (WHERE r.reached >= ${k + 1})`).join(", ")}]::int[]`;
  } else {
    columns.push(`(${tests[1]}) AS m0`);
    read.push("x.m0");
    const amount = metric.math === "sum" ? `COALESCE(${POSTGRES.propertyNumber({ column: "e.properties", key: params.add(metric.property ?? "", "text") }, params)}, 0)` : null;
    // Read from the metric's events only, where its event's name tells them cheaply.
    if (amount !== null) columns.push(`${metric.source.event === null ? amount : `CASE WHEN e.event = ${params.add(metric.source.event, "text")} THEN ${amount} END`} AS amount`);
    if (window === null) {
      // Hashable aggregates only (arrays made PostgreSQL spill a million groups to disk): an
      // actor whose first metric event is from its exposure on counts them all; the few with
      // one before it are counted again from the exposure on, through the actor's index.
      perActor.push(`min(x.t) FILTER (WHERE x.m0) AS f0`, amount === null ? `count(*) FILTER (WHERE x.m0) AS all0` : `sum(x.amount) FILTER (WHERE x.m0) AS all0`);
      const sameActor = `((a.p IS NOT NULL AND e.person_id = a.p) OR (a.p IS NULL AND e.person_id IS NULL AND e.distinct_id = a.d))`;
      const since = [...where.slice(0, 3), ...matchers.eventNames([metric.source]), ...query.filters.map(filter), `(${tests[1]})`, sameActor, `e.timestamp >= a.s`];
      const recount = `(SELECT ${amount === null ? "count(*)" : `COALESCE(sum(${amount}), 0)`} FROM events e${join} WHERE ${since.join(" AND ")})`;
      value = `CASE WHEN a.f0 IS NULL THEN 0 WHEN a.f0 >= a.s THEN a.all0 ELSE ${recount} END`;
    } else {
      perActor.push(`array_agg(x.t) FILTER (WHERE x.m0) AS s0`);
      if (amount !== null) perActor.push(`array_agg(x.amount) FILTER (WHERE x.m0) AS amounts`);
      // Most exposed actors have no metric event: their value is 0 without a subquery.
      value =
        amount === null
          ? `CASE WHEN a.s0 IS NULL THEN 0 ELSE (SELECT count(*) FROM unnest(a.s0) y WHERE ${reach("y")}) END`
          : `CASE WHEN a.s0 IS NULL THEN 0 ELSE (SELECT COALESCE(sum(y.amount), 0) FROM unnest(a.s0, a.amounts) y(t, amount) WHERE ${reach("y.t")}) END`;
    }
  }
  const funnel = metric.type === "funnel";
  return {
    text: `SELECT r.k, count(*)::int AS n, COALESCE(sum(r.value), 0)::float8 AS s, COALESCE(sum(r.value * r.value), 0)::float8 AS q, ${funnel ? stepColumns : "NULL::int[]"} AS c
             FROM (SELECT ${key} AS k, ${funnel ? `CASE WHEN ${value} = ${metric.steps.length} THEN 1 ELSE 0 END` : value}::float8 AS value${funnel ? `, ${value} AS reached` : ""}
                     FROM (SELECT x.p AS p, x.d AS d, ${perActor.join(", ")}
                             FROM (SELECT e.person_id AS p, CASE WHEN e.person_id IS NULL THEN e.distinct_id END AS d, ${columns.join(", ")}
                                     FROM events e${join} WHERE ${where.join(" AND ")} OFFSET 0) x
                            WHERE ${read.join(" OR ")}
                            GROUP BY x.p, x.d) a${lateral}
                    WHERE a.s IS NOT NULL) r
            GROUP BY r.k`,
    values: params.values,
  };
}
