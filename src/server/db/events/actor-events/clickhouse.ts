/**
 * `actorEvents` (query.ts) in ClickHouse, with the PostgreSQL store's semantics:
 * property filters as the list compiles them (person filters and cohorts resolved in
 * PostgreSQL first), values as PostgreSQL's `->>` writes them, person values looked up in
 * PostgreSQL and mapped by `person_id`.
 */
import type { ChStatement, ChStore } from "../clickhouse/context";
import { chEventPropertyText } from "../clickhouse/hot-properties";
import { ChParams } from "@/server/sql/bind";
import { clickHouseFilter, clickHouseMatchers, personValues, resolveFilters, type PersonValues, type ResolvedFilters } from "../filters/clickhouse";
import { CLICKHOUSE } from "@/server/sql/clickhouse";
import { actorEventsFrame } from "./build";
import { actorEventsFromColumns, MAX_ACTOR_EVENTS, tooManyActorEvents, type ActorEvents, type ActorEventsQuery, type EventValue } from "./query";

export interface ActorEventsInputs extends ResolvedFilters {
  /** For each `person` value (by its index in `query.values`): the persons that have it. */
  personValues: ReadonlyMap<number, PersonValues>;
}

export async function clickHouseActorEvents(ch: ChStore, projectId: number, query: ActorEventsQuery): Promise<ActorEvents[]> {
  const groups = [...query.filters, ...query.matchers.flatMap((matcher) => matcher.filters)];
  const { cohorts, persons } = await resolveFilters(ch.sql, projectId, groups, query.now);
  const values = new Map<number, PersonValues>();
  for (const [i, value] of query.values.entries()) if (value.type === "person") values.set(i, await personValues(ch.sql, projectId, value.key));
  const statement = clickHouseActorEventsStatement(ch.tables.events, projectId, query, { persons, cohorts, personValues: values });
  const result = await ch.client.query({ query: statement.text, query_params: statement.params, format: "JSONCompact" });
  const { data } = await result.json<[string[], number[], number[], number[], ...(number[] | [string | null][])[]]>();
  const [actors, lengths, times, masks, ...columns] = data[0]!;
  if (times.length > MAX_ACTOR_EVENTS) throw tooManyActorEvents();
  const dictionaries = query.values.map((_, v) => ({ ids: columns[2 * v] as number[], dictionary: (columns[2 * v + 1] as [string | null][]).map((cell) => cell[0]) }));
  return actorEventsFromColumns(actors, lengths, times, masks, dictionaries);
}

function valueSql(value: EventValue, index: number, params: ChParams, inputs: ActorEventsInputs): string {
  switch (value.type) {
    case "event":
      return `nullIf(${chEventPropertyText(value.key, params)}, '')`;
    case "person": {
      const found = inputs.personValues.get(index) ?? { uuids: [], values: [] };
      return `nullIf(transform(ifNull(toString(e.person_id), ''), ${params.add(found.uuids, "text[]")}, ${params.add(found.values, "text[]")}, ''), '')`;
    }
    case "path":
      return `multiIf(e.event = '$pageview', replaceRegexpOne(${chEventPropertyText("$current_url", params)}, '(.)/$', '\\\\1'),
                      e.event = '$screen', ${chEventPropertyText("$screen_name", params)}, e.event)`;
  }
}

/**
 * The statement: ONE row, [actors, lengths, times, masks, ids0, dictionary0, …] — each
 * actor's events are the next `lengths[i]` entries of the flat `times` and `masks` (in any
 * order within the actor), and value v of an event is `dictionary_v[ids_v[j] - 1][0]`. At most
 * MAX_ACTOR_EVENTS + 1 events.
 */
function clickHouseActorEventsStatement(table: string, projectId: number, query: ActorEventsQuery, inputs: ActorEventsInputs): ChStatement {
  const params = new ChParams();
  const filter = clickHouseFilter(params, inputs, query.now);
  const { where, mask, actor } = actorEventsFrame(CLICKHOUSE, params, clickHouseMatchers(params, filter), filter, projectId, query);
  const values = query.values.map((value, i) => `, ${valueSql(value, i, params, inputs)} AS v${i}`).join("");
  // Grouped per actor, then everything folded into one row of flat arrays: each actor's id
  // travels once, and each distinct value once (a page's URL is read by hundreds of
  // thousands of events; sent as a small number, the reply is a third of the size, and
  // the strings the insight compares are shared).
  // (A value in a one-element tuple: groupArray leaves NULLs out, tuples holding one keep their place.)
  const perActor = query.values.map((_, i) => `, groupArray(tuple(v${i})) AS vs${i}`).join("");
  const flat = query.values.map((_, i) => `arrayFlatten(groupArray(vs${i})) AS f${i}`);
  const columns = query.values.map((_, i) => `, arrayEnumerateDense(f${i}), arrayDistinct(f${i})`).join("");
  return {
    text: `${flat.length > 0 ? `WITH ${flat.join(", ")} ` : ""}SELECT groupArray(a), groupArray(length(ts)), arrayFlatten(groupArray(ts)), arrayFlatten(groupArray(ms))${columns} FROM (
             SELECT a, groupArray(t) AS ts, groupArray(m) AS ms${perActor} FROM (
               SELECT ${actor} AS a, toFloat64(toUnixTimestamp64Micro(e.timestamp)) / 1000 AS t, toUInt32(${mask}) AS m${values}
                 FROM ${table} AS e WHERE ${where.join(" AND ")} LIMIT ${params.add(MAX_ACTOR_EVENTS + 1, "int")}
             ) GROUP BY a
           )`,
    params: params.values,
  };
}
