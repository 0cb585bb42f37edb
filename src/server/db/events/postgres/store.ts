/**
 * The PostgreSQL event store (PGlite or a server): the `events` and `sessions` tables of the
 * Prisma schema. An assembly of the primitives' PostgreSQL halves (each folder's
 * postgres.ts), on the one connection they share.
 */
import { postgresWebGoalOverview, postgresWebGoalStats } from "../web/goal-postgres";
import type { WebGoalOverviewAnswer, WebGoalQuery, WebGoalStatsAnswer, WebGoalStatsQuery } from "../web/goal";
import type { SqlDriver, SqlExecutor } from "@/server/db/driver";
import type { Statistics } from "@/server/db/statistics";
import type { PropertyNode } from "@/server/properties/contract";
import type { EventStore, StoredEventInput } from "../contract";
import { translated } from "../errors";
import { postgresActorBuckets } from "../actor-buckets/postgres";
import type { ActorBuckets, ActorBucketsQuery } from "../actor-buckets/query";
import { postgresActorEvents } from "../actor-events/postgres";
import type { ActorEvents, ActorEventsQuery } from "../actor-events/query";
import { postgresExperimentTally } from "../experiment-tally/postgres";
import type { ExperimentTally, ExperimentTallyQuery } from "../experiment-tally/query";
import { postgresEventNameDays, postgresPropertySamples } from "../definitions/postgres";
import type { EventNameDay, EventPropertySample } from "../definitions/query";
import { checkRegexes } from "../filters/postgres";
import { postgresExportPage } from "../export/postgres";
import type { ExportedEvent, ExportedSession, ExportPageQuery } from "../export/query";
import { postgresExportSessionPage } from "../export/sessions";
import { insertEvents } from "../insert/postgres";
import { postgresCountList, postgresEarliestTimestamp, postgresGet, postgresList, postgresSelect, postgresValues } from "../list/postgres";
import type { EventListQuery, EventRow, EventValuesQuery, ListCount, ListPage, SelectPage } from "../list/query";
import { postgresDeletePersonEvents, postgresPersonsWithEventCount, postgresReassignPerson } from "../person-events/postgres";
import type { EventCountQuery, PersonEvents } from "../person-events/query";
import { SessionFolder } from "../sessions/fold";
import { postgresTrend } from "../trend/postgres";
import type { TrendQuery, TrendRow } from "../trend/query";
import { postgresWebOverview, postgresWebStats, postgresWebTopClicks, postgresWebTrend, postgresWebTrendActors } from "../web/postgres";
import type { WebOverviewAnswer, WebQueryBase, WebStatsAnswer, WebStatsQuery, WebTopClick, WebTopClicksQuery, WebTrendQuery, WebTrendRow, WebTrendStarts } from "../web/query";

export class PostgresEventStore implements EventStore {
  readonly kind = "postgres";
  /** The sessions table follows the inserts' deltas (sessions/fold.ts); reads of sessions merge first. */
  private readonly sessions: SessionFolder;

  constructor(
    private readonly sql: SqlDriver,
    /** 1 for PGlite (one connection), more for a PostgreSQL pool. */
    readonly maxConcurrentInserts: number,
    /** Rows per INSERT statement (PGLITE_CHUNK_ROWS on PGlite). */
    private readonly chunkRows?: number,
    /** Told of the rows written, so the events table is analyzed as it grows. */
    private readonly statistics?: Statistics,
    /** The merges of the store this one reads for (readingWith). */
    sessions?: SessionFolder,
  ) {
    // What a crash left unmerged goes with the next insert's or read's merge.
    this.sessions = sessions ?? new SessionFolder(sql);
  }

  readingWith(sql: SqlDriver): EventStore {
    return new PostgresEventStore(sql, this.maxConcurrentInserts, this.chunkRows, this.statistics, this.sessions);
  }

  /** Merges every session delta written so far into the sessions table (reads of sessions do it themselves). */
  mergeSessionDeltas(): Promise<void> {
    return this.sessions.now(this.sql);
  }

  async insert(events: readonly StoredEventInput[]): Promise<number> {
    const inserted = await insertEvents(this.sql, events, this.chunkRows);
    if (inserted > 0) this.sessions.soon();
    this.statistics?.wrote("events", inserted);
    return inserted;
  }

  checkFilters(properties: PropertyNode | null): Promise<void> {
    return translated(() => checkRegexes(this.sql, properties));
  }

  list(projectId: number, query: EventListQuery, page: ListPage): Promise<EventRow[]> {
    return translated(() => postgresList(this.sql, projectId, query, page));
  }

  select(projectId: number, query: EventListQuery, page: ListPage): Promise<SelectPage> {
    return translated(() => postgresSelect(this.sql, projectId, query, page));
  }

  countList(projectId: number, query: EventListQuery, options: { cap: number; now: Date }): Promise<ListCount> {
    return translated(() => postgresCountList(this.sql, projectId, query, options));
  }

  get(projectId: number, uuid: string): Promise<EventRow | null> {
    return translated(() => postgresGet(this.sql, projectId, uuid));
  }

  values(projectId: number, query: EventValuesQuery): Promise<unknown[]> {
    return translated(() => postgresValues(this.sql, projectId, query));
  }

  earliestTimestamp(projectId: number): Promise<Date | null> {
    return translated(() => postgresEarliestTimestamp(this.sql, projectId));
  }

  reassignPerson(projectId: number, sourceUuid: string, targetUuid: string, tx?: SqlExecutor): Promise<void> {
    return postgresReassignPerson(tx ?? this.sql, projectId, sourceUuid, targetUuid);
  }

  deletePersonEvents(projectId: number, person: PersonEvents, limit: number, sql?: SqlExecutor): Promise<number> {
    return postgresDeletePersonEvents(sql ?? this.sql, projectId, person, limit);
  }

  exportPage(projectId: number, query: ExportPageQuery, sql?: SqlExecutor): Promise<ExportedEvent[]> {
    return translated(() => postgresExportPage(sql ?? this.sql, projectId, query));
  }

  async exportSessionPage(projectId: number, query: ExportPageQuery, sql?: SqlExecutor): Promise<ExportedSession[]> {
    // Deltas not merged yet are merged now: their rows change now, in a later interval, and are exported with it.
    if (!query.after) await this.sessions.now(this.sql);
    return translated(() => postgresExportSessionPage(sql ?? this.sql, projectId, query));
  }

  personsWithEventCount(projectId: number, query: EventCountQuery): Promise<string[]> {
    return translated(() => postgresPersonsWithEventCount(this.sql, projectId, query));
  }

  async trend(projectId: number, query: TrendQuery): Promise<TrendRow[]> {
    await this.sessions.now(this.sql);
    return translated(() => postgresTrend(this.sql, projectId, query));
  }

  actorEvents(projectId: number, query: ActorEventsQuery): Promise<ActorEvents[]> {
    return translated(() => postgresActorEvents(this.sql, projectId, query));
  }

  actorBuckets(projectId: number, query: ActorBucketsQuery): Promise<ActorBuckets[]> {
    return translated(() => postgresActorBuckets(this.sql, projectId, query));
  }

  experimentTally(projectId: number, query: ExperimentTallyQuery): Promise<ExperimentTally> {
    return translated(() => postgresExperimentTally(this.sql, projectId, query));
  }

  eventNameDays(projectId: number): Promise<EventNameDay[]> {
    return postgresEventNameDays(this.sql, projectId);
  }

  propertySamples(projectId: number, sample: number): Promise<EventPropertySample[]> {
    return postgresPropertySamples(this.sql, projectId, sample);
  }

  async webOverview(projectId: number, query: WebQueryBase): Promise<WebOverviewAnswer> {
    await this.sessions.now(this.sql);
    return translated(() => postgresWebOverview(this.sql, projectId, query));
  }

  async webStats(projectId: number, query: WebStatsQuery): Promise<WebStatsAnswer> {
    await this.sessions.now(this.sql);
    return translated(() => postgresWebStats(this.sql, projectId, query));
  }

  async webGoalOverview(projectId: number, query: WebGoalQuery): Promise<WebGoalOverviewAnswer> {
    return translated(() => postgresWebGoalOverview(this.sql, projectId, query));
  }

  async webGoalStats(projectId: number, query: WebGoalStatsQuery): Promise<WebGoalStatsAnswer> {
    await this.sessions.now(this.sql);
    return translated(() => postgresWebGoalStats(this.sql, projectId, query));
  }

  async webTopClicks(projectId: number, query: WebTopClicksQuery): Promise<WebTopClick[]> {
    await this.sessions.now(this.sql);
    return translated(() => postgresWebTopClicks(this.sql, projectId, query));
  }

  async webTrend(projectId: number, query: WebTrendQuery): Promise<WebTrendRow[]> {
    await this.sessions.now(this.sql);
    return translated(() => postgresWebTrend(this.sql, projectId, query));
  }

  async webTrendActors(projectId: number, query: WebTrendQuery, starts: WebTrendStarts): Promise<string[]> {
    await this.sessions.now(this.sql);
    return translated(() => postgresWebTrendActors(this.sql, projectId, query, starts));
  }

  /** The connection belongs to the database; the background merges stop. */
  close(): Promise<void> {
    return this.sessions.close();
  }
}
