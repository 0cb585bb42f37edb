/**
 * A person's events in ClickHouse: moved to another person on a merge (the sessions through
 * person_overrides: sessions/clickhouse.ts), deleted with the person, and counted for
 * cohorts' behavioral conditions.
 */
import { chRows, type ChStore } from "../clickhouse/context";
import { chTime } from "@/server/sql/bind";
import { chPersonOverridesInsert } from "../sessions/clickhouse";
import { COUNT_COMPARISONS, type EventCountQuery, type PersonEvents } from "./query";

/**
 * The events: a lightweight UPDATE (patch parts, visible at once); the bloom index on
 * person_id keeps it to the granules that hold them. The sessions: person_overrides.
 */
export async function clickHouseReassignPerson(ch: ChStore, projectId: number, sourceUuid: string, targetUuid: string): Promise<void> {
  await ch.client.command({
    query: `UPDATE ${ch.tables.events} SET person_id = {target:UUID} WHERE project_id = {project:Int32} AND person_id = {source:UUID}`,
    query_params: { target: targetUuid, source: sourceUuid, project: projectId },
  });
  await ch.client.command(chPersonOverridesInsert(ch.tables, projectId, sourceUuid, targetUuid));
}

/**
 * One lightweight DELETE by the condition: the rows are gone from every read at once, and
 * from disk when their parts next merge. ClickHouse marks deleted rows by scanning every
 * part the condition may touch, however few rows a batch names, so batches here would
 * only multiply that scan (measured: 100,000 events in batches of 20,000 took 28 s); the
 * count is taken just before. `limit` does not apply.
 */
export async function clickHouseDeletePersonEvents(ch: ChStore, projectId: number, person: PersonEvents): Promise<number> {
  const condition = `project_id = {project:Int32} AND (person_id = {person:UUID} OR (person_id IS NULL AND distinct_id IN {ids:Array(String)}))`;
  const params = { project: projectId, person: person.uuid, ids: [...person.distinctIds] };
  // A uuid stored twice (not merged yet) is one event.
  const [row] = await chRows<{ n: string }>(ch, `SELECT count(DISTINCT uuid) AS n FROM ${ch.tables.events} WHERE ${condition}`, params);
  const n = Number(row?.n ?? 0);
  if (n === 0) return 0;
  await ch.client.command({ query: `DELETE FROM ${ch.tables.events} WHERE ${condition}`, query_params: params });
  // Their sessions (entry and exit URLs) go with them.
  await ch.client.command({ query: `DELETE FROM ${ch.tables.sessions} WHERE project_id = {project:Int32} AND distinct_id IN {ids:Array(String)}`, query_params: params });
  return n;
}

export async function clickHousePersonsWithEventCount(ch: ChStore, projectId: number, query: EventCountQuery): Promise<string[]> {
  const rows = await chRows<{ person: string }>(
    ch,
    `SELECT toString(e.person_id) AS person FROM ${ch.tables.events} AS e
      WHERE e.project_id = {project:Int32} AND e.event = {event:String} AND e.timestamp >= {since:DateTime64(6, 'UTC')} AND e.person_id IS NOT NULL
      GROUP BY e.person_id HAVING count() ${COUNT_COMPARISONS[query.count.operator]} {times:UInt64}`,
    { project: projectId, event: query.event, since: chTime(query.since), times: query.count.value },
  );
  return rows.map((row) => row.person);
}
