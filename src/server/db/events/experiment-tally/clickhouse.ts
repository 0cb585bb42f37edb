/**
 * `experimentTally` (query.ts) in ClickHouse, with the PostgreSQL store's rules and shape
 * (postgres.ts): events grouped per actor into the first exposure's microsecond, the
 * variants seen and the metric events' microseconds (and amounts) as arrays; each actor's
 * value from those arrays; the actors grouped per variant. Property filters as the list
 * compiles them (person filters and cohorts resolved in PostgreSQL first).
 */
import type { ChStatement, ChStore } from "../clickhouse/context";
import { chEventPropertyText } from "../clickhouse/hot-properties";
import { ChParams } from "@/server/sql/bind";
import { CLICKHOUSE } from "@/server/sql/clickhouse";
import { clickHouseFilter, clickHouseMatchers, resolveFilters, type ResolvedFilters } from "../filters/clickhouse";
import { MULTIPLE_VARIANT_KEY, tallyFromRows, tallyGroups, tallyMatchers, windowMicros, type ExperimentTally, type ExperimentTallyQuery } from "./query";

/** A step not reached: later than any event. */
const NEVER = "toInt64(9223372036854775807)";

export async function clickHouseExperimentTally(ch: ChStore, projectId: number, query: ExperimentTallyQuery): Promise<ExperimentTally> {
  const inputs = await resolveFilters(ch.sql, projectId, tallyGroups(query), query.now);
  const statement = clickHouseExperimentTallyStatement(ch.tables.events, projectId, query, inputs);
  const result = await ch.client.query({ query: statement.text, query_params: statement.params, format: "JSONCompactEachRow" });
  const rows = await result.json<[string, number | string, number, number, (number | string)[]]>();
  return tallyFromRows(query, rows.map(([k, n, s, q, c]) => ({ k, n: Number(n), s: Number(s), q: Number(q), c: c.map(Number) })));
}

/** Rows [k: variant or `$multiple`, n: actors, s: sum of values, q: sum of squares, c: actors per funnel step reached]. */
function clickHouseExperimentTallyStatement(table: string, projectId: number, query: ExperimentTallyQuery, inputs: ResolvedFilters): ChStatement {
  const params = new ChParams();
  const filter = clickHouseFilter(params, inputs, query.now);
  const matchers = clickHouseMatchers(params, filter);
  const all = tallyMatchers(query);
  const tests = all.map(matchers.test);
  const where = [
    `e.project_id = ${params.add(projectId, "int")}`,
    `e.timestamp >= ${params.add(query.from.toISOString(), "timestamptz")}`,
    `e.timestamp <= ${params.add(query.to.toISOString(), "timestamptz")}`,
    ...matchers.eventNames(all),
    ...query.filters.map(filter),
    matchers.any(tests),
  ];
  const variant = chEventPropertyText(query.variantKey, params);
  const exposed = `(${tests[0]}) AND has(${params.add([...query.variants], "text[]")}, ${variant})`;
  const metric = query.metric;
  const window = windowMicros(metric);
  const reach = (x: string, after = `${x} >= a.s`) => (window === null ? after : `${after} AND ${x} <= a.s + ${params.add(window, "bigint")}`);

  const columns = [`toUnixTimestamp64Micro(e.timestamp) AS t`, `(${exposed}) AS xv`, `if(xv, ${variant}, '') AS v`];
  const perActor = [`countIf(x.xv) AS nx`, `minIf(x.t, x.xv) AS s`, `minIf(x.v, x.xv) AS lo`, `maxIf(x.v, x.xv) AS hi`];
  if (query.handling === "first_seen") perActor.push(`argMinIf(x.v, (x.t, x.v), x.xv) AS first`);
  let value: string;
  const derived: string[] = [];
  if (metric.type === "funnel") {
    metric.steps.forEach((_, k) => columns.push(`(${tests[k + 1]}) AS m${k}`));
    if (window === null && (metric.steps.length === 1 || !metric.ordered)) {
      // A step is reached when its last event is from the exposure on (as PostgreSQL's, no arrays).
      metric.steps.forEach((_, k) => perActor.push(`maxIf(x.t, x.m${k}) AS l${k}`, `countIf(x.m${k}) AS n${k}`));
      value = `(${metric.steps.map((_, k) => `toInt32(a.n${k} > 0 AND a.l${k} >= a.s)`).join(" + ")})`;
    } else {
      metric.steps.forEach((_, k) => {
        perActor.push(`groupArrayIf(x.t, x.m${k}) AS s${k}`);
        const after = metric.ordered && k > 0 ? `y > c${k - 1}` : "y >= a.s";
        derived.push(`arrayMin(arrayPushBack(arrayFilter(y -> ${reach("y", after)}, a.s${k}), ${NEVER})) AS c${k}`);
      });
      value = `(${metric.steps.map((_, k) => `toInt32(c${k} < ${NEVER})`).join(" + ")})`;
    }
  } else {
    columns.push(`(${tests[1]}) AS m0`);
    perActor.push(`groupArrayIf(x.t, x.m0) AS s0`);
    if (metric.math === "sum") {
      columns.push(`ifNull(${CLICKHOUSE.propertyNumber({ column: "e.properties", key: params.add(metric.property ?? "", "text") }, params)}, 0) AS amount`);
      perActor.push(`groupArrayIf(x.amount, x.m0) AS amounts`);
      value = `arraySum(arrayFilter((z, y) -> ${reach("y")}, a.amounts, a.s0))`;
    } else {
      value = `toFloat64(length(arrayFilter(y -> ${reach("y")}, a.s0)))`;
    }
  }
  const funnel = metric.type === "funnel";
  const key = query.handling === "exclude" ? `if(a.lo != a.hi, ${params.constant(MULTIPLE_VARIANT_KEY)}, a.lo)` : "a.first";
  const steps = funnel ? `[${metric.steps.map((_, k) => `toInt64(countIf(r.reached >= ${k + 1}))`).join(", ")}]` : "emptyArrayInt64()";
  return {
    text: `SELECT r.k, count() AS n, toFloat64(sum(r.value)) AS s, toFloat64(sum(r.value * r.value)) AS q, ${steps} AS c FROM (
             SELECT ${key} AS k${derived.map((d) => `, ${d}`).join("")}, ${funnel ? `toFloat64(${value} = ${metric.steps.length})` : `toFloat64(${value})`} AS value${funnel ? `, ${value} AS reached` : ""}
               FROM (
                 SELECT ${perActor.join(", ")} FROM (
                   SELECT e.person_id AS p, if(e.person_id IS NULL, e.distinct_id, '') AS d, ${columns.join(", ")}
                     FROM ${table} AS e WHERE ${where.join(" AND ")}
                 ) AS x GROUP BY x.p, x.d
               ) AS a WHERE a.nx > 0
           ) AS r GROUP BY r.k`,
    params: params.values,
  };
}
