/**
 * `experimentTally` (query.ts) in ClickHouse, with the PostgreSQL store's rules and shape
 * (postgres.ts): the range's events grouped per actor in one pass, each actor's value from
 * its aggregates, the actors grouped per variant. Property filters as the list compiles
 * them (person filters and cohorts resolved in PostgreSQL first).
 *
 * Measured at a million exposures (bench/experiments.ts), most of the time is the GROUP BY
 * of a million actors, so each actor's state is kept small and fixed where the metric
 * allows: one String key (a Nullable UUID beside a String took ClickHouse's slow serialised
 * keys, about twice the time), the variant as its number rather than its text, first_seen
 * as one packed Int64 (argMin over a tuple took three times as long), a funnel without a
 * window from each step's last event. Per-actor arrays where a window, an ordered funnel
 * of several steps or a mean needs them (a mean's metric events may precede the exposure).
 */
import type { ChStatement, ChStore } from "../clickhouse/context";
import { chEventPropertyText } from "../clickhouse/hot-properties";
import { ChParams } from "@/server/sql/bind";
import { CLICKHOUSE } from "@/server/sql/clickhouse";
import { clickHouseFilter, clickHouseMatchers, resolveFilters, type ResolvedFilters } from "../filters/clickhouse";
import { numberedVariants, tallyFromRows, tallyGroups, tallyMatchers, windowMicros, type ExperimentTally, type ExperimentTallyQuery } from "./query";

/** A step not reached: later than any event. */
const NEVER = "toInt64(9223372036854775807)";

export async function clickHouseExperimentTally(ch: ChStore, projectId: number, query: ExperimentTallyQuery): Promise<ExperimentTally> {
  const inputs = await resolveFilters(ch.sql, projectId, tallyGroups(query), query.now);
  const statement = clickHouseExperimentTallyStatement(ch.tables.events, projectId, query, inputs);
  const result = await ch.client.query({ query: statement.text, query_params: statement.params, format: "JSONCompactEachRow" });
  const rows = await result.json<[number | string, number | string, number, number, (number | string)[]]>();
  return tallyFromRows(query, rows.map(([k, n, s, q, c]) => ({ k: Number(k), n: Number(n), s: Number(s), q: Number(q), c: c.map(Number) })));
}

/** Rows [k: variant number or 0 for `$multiple`, n: actors, s: sum of values, q: sum of squares, c: actors per funnel step reached]. */
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
  const variants = numberedVariants(query);
  const numbered = params.add(variants, "text[]");
  const metric = query.metric;
  const window = windowMicros(metric);
  const reach = (x: string, after = `${x} >= a.s`) => (window === null ? after : `${after} AND ${x} <= a.s + ${params.add(window, "bigint")}`);

  // t: microseconds from the range's start, plus one: every event read has t ≥ 1, so that an
  // aggregate over no events (0) is before any. v: the exposure's variant number, else 0.
  const fromMicros = params.add(query.from.getTime() * 1000 - 1, "bigint");
  const columns = [
    `if(e.person_id IS NULL, concat('$', e.distinct_id), toString(e.person_id)) AS actor`,
    `toUnixTimestamp64Micro(e.timestamp) - ${fromMicros} AS t`,
    `if(${tests[0]}, indexOf(${numbered}, ${chEventPropertyText(query.variantKey, params)}), 0) AS v`,
  ];
  const perActor = [`minIf(x.t, x.v > 0) AS s`, `max(x.v) AS hi`];
  // An actor's variant number (0: `$multiple`; numbers, not texts, until the last rows): from
  // the lowest and highest it was shown (exclude), or the lowest of (t, variant) packed into
  // one Int64 (first_seen; t < 2^63 / 101 for a century).
  let key: string;
  if (query.handling === "exclude") {
    perActor.push(`minIf(x.v, x.v > 0) AS lo`);
    key = `if(a.lo != a.hi, 0, a.lo)`;
  } else {
    const radix = params.add(variants.length + 1, "bigint");
    perActor.push(`minIf(x.t * ${radix} + toInt64(x.v), x.v > 0) AS first`);
    key = `a.first % ${radix}`;
  }
  let value: string;
  const derived: string[] = [];
  if (metric.type === "funnel") {
    metric.steps.forEach((_, k) => columns.push(`(${tests[k + 1]}) AS m${k}`));
    if (window === null && (metric.steps.length === 1 || !metric.ordered)) {
      // A step is reached when its last event is from the exposure on (as PostgreSQL's, no arrays).
      metric.steps.forEach((_, k) => perActor.push(`maxIf(x.t, x.m${k}) AS l${k}`));
      value = `(${metric.steps.map((_, k) => `toInt32(a.l${k} >= a.s)`).join(" + ")})`;
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
    if (metric.math === "sum") {
      // Read only from the metric's events (if() evaluates its branches for the rows that take them);
      // one array of (time, amount) pairs: two arrays took half as long again.
      columns.push(`if(m0, ifNull(${CLICKHOUSE.propertyNumber({ column: "e.properties", key: params.add(metric.property ?? "", "text") }, params)}, 0), 0) AS amount`);
      perActor.push(`groupArrayIf((x.t, x.amount), x.m0) AS s0`);
      value = `arraySum(arrayMap(y -> y.2, arrayFilter(y -> ${reach("y.1")}, a.s0)))`;
    } else {
      perActor.push(`groupArrayIf(x.t, x.m0) AS s0`);
      value = `toFloat64(length(arrayFilter(y -> ${reach("y")}, a.s0)))`;
    }
  }
  const funnel = metric.type === "funnel";
  const steps = funnel ? `[${metric.steps.map((_, k) => `toInt64(countIf(r.reached >= ${k + 1}))`).join(", ")}]` : "emptyArrayInt64()";
  return {
    text: `SELECT r.k, count() AS n, toFloat64(sum(r.value)) AS s, toFloat64(sum(r.value * r.value)) AS q, ${steps} AS c FROM (
             SELECT ${key} AS k${derived.map((d) => `, ${d}`).join("")}, ${funnel ? `toFloat64(${value} = ${metric.steps.length})` : `toFloat64(${value})`} AS value${funnel ? `, ${value} AS reached` : ""}
               FROM (
                 SELECT ${perActor.join(", ")} FROM (
                   SELECT ${columns.join(", ")}
                     FROM ${table} AS e WHERE ${where.join(" AND ")}
                 ) AS x GROUP BY x.actor
               ) AS a WHERE a.hi > 0
           ) AS r GROUP BY r.k`,
    params: params.values,
  };
}
