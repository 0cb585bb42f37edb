/**
 * The ClickHouse event store: the `events` table of clickhouse/migrations/ (and the sessions
 * kept from it), through `@clickhouse/client` (a server over HTTP, or chdb in the process). An
 * assembly of the primitives' ClickHouse halves (each folder's clickhouse.ts); persons and
 * cohorts are read from PostgreSQL (filters/clickhouse.ts).
 */
import { clickHouseExportPage, clickHouseExportSessionPage } from "../export/clickhouse";
import type { ExportedEvent, ExportedSession, ExportPageQuery } from "../export/query";
import { clickHouseWebGoalOverview, clickHouseWebGoalStats } from "../web/goal-clickhouse";
import type { WebGoalOverviewAnswer, WebGoalQuery, WebGoalStatsAnswer, WebGoalStatsQuery } from "../web/goal";
import type { ClickHouseClient } from "@clickhouse/client";
import type { SqlExecutor } from "@/server/db/driver";
import type { PropertyNode } from "@/server/properties/contract";
import { writeOutboxBatch } from "../insert/postgres";
import type { EventStore, StoredEventInput } from "../contract";
import { translated } from "../errors";
import { clickHouseActorBuckets } from "../actor-buckets/clickhouse";
import type { ActorBuckets, ActorBucketsQuery } from "../actor-buckets/query";
import { clickHouseActorEvents } from "../actor-events/clickhouse";
import type { ActorEvents, ActorEventsQuery } from "../actor-events/query";
import { clickHouseExperimentTally } from "../experiment-tally/clickhouse";
import type { ExperimentTally, ExperimentTallyQuery } from "../experiment-tally/query";
import { chTables, type ChStore } from "./context";
import { clickHouseEventNameDays, clickHousePropertySamples } from "../definitions/clickhouse";
import type { EventNameDay, EventPropertySample } from "../definitions/query";
import { clickHouseCheckFilters } from "../filters/clickhouse";
import { clickHouseInsert, type ChInsertOptions } from "../insert/clickhouse";
import { clickHouseCountList, clickHouseEarliestTimestamp, clickHouseGet, clickHouseList, clickHouseSelect, clickHouseValues } from "../list/clickhouse";
import type { EventListQuery, EventRow, EventValuesQuery, ListCount, ListPage, SelectPage } from "../list/query";
import { ListWindows } from "../list/window";
import { clickHouseDeletePersonEvents, clickHousePersonsWithEventCount, clickHouseReassignPerson } from "../person-events/clickhouse";
import type { EventCountQuery, PersonEvents } from "../person-events/query";
import { clickHouseTrend } from "../trend/clickhouse";
import type { TrendQuery, TrendRow } from "../trend/query";
import { clickHouseWebOverview, clickHouseWebStats, clickHouseWebTopClicks, clickHouseWebTrend, clickHouseWebTrendActors } from "../web/clickhouse";
import type { WebOverviewAnswer, WebQueryBase, WebStatsAnswer, WebStatsQuery, WebTopClick, WebTopClicksQuery, WebTrendQuery, WebTrendRow, WebTrendStarts } from "../web/query";

export class ClickHouseEventStore implements EventStore {
  readonly kind = "clickhouse";
  /** One insert at a time per process: the existence check and the insert of a batch do not interleave with another's. */
  readonly maxConcurrentInserts = 1;
  private readonly ch: ChStore;
  private readonly listWindows = new ListWindows();

  constructor(
    client: ClickHouseClient,
    database: string,
    /** PostgreSQL: persons, for person-property filters and `person_id` given as an integer id. */
    sql: SqlExecutor,
    private readonly onClose: () => Promise<void> = () => client.close(),
  ) {
    this.ch = { client, tables: chTables(database), sql };
  }

  /** The store's insert; `options.beforeWrite` serves the move to ClickHouse (insert/clickhouse.ts). */
  async insert(events: readonly StoredEventInput[], options?: ChInsertOptions): Promise<number> {
    // The outbox is in PostgreSQL, the events here: no shared transaction. Its batch is written
    // first, so an acknowledged event is never without it (an insert that then fails leaves a
    // batch for events never acknowledged: delivered once anyway, at least once still holds).
    await writeOutboxBatch(this.ch.sql, events);
    return clickHouseInsert(this.ch, events, options);
  }

  /** Its reads are ClickHouse's; persons stay on the database's main connections. */
  readingWith(): EventStore {
    return this;
  }

  checkFilters(properties: PropertyNode | null): Promise<void> {
    return translated(() => clickHouseCheckFilters(this.ch, properties));
  }

  list(projectId: number, query: EventListQuery, page: ListPage): Promise<EventRow[]> {
    return translated(() => clickHouseList(this.ch, this.listWindows, projectId, query, page));
  }

  select(projectId: number, query: EventListQuery, page: ListPage): Promise<SelectPage> {
    return translated(() => clickHouseSelect(this.ch, projectId, query, page));
  }

  countList(projectId: number, query: EventListQuery, options: { cap: number; now: Date }): Promise<ListCount> {
    return translated(() => clickHouseCountList(this.ch, projectId, query, options));
  }

  get(projectId: number, uuid: string): Promise<EventRow | null> {
    return translated(() => clickHouseGet(this.ch, projectId, uuid));
  }

  values(projectId: number, query: EventValuesQuery): Promise<unknown[]> {
    return translated(() => clickHouseValues(this.ch, projectId, query));
  }

  earliestTimestamp(projectId: number): Promise<Date | null> {
    return translated(() => clickHouseEarliestTimestamp(this.ch, projectId));
  }

  reassignPerson(projectId: number, sourceUuid: string, targetUuid: string): Promise<void> {
    return clickHouseReassignPerson(this.ch, projectId, sourceUuid, targetUuid);
  }

  deletePersonEvents(projectId: number, person: PersonEvents): Promise<number> {
    return clickHouseDeletePersonEvents(this.ch, projectId, person);
  }

  exportPage(projectId: number, query: ExportPageQuery): Promise<ExportedEvent[]> {
    return translated(() => clickHouseExportPage(this.ch, projectId, query));
  }

  exportSessionPage(projectId: number, query: ExportPageQuery): Promise<ExportedSession[]> {
    return translated(() => clickHouseExportSessionPage(this.ch, projectId, query));
  }

  personsWithEventCount(projectId: number, query: EventCountQuery): Promise<string[]> {
    return translated(() => clickHousePersonsWithEventCount(this.ch, projectId, query));
  }

  trend(projectId: number, query: TrendQuery): Promise<TrendRow[]> {
    return translated(() => clickHouseTrend(this.ch, projectId, query));
  }

  actorEvents(projectId: number, query: ActorEventsQuery): Promise<ActorEvents[]> {
    return translated(() => clickHouseActorEvents(this.ch, projectId, query));
  }

  actorBuckets(projectId: number, query: ActorBucketsQuery): Promise<ActorBuckets[]> {
    return translated(() => clickHouseActorBuckets(this.ch, projectId, query));
  }

  experimentTally(projectId: number, query: ExperimentTallyQuery): Promise<ExperimentTally> {
    return translated(() => clickHouseExperimentTally(this.ch, projectId, query));
  }

  eventNameDays(projectId: number): Promise<EventNameDay[]> {
    return clickHouseEventNameDays(this.ch, projectId);
  }

  propertySamples(projectId: number, sample: number): Promise<EventPropertySample[]> {
    return clickHousePropertySamples(this.ch, projectId, sample);
  }

  webOverview(projectId: number, query: WebQueryBase): Promise<WebOverviewAnswer> {
    return translated(() => clickHouseWebOverview(this.ch, projectId, query));
  }

  webStats(projectId: number, query: WebStatsQuery): Promise<WebStatsAnswer> {
    return translated(() => clickHouseWebStats(this.ch, projectId, query));
  }

  webGoalOverview(projectId: number, query: WebGoalQuery): Promise<WebGoalOverviewAnswer> {
    return translated(() => clickHouseWebGoalOverview(this.ch, projectId, query));
  }

  webGoalStats(projectId: number, query: WebGoalStatsQuery): Promise<WebGoalStatsAnswer> {
    return translated(() => clickHouseWebGoalStats(this.ch, projectId, query));
  }

  webTopClicks(projectId: number, query: WebTopClicksQuery): Promise<WebTopClick[]> {
    return translated(() => clickHouseWebTopClicks(this.ch, projectId, query));
  }

  webTrend(projectId: number, query: WebTrendQuery): Promise<WebTrendRow[]> {
    return translated(() => clickHouseWebTrend(this.ch, projectId, query));
  }

  webTrendActors(projectId: number, query: WebTrendQuery, starts: WebTrendStarts): Promise<string[]> {
    return translated(() => clickHouseWebTrendActors(this.ch, projectId, query, starts));
  }

  /** Merges the tables' parts now instead of in the background (benchmarks, after a bulk load: as ANALYZE for PostgreSQL). */
  async settle(): Promise<void> {
    await this.ch.client.command({ query: `OPTIMIZE TABLE ${this.ch.tables.events} FINAL` });
    await this.ch.client.command({ query: `OPTIMIZE TABLE ${this.ch.tables.sessions} FINAL` });
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
