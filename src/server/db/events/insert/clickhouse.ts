/**
 * The ClickHouse store's insert. ClickHouse has no unique key to skip a stored uuid on, so the
 * batch's uuids are looked up first and only new ones are written; the sessions follow from
 * the events by sessions_v2's materialised view (sessions/clickhouse.ts).
 */
import type { StoredEventInput } from "../contract";
import { chRows, type ChStore } from "../clickhouse/context";
import { chTime } from "@/server/sql/bind";

/** uuids per existence check: they travel as one parameter. */
const CHECK_CHUNK = 10_000;

export interface ChInsertOptions {
  /**
   * Hears how many of the events are new just before they are written (the move to
   * ClickHouse records it, so that a kill mid-insert keeps its count exact).
   */
  beforeWrite?: (fresh: number) => Promise<void>;
}

/** Stores the events the project does not have yet; returns how many. One at a time per process (the store's maxConcurrentInserts). */
export async function clickHouseInsert(ch: ChStore, events: readonly StoredEventInput[], options: ChInsertOptions = {}): Promise<number> {
  if (events.length === 0) return 0;
  const stored = new Set<string>();
  const projects = [...new Set(events.map((e) => e.projectId))];
  for (let start = 0; start < events.length; start += CHECK_CHUNK) {
    const uuids = events.slice(start, start + CHECK_CHUNK).map((e) => e.uuid);
    // (An alias named like a column would shadow it in WHERE: hence `found_uuid`.)
    const found = await chRows<{ project_id: number; found_uuid: string }>(
      ch,
      `SELECT project_id, toString(uuid) AS found_uuid FROM ${ch.tables.events} WHERE project_id IN {projects:Array(Int32)} AND uuid IN {uuids:Array(UUID)}`,
      { projects, uuids },
    );
    for (const row of found) stored.add(`${row.project_id}/${row.found_uuid}`);
  }
  const values = [];
  for (const e of events) {
    const id = `${e.projectId}/${e.uuid}`;
    // Stored already, or earlier in this batch: the first one stays, as PostgreSQL's ON CONFLICT DO NOTHING.
    if (stored.has(id)) continue;
    stored.add(id);
    values.push({
      project_id: e.projectId,
      uuid: e.uuid,
      event: e.event,
      distinct_id: e.distinctId,
      properties: JSON.stringify(e.properties),
      timestamp: chTime(e.timestamp),
      person_id: e.personId ?? null,
      elements_chain: e.elementsChain ?? "",
      historical_migration: e.historicalMigration ?? false,
    });
  }
  await options.beforeWrite?.(values.length);
  if (values.length > 0) await ch.client.insert({ table: ch.tables.events, values, format: "JSONEachRow" });
  return values.length;
}
