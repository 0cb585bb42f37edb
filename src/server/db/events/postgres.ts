/**
 * The PostgreSQL event store (PGlite or a server): the `events` table of the Prisma schema.
 * Reads compile filters to parameterised SQL: every value from a request is a bind
 * parameter (SqlParams); the SQL text is this file's, properties/sql.ts's and the HogQL
 * compiler's own.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { TimeSlice } from "@/server/event-loop";
import { isPropertyGroup, type PropertyNode } from "@/server/properties/contract";
import { propertiesSql, readsPersonProperties, SqlParams } from "@/server/properties/sql";
import { compileSelect, compileWhere, readsPerson } from "@/server/hogql/compile";
import type { EventListQuery, EventValuesQuery } from "./list-query";
import { cohortIdsOf, postgresCohortResolver, requireCohorts } from "./cohorts";
import { POSTGRES_EVENTS } from "./postgres-dialect";
import { listConditions, selectPageOf, selectStatement, valuesStatement } from "./sql";
import type { EventCursor, EventRow, EventStore, ListCount, ListPage, PersonEvents, SelectPage, StoredEventInput } from "./contract";
import type { TrendQuery, TrendRow } from "./trend-query";
import { postgresTrendStatement } from "./postgres-trend";
import { postgresActorEventsStatement } from "./postgres-actor-events";
import { groupActorEvents, MAX_ACTOR_EVENTS, tooManyActorEvents, type ActorEventRow, type ActorEvents, type ActorEventsQuery } from "./actor-events";
import { MAX_MASK_COLUMNS, postgresActorBucketsStatement, postgresActorMasksStatement, postgresCalendarStatement, WORD_BITS } from "./postgres-actor-buckets";
import { bucketOfHours, bucketsFromMasks, type ActorBuckets, type ActorBucketsQuery } from "./actor-buckets";
import { COUNT_COMPARISONS, type EventCountQuery } from "./event-count";
import type { EventNameDay, EventPropertySample } from "./definition-sources";
import { postgresPathBounceStatement, postgresTopClicksStatement, postgresWebOverviewStatement, postgresWebStatsStatement, postgresWebTrendActorsStatement, postgresWebTrendStatement, sessionsUpsert } from "./postgres-web";
import {
  webOverviewAnswerOf,
  webStatsAnswerOf,
  webTopClicksOf,
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
} from "./web-analytics";

/** Rows and JSON text per statement: a jsonb value is at most 255 MB; events can be large. */
const CHUNK_ROWS = 5_000;
const CHUNK_TEXT = 32 * 1024 * 1024;
/**
 * PGlite runs each statement in the server's thread, where nothing else runs until it ends:
 * smaller statements let other requests in between (see insertEvents).
 */
export const PGLITE_CHUNK_ROWS = 1_000;

/** One event as a row of the JSON document insertEvents sends. */
function eventRowJson(e: StoredEventInput): string {
  return JSON.stringify({
    uuid: e.uuid,
    project_id: e.projectId,
    event: e.event,
    distinct_id: e.distinctId,
    properties: e.properties,
    timestamp: e.timestamp.toISOString(),
    person_id: e.personId ?? null,
    elements_chain: e.elementsChain ?? "",
    historical_migration: e.historicalMigration ?? false,
  });
}

// The events the insert stored (not those skipped as already stored) also update their
// sessions' rows, in the same statement: a retried batch counts nothing twice.
const INSERT_EVENTS = `WITH inserted AS (
  INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp, person_id, elements_chain, historical_migration)
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(uuid uuid, project_id int, event text, distinct_id text, properties jsonb,
                                                 timestamp timestamptz, person_id uuid, elements_chain text, historical_migration bool)
  ON CONFLICT (project_id, uuid) DO NOTHING
  RETURNING uuid, project_id, event, distinct_id, properties, timestamp, person_id
), upserted AS (
  ${sessionsUpsert("inserted")}
  RETURNING 1
) SELECT count(*)::int AS n FROM inserted`;

/**
 * Writes events with one `INSERT … SELECT FROM jsonb_to_recordset(…)` per chunk: one round
 * trip and one plan for thousands of rows, which is what lets ingestion keep up. The rows
 * travel as one JSON document: the driver sends it as it is, where array parameters would
 * have every properties text escaped again (measured: half the Node CPU of the insert, and
 * a little less for PostgreSQL). A uuid the project already has is skipped, so a retried
 * batch is not stored twice. Returns rows written.
 */
export async function insertEvents(sql: SqlExecutor, events: readonly StoredEventInput[], chunkRows = CHUNK_ROWS): Promise<number> {
  // A large batch shares the thread (building its JSON; on PGlite, every statement too).
  const slice = new TimeSlice();
  let inserted = 0;
  let rows: string[] = [];
  let text = 0;
  const send = async () => {
    const result = await sql.query<{ n: number }>(INSERT_EVENTS, [`[${rows.join(",")}]`], { prepare: "burrow_insert_events" });
    inserted += result[0]!.n;
    rows = [];
    text = 0;
  };
  for (const event of events) {
    const row = eventRowJson(event);
    if (rows.length > 0 && (rows.length >= chunkRows || text + row.length > CHUNK_TEXT)) await send();
    rows.push(row);
    text += row.length;
    await slice.pace();
  }
  if (rows.length > 0) await send();
  return inserted;
}

const COLUMNS = `e.uuid::text AS uuid, e.event, e.distinct_id, e.properties, e.timestamp, e.person_id::text AS person_id, e.elements_chain`;

/** FROM and WHERE of a list query; filters in the order the indexes want them. */
function listFrom(projectId: number, query: EventListQuery, params: SqlParams, now: Date, cursor: EventCursor | null): string {
  const where = listConditions(
    POSTGRES_EVENTS,
    params,
    projectId,
    query,
    cursor,
    (project, id) => `e.person_id = (SELECT p.uuid FROM persons p WHERE p.project_id = ${project} AND p.id = ${params.add(id, "int")})`,
  );
  const person =
    (query.properties !== null && readsPersonProperties(query.properties)) ||
    readsPerson([...(query.where ?? []), ...(query.select ?? []).map((item) => item.expr)]);
  const join = person ? ` LEFT JOIN persons pp ON pp.uuid = e.person_id AND pp.project_id = e.project_id` : "";
  if (query.where) where.push(compileWhere(query.where, { params, columns: { event: "e.properties", person: "pp.properties" } }));
  if (query.properties !== null) {
    where.push(
      propertiesSql(query.properties, {
        params,
        columns: { event: "e.properties", person: person ? "COALESCE(pp.properties, '{}'::jsonb)" : "'{}'::jsonb" },
        now,
        cohort: postgresCohortResolver(params),
      }),
    );
  }
  return `FROM events e${join} WHERE ${where.join(" AND ")}`;
}

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
 * `personsWithEventCount` as a subquery of person uuids, to use inside another PostgreSQL
 * statement (a cohort's membership over persons) as well as on its own.
 */
export function personsWithEventCountSql(params: SqlParams, projectId: number, query: EventCountQuery): string {
  const project = params.add(projectId, "int");
  const event = params.add(query.event, "text");
  const since = params.add(query.since.toISOString(), "timestamptz");
  const times = params.add(query.count.value, "bigint");
  return (
    `SELECT ev.person_id FROM events ev WHERE ev.project_id = ${project} AND ev.event = ${event} AND ev.timestamp >= ${since}` +
    ` AND ev.person_id IS NOT NULL GROUP BY ev.person_id HAVING count(*) ${COUNT_COMPARISONS[query.count.operator]} ${times}`
  );
}

export class PostgresEventStore implements EventStore {
  readonly kind = "postgres";

  constructor(
    private readonly sql: SqlExecutor,
    /** 1 for PGlite (one connection), more for a PostgreSQL pool. */
    readonly maxConcurrentInserts: number,
    /** Rows per INSERT statement (PGLITE_CHUNK_ROWS on PGlite). */
    private readonly chunkRows?: number,
  ) {}

  insert(events: readonly StoredEventInput[]): Promise<number> {
    return insertEvents(this.sql, events, this.chunkRows);
  }

  checkFilters(properties: PropertyNode | null): Promise<void> {
    return checkRegexes(this.sql, properties);
  }

  async list(projectId: number, query: EventListQuery, page: ListPage): Promise<EventRow[]> {
    await requireCohorts(this.sql, projectId, cohortIdsOf([query.properties]));
    const params = new SqlParams();
    const from = listFrom(projectId, query, params, page.now, page.cursor);
    const limit = params.add(page.limit, "int");
    const offset = params.add(page.offset, "bigint");
    return this.sql.query<EventRow>(`SELECT ${COLUMNS} ${from} ${POSTGRES_EVENTS.order} LIMIT ${limit} OFFSET ${offset}`, params.values);
  }

  async select(projectId: number, query: EventListQuery, page: ListPage): Promise<SelectPage> {
    await requireCohorts(this.sql, projectId, cohortIdsOf([query.properties]));
    const params = new SqlParams();
    const compiled = compileSelect(query.select!, { params, columns: { event: "e.properties", person: "pp.properties" } });
    const from = listFrom(projectId, query, params, page.now, compiled.groupBy !== null ? null : page.cursor);
    const rows = await this.sql.query<Record<string, unknown>>(selectStatement(POSTGRES_EVENTS, params, compiled, from, page), params.values);
    return selectPageOf(
      compiled,
      rows,
      (_, value) => (value instanceof Date ? value.toISOString() : value),
      (value) => value as Date,
    );
  }

  async countList(projectId: number, query: EventListQuery, options: { cap: number; now: Date }): Promise<ListCount> {
    await requireCohorts(this.sql, projectId, cohortIdsOf([query.properties]));
    const params = new SqlParams();
    const from = listFrom(projectId, query, params, options.now, null);
    // Counting a LIMITed subquery stops at the cap instead of reading every match.
    const rows = await this.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 ${from} LIMIT ${params.add(options.cap + 1, "int")}) capped`, params.values);
    const n = rows[0]?.n ?? 0;
    return { count: Math.min(n, options.cap), capped: n > options.cap };
  }

  async get(projectId: number, uuid: string): Promise<EventRow | null> {
    const rows = await this.sql.query<EventRow>(`SELECT ${COLUMNS} FROM events e WHERE e.project_id = $1::int AND e.uuid = $2::uuid`, [projectId, uuid]);
    return rows[0] ?? null;
  }

  async values(projectId: number, query: EventValuesQuery): Promise<unknown[]> {
    const params = new SqlParams();
    const rows = await this.sql.query<{ name: unknown }>(valuesStatement(POSTGRES_EVENTS, params, "events e", projectId, query), params.values);
    return rows.map((row) => row.name);
  }

  async reassignPerson(projectId: number, sourceUuid: string, targetUuid: string, tx?: SqlExecutor): Promise<void> {
    await (tx ?? this.sql).query(`UPDATE events SET person_id = $1::uuid WHERE project_id = $3 AND person_id = $2::uuid`, [targetUuid, sourceUuid, projectId]);
    await (tx ?? this.sql).query(`UPDATE sessions SET person_id = $1::uuid WHERE project_id = $3 AND person_id = $2::uuid`, [targetUuid, sourceUuid, projectId]);
  }

  async deletePersonEvents(projectId: number, person: PersonEvents, limit: number): Promise<number> {
    // By primary key, picked through the person index and the distinct-id index (two arms, so each uses its own).
    const rows = await this.sql.query<{ n: number }>(
      `WITH doomed AS (
         (SELECT uuid FROM events WHERE project_id = $1::int AND person_id = $2::uuid LIMIT $4::int)
         UNION ALL
         (SELECT uuid FROM events WHERE project_id = $1::int AND distinct_id = ANY($3::text[]) AND person_id IS NULL LIMIT $4::int)
         LIMIT $4::int
       ), gone AS (
         DELETE FROM events WHERE project_id = $1::int AND uuid IN (SELECT uuid FROM doomed) RETURNING 1
       ) SELECT count(*)::int AS n FROM gone`,
      [projectId, person.uuid, [...person.distinctIds], limit],
    );
    // The last call (nothing left) takes their sessions (entry and exit URLs) with them.
    if (rows[0]!.n === 0) {
      await this.sql.query(`DELETE FROM sessions WHERE project_id = $1::int AND (person_id = $2::uuid OR distinct_id = ANY($3::text[]))`, [projectId, person.uuid, [...person.distinctIds]]);
    }
    return rows[0]!.n;
  }

  async trend(projectId: number, query: TrendQuery): Promise<TrendRow[]> {
    await requireCohorts(this.sql, projectId, cohortIdsOf(query.filters));
    const statement = postgresTrendStatement(projectId, query);
    return this.sql.query<TrendRow>(statement.text, statement.values);
  }

  async actorEvents(projectId: number, query: ActorEventsQuery): Promise<ActorEvents[]> {
    await requireCohorts(this.sql, projectId, cohortIdsOf([...query.filters, ...query.matchers.flatMap((matcher) => matcher.filters)]));
    const statement = postgresActorEventsStatement(projectId, query);
    const rows = await this.sql.query<ActorEventRow>(statement.text, statement.values, { rowMode: "array" });
    if (rows.length > MAX_ACTOR_EVENTS) throw tooManyActorEvents();
    return groupActorEvents(rows, query.values.length);
  }

  async actorBuckets(projectId: number, query: ActorBucketsQuery): Promise<ActorBuckets[]> {
    const base = query.firstEver?.onlyIfFirstOf;
    await requireCohorts(this.sql, projectId, cohortIdsOf([...query.filters, ...query.matchers.flatMap((matcher) => matcher.filters), ...(base?.filters ?? [])]));
    if (!query.counts && query.matchers.length > 0) {
      const calendar = postgresCalendarStatement(query);
      const buckets = await this.sql.query<{ t: number; h: number }>(calendar.text, calendar.values);
      if (buckets.length === 0) return [];
      const words = Math.ceil(buckets.length / WORD_BITS);
      if (query.matchers.length * words <= MAX_MASK_COLUMNS) {
        const starts = buckets.map((bucket) => bucketOfHours(bucket.h));
        const masks = postgresActorMasksStatement(projectId, query, buckets.map((bucket) => bucket.t));
        const rows = await this.sql.query<Record<string, string | number | null>>(masks.text, masks.values);
        return rows.map((row) =>
          bucketsFromMasks(
            row.a as string,
            query.matchers.map((_, i) => Array.from({ length: words }, (_, w) => Number(row[`k${i}_${w}`] ?? 0))),
            WORD_BITS,
            starts,
            row.fi === null ? null : Number(row.fi),
          ),
        );
      }
    }
    const statement = postgresActorBucketsStatement(projectId, query);
    const rows = await this.sql.query<{ a: string; bs: number[]; ms: number[]; cs: number[][] | null; fb: number | null }>(statement.text, statement.values);
    return rows.map((row) => ({
      actor: row.a,
      buckets: row.bs.map(bucketOfHours),
      masks: row.ms.map(Number),
      counts: row.cs?.map((counts) => counts.map(Number)) ?? [],
      firstEver: row.fb === null ? null : bucketOfHours(row.fb),
    }));
  }

  async earliestTimestamp(projectId: number): Promise<Date | null> {
    const rows = await this.sql.query<{ t: Date | null }>(`SELECT min(timestamp) AS t FROM events WHERE project_id = $1::int`, [projectId]);
    return rows[0]?.t ? new Date(rows[0].t) : null;
  }

  async personsWithEventCount(projectId: number, query: EventCountQuery): Promise<string[]> {
    const params = new SqlParams();
    const rows = await this.sql.query<{ person_id: string }>(personsWithEventCountSql(params, projectId, query), params.values);
    return rows.map((row) => row.person_id);
  }

  async eventNameDays(projectId: number): Promise<EventNameDay[]> {
    const rows = await this.sql.query<{ name: string; day: string; count: number; first: Date; last: Date }>(
      `SELECT event AS name, to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS count, min(timestamp) AS first, max(timestamp) AS last
         FROM events WHERE project_id = $1::int GROUP BY 1, 2`,
      [projectId],
    );
    return rows.map((row) => ({ ...row, first: new Date(row.first), last: new Date(row.last) }));
  }

  async propertySamples(projectId: number, sample: number): Promise<EventPropertySample[]> {
    const rows = await this.sql.query<{ event: string; key: string; sample: string | null; count: number }>(
      `SELECT e.event, p.key, min(p.value::text) AS sample, count(*)::int AS count
         FROM (SELECT event, properties FROM events WHERE project_id = $1::int ORDER BY timestamp DESC LIMIT $2::int) e,
              jsonb_each(e.properties) p
        GROUP BY e.event, p.key, jsonb_typeof(p.value)`,
      [projectId, sample],
    );
    return rows.map((row) => ({ event: row.event, key: row.key, sample: row.sample === null ? null : JSON.parse(row.sample), count: row.count }));
  }

  async webOverview(projectId: number, query: WebQueryBase): Promise<WebOverviewAnswer> {
    await requireCohorts(this.sql, projectId, cohortIdsOf(query.filters));
    const statement = postgresWebOverviewStatement(projectId, query);
    const rows = await this.sql.query<WebOverviewStoreRow>(statement.text, statement.values);
    return webOverviewAnswerOf(query, rows[0]);
  }

  async webStats(projectId: number, query: WebStatsQuery): Promise<WebStatsAnswer> {
    await requireCohorts(this.sql, projectId, cohortIdsOf(query.filters));
    const statement = postgresWebStatsStatement(projectId, query);
    const rows = await this.sql.query<WebStatsStoreRow>(statement.text, statement.values);
    let pathBounce: Map<string, WebStatsStoreRow> | null = null;
    if (query.breakdown === "Page" && query.includeBounceRate) {
      const paths = rows.slice(0, query.limit).map((row) => String(row.v0));
      const bounce = postgresPathBounceStatement(projectId, query, paths);
      pathBounce = new Map((await this.sql.query<WebStatsStoreRow>(bounce.text, bounce.values)).map((row) => [String(row.v0), row]));
    }
    return webStatsAnswerOf(query, rows, pathBounce);
  }

  async webTopClicks(projectId: number, query: WebTopClicksQuery): Promise<WebTopClick[]> {
    await requireCohorts(this.sql, projectId, cohortIdsOf(query.filters));
    const statement = postgresTopClicksStatement(projectId, query);
    return webTopClicksOf(await this.sql.query<WebTopClicksStoreRow>(statement.text, statement.values));
  }

  async webTrend(projectId: number, query: WebTrendQuery): Promise<WebTrendRow[]> {
    await requireCohorts(this.sql, projectId, cohortIdsOf(query.filters));
    const statement = postgresWebTrendStatement(projectId, query);
    return webTrendRowsOf(await this.sql.query<WebTrendStoreRow>(statement.text, statement.values));
  }

  async webTrendActors(projectId: number, query: WebTrendQuery, starts: WebTrendStarts): Promise<string[]> {
    await requireCohorts(this.sql, projectId, cohortIdsOf(query.filters));
    const statement = postgresWebTrendActorsStatement(projectId, query, starts);
    return (await this.sql.query<WebTrendActorRow>(statement.text, statement.values)).map((row) => row.actor);
  }

  /** The connection belongs to the database; nothing of its own to close. */
  async close(): Promise<void> {}
}
