/**
 * The ClickHouse event store: the `events` table of clickhouse/migrations/, through
 * `@clickhouse/client` (a server over HTTP, or chdb in the process). Filters compile to
 * ClickHouse SQL with every request value a bind parameter (ChParams); person-property
 * filters are resolved in PostgreSQL first (properties.ts), and person properties in the
 * HogQL `select`/`where` come from PostgreSQL with the query (hogql-persons.ts).
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type { SqlExecutor } from "@/server/db/driver";
import { AppError } from "@/server/errors";
import type { PropertyFilter, PropertyNode } from "@/server/properties/contract";
import { compileCondition, compileSelect } from "@/server/hogql/compile";
import type { EventListQuery, EventValuesQuery } from "../list-query";
import { listConditions, selectPageOf, selectStatement, valuesStatement } from "../sql";
import { COUNT_COMPARISONS, type EventCountQuery } from "../event-count";
import type { EventNameDay, EventPropertySample } from "../definition-sources";
import type { EventCursor, EventRow, EventStore, ListCount, ListPage, PersonEvents, SelectPage, StoredEventInput } from "../contract";
import type { TrendQuery, TrendRow } from "../trend-query";
import { checkRegexes, regexesOf } from "../postgres";
import { clickHouseCohortResolver, cohortIdsOf, cohortMembers, requireCohorts } from "../cohorts";
import { CLICKHOUSE_EVENTS, SMALL_ANSWER } from "./dialect";
import { CLICKHOUSE_HOGQL } from "./hogql";
import { hogqlPersons, type HogqlPersons } from "./hogql-persons";
import { ListWindows } from "./list-window";
import { ChParams, chTime } from "./params";
import { chPropertiesSql, MAX_RESOLVED_PERSONS, resolvePersonFilters, type PersonSet } from "./properties";
import { clickHouseTrendStatement, type PersonValues } from "./trend";
import { clickHouseActorEventsStatement } from "./actor-events";
import { MAX_ACTOR_EVENTS, actorEventsFromColumns, tooManyActorEvents, type ActorEvents, type ActorEventsQuery } from "../actor-events";
import { clickHouseActorBucketsStatement, clickHouseActorMasksStatement } from "./actor-buckets";
import { MAX_MASK_COLUMNS, postgresCalendarStatement, WORD_BITS } from "../postgres-actor-buckets";
import { bucketOfHours, bucketsFromMasks, type ActorBuckets, type ActorBucketsQuery } from "../actor-buckets";
import {
  webOverviewAnswerOf,
  webStatsAnswerOf,
  webTopClicksOf,
  webTrendBase,
  webTrendRowsOf,
  type WebTopClick,
  type WebTopClicksQuery,
  type WebTopClicksStoreRow,
  type WebOverviewAnswer,
  type WebOverviewStoreRow,
  type WebQueryBase,
  type WebStatsAnswer,
  type WebStatsQuery,
  type WebStatsStoreRow,
  type WebTrendActorRow,
  type WebTrendQuery,
  type WebTrendRow,
  type WebTrendStarts,
  type WebTrendStoreRow,
} from "../web-analytics";
import { clickHousePathBounceStatement, clickHouseTopClicksStatement, clickHouseWebOverviewStatement, clickHouseWebStatsStatement, clickHouseWebTrendActorsStatement, clickHouseWebTrendStatement, type ChWebContext } from "./web";
import { chPersonOverridesInsert, type ChSessionTables } from "./sessions";
import { COLUMNS, eventRowOf, parseJson, selectValue, timeOf, type ChEventRow } from "./rows";

/** uuids per existence check: they travel as one parameter. */
const CHECK_CHUNK = 10_000;

export class ClickHouseEventStore implements EventStore {
  readonly kind = "clickhouse";
  /** One insert at a time per process: the existence check and the insert of a batch do not interleave with another's. */
  readonly maxConcurrentInserts = 1;
  private readonly table: string;
  /** The events, the sessions kept from them, and person_overrides (clickhouse/sessions.ts). */
  private readonly sessionTables: ChSessionTables;
  private readonly listWindows = new ListWindows();

  constructor(
    private readonly client: ClickHouseClient,
    database: string,
    /** PostgreSQL: persons, for person-property filters and `person_id` given as an integer id. */
    private readonly sql: SqlExecutor,
    private readonly onClose: () => Promise<void> = () => client.close(),
  ) {
    this.table = `\`${database}\`.events`;
    this.sessionTables = { events: this.table, sessions: `\`${database}\`.sessions_v2`, overrides: `\`${database}\`.person_overrides` };
  }

  private async rows<Row>(query: string, params: Record<string, unknown>): Promise<Row[]> {
    const result = await this.client.query({ query, query_params: params, format: "JSONEachRow" });
    return result.json<Row>();
  }

  /**
   * The store's insert; `beforeWrite` hears how many of the events are new just before they
   * are written (the move to ClickHouse records it, so that a kill mid-insert keeps its count exact).
   */
  async insert(events: readonly StoredEventInput[], options: { beforeWrite?: (fresh: number) => Promise<void> } = {}): Promise<number> {
    if (events.length === 0) return 0;
    const stored = new Set<string>();
    const projects = [...new Set(events.map((e) => e.projectId))];
    for (let start = 0; start < events.length; start += CHECK_CHUNK) {
      const uuids = events.slice(start, start + CHECK_CHUNK).map((e) => e.uuid);
      // (An alias named like a column would shadow it in WHERE: hence `found_uuid`.)
      const found = await this.rows<{ project_id: number; found_uuid: string }>(
        `SELECT project_id, toString(uuid) AS found_uuid FROM ${this.table} WHERE project_id IN {projects:Array(Int32)} AND uuid IN {uuids:Array(UUID)}`,
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
    if (values.length > 0) await this.client.insert({ table: this.table, values, format: "JSONEachRow" });
    return values.length;
  }

  async checkFilters(properties: PropertyNode | null): Promise<void> {
    const patterns = regexesOf(properties);
    if (patterns.length === 0) return;
    // Event properties are matched here (RE2), person properties in PostgreSQL: a pattern either refuses is a 400.
    await checkRegexes(this.sql, properties);
    const params = new ChParams();
    await this.rows(`SELECT ${patterns.map((pattern) => `match('', ${params.add(pattern, "text")})`).join(", ")}`, params.values);
  }

  /** FROM and WHERE of a list query; `persons` from hogqlPersons for its `where`. */
  private async listFrom(projectId: number, query: EventListQuery, params: ChParams, now: Date, cursor: EventCursor | null, persons: HogqlPersons): Promise<string> {
    // A person given by integer id is looked up in PostgreSQL first (none: no events).
    let byId: string | null = null;
    if (query.personId !== null && "id" in query.personId) {
      const rows = await this.sql.query<{ uuid: string }>(`SELECT uuid::text AS uuid FROM persons WHERE project_id = $1::int AND id = $2::int`, [projectId, query.personId.id]);
      byId = rows[0]?.uuid ?? null;
    }
    const where = listConditions(CLICKHOUSE_EVENTS, params, projectId, query, cursor, () => (byId === null ? "false" : `e.person_id = ${params.add(byId, "uuid")}`));
    where.push(...persons.conditions);
    for (const { expr, index } of persons.where) {
      where.push(compileCondition(expr, index, { params, columns: { event: "e.properties", person: persons.column }, dialect: CLICKHOUSE_HOGQL }));
    }
    if (query.properties !== null) {
      const cohortIds = cohortIdsOf([query.properties]);
      await requireCohorts(this.sql, projectId, cohortIds);
      const cohort = clickHouseCohortResolver(await cohortMembers(this.sql, cohortIds), params);
      const personSets = await resolvePersonFilters(this.sql, projectId, query.properties, now);
      where.push(chPropertiesSql(query.properties, { params, column: "e.properties", personColumn: "e.person_id", persons: personSets, now, cohort }));
    }
    return `FROM ${this.table} AS e WHERE ${where.join(" AND ")}`;
  }

  async list(projectId: number, query: EventListQuery, page: ListPage): Promise<EventRow[]> {
    const params = new ChParams();
    const persons = await hogqlPersons(this.sql, projectId, query, params);
    const from = await this.listFrom(projectId, query, params, page.now, page.cursor, persons);
    const tail = `${CLICKHOUSE_EVENTS.order} LIMIT ${params.add(page.limit, "int")} OFFSET ${params.add(page.offset, "bigint")} ${SMALL_ANSWER}`;
    const newest = Math.min(page.now.getTime(), query.before?.getTime() ?? Infinity, page.cursor?.timestamp.getTime() ?? Infinity);
    const key = listWindowKey(projectId, query);
    for (const window of this.listWindows.windows(key, query.after === null ? Infinity : newest - query.after.getTime())) {
      const since = window === null ? "" : `AND e.timestamp >= ${params.add(new Date(newest - window).toISOString(), "timestamptz")} `;
      const rows = (await this.rows<ChEventRow>(`SELECT ${COLUMNS} ${from} ${since}${tail}`, params.values)).map(eventRowOf);
      if (rows.length >= page.limit) {
        this.listWindows.remember(key, newest - rows.at(-1)!.timestamp.getTime());
        return rows;
      }
      if (window === null) {
        this.listWindows.remember(key, Infinity);
        return rows;
      }
    }
    throw new Error("unreachable: the last list window is unbounded");
  }

  async select(projectId: number, query: EventListQuery, page: ListPage): Promise<SelectPage> {
    const params = new ChParams();
    const persons = await hogqlPersons(this.sql, projectId, query, params);
    const compiled = compileSelect(query.select!, { params, columns: { event: "e.properties", person: persons.column }, dialect: CLICKHOUSE_HOGQL });
    const from = await this.listFrom(projectId, query, params, page.now, compiled.groupBy !== null ? null : page.cursor, persons);
    const rows = await this.rows<Record<string, unknown>>(selectStatement(CLICKHOUSE_EVENTS, params, compiled, from, page), params.values);
    return selectPageOf(compiled, rows, selectValue, (value) => timeOf(value as string));
  }

  async countList(projectId: number, query: EventListQuery, options: { cap: number; now: Date }): Promise<ListCount> {
    const params = new ChParams();
    const persons = await hogqlPersons(this.sql, projectId, query, params);
    const from = await this.listFrom(projectId, query, params, options.now, null, persons);
    const rows = await this.rows<{ n: string | number }>(`SELECT count() AS n FROM (SELECT 1 ${from} LIMIT ${params.add(options.cap + 1, "int")}) ${SMALL_ANSWER}`, params.values);
    const n = Number(rows[0]?.n ?? 0);
    return { count: Math.min(n, options.cap), capped: n > options.cap };
  }

  async get(projectId: number, uuid: string): Promise<EventRow | null> {
    const rows = await this.rows<ChEventRow>(`SELECT ${COLUMNS} FROM ${this.table} AS e WHERE e.project_id = {project:Int32} AND e.uuid = {uuid:UUID} LIMIT 1 ${SMALL_ANSWER}`, {
      project: projectId,
      uuid,
    });
    return rows[0] ? eventRowOf(rows[0]) : null;
  }

  async values(projectId: number, query: EventValuesQuery): Promise<unknown[]> {
    const params = new ChParams();
    const rows = await this.rows<{ name: string }>(valuesStatement(CLICKHOUSE_EVENTS, params, `${this.table} AS e`, projectId, query), params.values);
    return rows.map((row) => JSON.parse(row.name));
  }

  /**
   * The events: a lightweight UPDATE (patch parts, visible at once); the bloom index on
   * person_id keeps it to the granules that hold them. The sessions: person_overrides.
   */
  async reassignPerson(projectId: number, sourceUuid: string, targetUuid: string): Promise<void> {
    await this.client.command({
      query: `UPDATE ${this.table} SET person_id = {target:UUID} WHERE project_id = {project:Int32} AND person_id = {source:UUID}`,
      query_params: { target: targetUuid, source: sourceUuid, project: projectId },
    });
    await this.client.command(chPersonOverridesInsert(this.sessionTables, projectId, sourceUuid, targetUuid));
  }

  /**
   * One lightweight DELETE by the condition: the rows are gone from every read at once, and
   * from disk when their parts next merge. ClickHouse marks deleted rows by scanning every
   * part the condition may touch, however few rows a batch names, so batches here would
   * only multiply that scan (measured: 100,000 events in batches of 20,000 took 28 s); the
   * count is taken just before. `limit` does not apply.
   */
  async deletePersonEvents(projectId: number, person: PersonEvents): Promise<number> {
    const condition = `project_id = {project:Int32} AND (person_id = {person:UUID} OR (person_id IS NULL AND distinct_id IN {ids:Array(String)}))`;
    const params = { project: projectId, person: person.uuid, ids: [...person.distinctIds] };
    // A uuid stored twice (not merged yet) is one event.
    const [row] = await this.rows<{ n: string }>(`SELECT count(DISTINCT uuid) AS n FROM ${this.table} WHERE ${condition}`, params);
    const n = Number(row?.n ?? 0);
    if (n === 0) return 0;
    await this.client.command({ query: `DELETE FROM ${this.table} WHERE ${condition}`, query_params: params });
    // Their sessions (entry and exit URLs) go with them.
    await this.client.command({ query: `DELETE FROM ${this.sessionTables.sessions} WHERE project_id = {project:Int32} AND distinct_id IN {ids:Array(String)}`, query_params: params });
    return n;
  }

  /**
   * What ClickHouse cannot read itself for these filter groups, from PostgreSQL: the members of
   * the cohorts they name (which must exist) and the persons matching their person filters.
   */
  private async resolveFilters(projectId: number, groups: readonly PropertyNode[], now: Date): Promise<{ cohorts: Map<number, string[]>; persons: Map<PropertyFilter, PersonSet> }> {
    const cohortIds = cohortIdsOf(groups);
    await requireCohorts(this.sql, projectId, cohortIds);
    const cohorts = await cohortMembers(this.sql, cohortIds);
    const persons = new Map<PropertyFilter, PersonSet>();
    for (const group of groups) {
      for (const [filter, set] of await resolvePersonFilters(this.sql, projectId, group, now)) persons.set(filter, set);
    }
    return { cohorts, persons };
  }

  async trend(projectId: number, query: TrendQuery): Promise<TrendRow[]> {
    const { cohorts, persons } = await this.resolveFilters(projectId, query.filters, query.now);
    const personValues = query.breakdown?.type === "person" ? await this.personValues(projectId, query.breakdown.key) : null;
    const statement = clickHouseTrendStatement(this.sessionTables, projectId, query, persons, personValues, cohorts);
    const rows = await this.rows<{ value: string | null; bucket: string | null; n: number }>(statement.text, statement.params);
    return rows.map((row) => ({ value: row.value, bucket: row.bucket, n: Number(row.n) }));
  }

  async actorEvents(projectId: number, query: ActorEventsQuery): Promise<ActorEvents[]> {
    const groups = [...query.filters, ...query.matchers.flatMap((matcher) => matcher.filters)];
    const { cohorts, persons } = await this.resolveFilters(projectId, groups, query.now);
    const personValues = new Map<number, PersonValues>();
    for (const [i, value] of query.values.entries()) if (value.type === "person") personValues.set(i, await this.personValues(projectId, value.key));
    const statement = clickHouseActorEventsStatement(this.table, projectId, query, { persons, cohorts, personValues });
    const result = await this.client.query({ query: statement.text, query_params: statement.params, format: "JSONCompact" });
    const { data } = await result.json<[string[], number[], number[], number[], ...(number[] | [string | null][])[]]>();
    const [actors, lengths, times, masks, ...columns] = data[0]!;
    if (times.length > MAX_ACTOR_EVENTS) throw tooManyActorEvents();
    const values = query.values.map((_, v) => ({ ids: columns[2 * v] as number[], dictionary: (columns[2 * v + 1] as [string | null][]).map((cell) => cell[0]) }));
    return actorEventsFromColumns(actors, lengths, times, masks, values);
  }

  async actorBuckets(projectId: number, query: ActorBucketsQuery): Promise<ActorBuckets[]> {
    const groups = [...query.filters, ...query.matchers.flatMap((matcher) => matcher.filters), ...(query.firstEver?.onlyIfFirstOf?.filters ?? [])];
    const { cohorts, persons } = await this.resolveFilters(projectId, groups, query.now);
    if (!query.counts && query.matchers.length > 0) {
      // The calendar as PostgreSQL lists it (persons are there anyway), so both stores bucket alike.
      const calendar = postgresCalendarStatement(query);
      const buckets = await this.sql.query<{ t: number; h: number }>(calendar.text, calendar.values);
      if (buckets.length === 0) return [];
      const words = Math.ceil(buckets.length / WORD_BITS);
      if (query.matchers.length * words <= MAX_MASK_COLUMNS) {
        const masks = clickHouseActorMasksStatement(this.table, projectId, query, { persons, cohorts }, buckets.map((bucket) => bucket.h), WORD_BITS);
        const result = await this.client.query({ query: masks.text, query_params: masks.params, format: "JSONCompactEachRow" });
        const rows = await result.json<(string | number | null)[]>();
        const starts = buckets.map((bucket) => bucketOfHours(bucket.h));
        return rows.map((row) =>
          bucketsFromMasks(
            row[0] as string,
            query.matchers.map((_, i) => Array.from({ length: words }, (_, w) => Number(row[1 + i * words + w]))),
            WORD_BITS,
            starts,
            row.at(-1) === null ? null : Number(row.at(-1)),
          ),
        );
      }
    }
    const statement = clickHouseActorBucketsStatement(this.table, projectId, query, { persons, cohorts });
    const result = await this.client.query({ query: statement.text, query_params: statement.params, format: "JSONCompactEachRow" });
    const rows = await result.json<[string, [number, number, number[]][], number | null]>();
    return rows.map(([actor, bucketed, first]) => ({
      actor,
      buckets: bucketed.map(([b]) => bucketOfHours(b)),
      masks: bucketed.map(([, m]) => Number(m)),
      counts: query.counts ? bucketed.map(([, , counts]) => counts.map(Number)) : [],
      firstEver: first === null ? null : bucketOfHours(first),
    }));
  }

  /** Each person of the project with the property set (not null, not ""), and its text as PostgreSQL's `->>` gives it. */
  private async personValues(projectId: number, key: string): Promise<PersonValues> {
    const rows = await this.sql.query<{ uuid: string; value: string }>(
      `SELECT uuid::text AS uuid, properties ->> $2::text AS value FROM persons
        WHERE project_id = $1::int AND COALESCE(properties ->> $2::text, '') <> '' LIMIT $3::int`,
      [projectId, key, MAX_RESOLVED_PERSONS + 1],
    );
    if (rows.length > MAX_RESOLVED_PERSONS) {
      throw new AppError(
        "invalid_input",
        `breakdown: more than ${MAX_RESOLVED_PERSONS} persons have "${key}", more than the ClickHouse event store takes for a person breakdown; break down by an event property.`,
        "breakdown",
      );
    }
    return { uuids: rows.map((row) => row.uuid), values: rows.map((row) => row.value) };
  }

  async earliestTimestamp(projectId: number): Promise<Date | null> {
    // min() of no rows is 1970 in ClickHouse, not NULL: HAVING keeps it empty.
    const rows = await this.rows<{ t: string }>(`SELECT min(e.timestamp) AS t FROM ${this.table} AS e WHERE e.project_id = {project:Int32} HAVING count() > 0`, {
      project: projectId,
    });
    return rows[0] ? timeOf(rows[0].t) : null;
  }

  async eventNameDays(projectId: number): Promise<EventNameDay[]> {
    const rows = await this.rows<{ name: string; day: string; count: string; first: string; last: string }>(
      `SELECT e.event AS name, toString(toDate(e.timestamp)) AS day, count() AS count, min(e.timestamp) AS first, max(e.timestamp) AS last
         FROM ${this.table} AS e WHERE e.project_id = {project:Int32} GROUP BY name, day`,
      { project: projectId },
    );
    return rows.map((row) => ({ name: row.name, day: row.day, count: Number(row.count), first: timeOf(row.first), last: timeOf(row.last) }));
  }

  async propertySamples(projectId: number, sample: number): Promise<EventPropertySample[]> {
    const rows = await this.rows<{ event: string; key: string; sample: string; count: string }>(
      `SELECT e.event AS event, key, min(JSONExtractRaw(e.properties, key)) AS sample, count() AS count
         FROM (SELECT event, properties FROM ${this.table} WHERE project_id = {project:Int32} ORDER BY timestamp DESC LIMIT {sample:UInt32}) AS e
        ARRAY JOIN JSONExtractKeys(e.properties) AS key
        GROUP BY event, key, toString(JSONType(e.properties, key))`,
      { project: projectId, sample },
    );
    return rows.map((row) => ({ event: row.event, key: row.key, sample: parseJson(row.sample), count: Number(row.count) }));
  }

  async personsWithEventCount(projectId: number, query: EventCountQuery): Promise<string[]> {
    const rows = await this.rows<{ person: string }>(
      `SELECT toString(e.person_id) AS person FROM ${this.table} AS e
        WHERE e.project_id = {project:Int32} AND e.event = {event:String} AND e.timestamp >= {since:DateTime64(6, 'UTC')} AND e.person_id IS NOT NULL
        GROUP BY e.person_id HAVING count() ${COUNT_COMPARISONS[query.count.operator]} {times:UInt64}`,
      { project: projectId, event: query.event, since: chTime(query.since), times: query.count.value },
    );
    return rows.map((row) => row.person);
  }

  /** The tables, cohorts and person sets a web analytics statement reads. */
  private async webContext(projectId: number, query: WebQueryBase): Promise<ChWebContext> {
    const { cohorts, persons } = await this.resolveFilters(projectId, query.filters, query.now);
    return { ...this.sessionTables, persons, cohorts };
  }

  async webOverview(projectId: number, query: WebQueryBase): Promise<WebOverviewAnswer> {
    const statement = clickHouseWebOverviewStatement(await this.webContext(projectId, query), projectId, query);
    const rows = await this.rows<WebOverviewStoreRow>(statement.text, statement.params);
    return webOverviewAnswerOf(query, rows[0]);
  }

  async webStats(projectId: number, query: WebStatsQuery): Promise<WebStatsAnswer> {
    const context = await this.webContext(projectId, query);
    const statement = clickHouseWebStatsStatement(context, projectId, query);
    const rows = await this.rows<WebStatsStoreRow>(statement.text, statement.params);
    let pathBounce: Map<string, WebStatsStoreRow> | null = null;
    if (query.breakdown === "Page" && query.includeBounceRate) {
      const bounce = clickHousePathBounceStatement(context, projectId, query, rows.slice(0, query.limit).map((row) => String(row.v0)));
      pathBounce = new Map((await this.rows<WebStatsStoreRow>(bounce.text, bounce.params)).map((row) => [String(row.v0), row]));
    }
    return webStatsAnswerOf(query, rows, pathBounce);
  }

  async webTopClicks(projectId: number, query: WebTopClicksQuery): Promise<WebTopClick[]> {
    const statement = clickHouseTopClicksStatement(await this.webContext(projectId, query), projectId, query);
    return webTopClicksOf(await this.rows<WebTopClicksStoreRow>(statement.text, statement.params));
  }

  async webTrend(projectId: number, query: WebTrendQuery): Promise<WebTrendRow[]> {
    const statement = clickHouseWebTrendStatement(await this.webContext(projectId, webTrendBase(query)), projectId, query);
    return webTrendRowsOf(await this.rows<WebTrendStoreRow>(statement.text, statement.params));
  }

  async webTrendActors(projectId: number, query: WebTrendQuery, starts: WebTrendStarts): Promise<string[]> {
    const statement = clickHouseWebTrendActorsStatement(await this.webContext(projectId, webTrendBase(query)), projectId, query, starts);
    return (await this.rows<WebTrendActorRow>(statement.text, statement.params)).map((row) => row.actor);
  }

  /** Merges the table's parts now instead of in the background (benchmarks, after a bulk load: as ANALYZE for PostgreSQL). */
  async settle(): Promise<void> {
    await this.client.command({ query: `OPTIMIZE TABLE ${this.table} FINAL` });
    await this.client.command({ query: `OPTIMIZE TABLE ${this.sessionTables.sessions} FINAL` });
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

/** The filters of a list query, for its window hint: the same filters on the same project find events at the same pace. */
function listWindowKey(projectId: number, query: EventListQuery): string {
  return JSON.stringify([projectId, query.event, query.distinctId, query.personId, query.properties, query.where ?? null]);
}
