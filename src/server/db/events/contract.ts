/**
 * The event store's contract: every write and read of events goes through one `EventStore`,
 * kept in PostgreSQL (postgres/store.ts, the default: PGlite or a server) or in ClickHouse
 * (clickhouse/store.ts, chosen by `CLICKHOUSE_URL`). Persons and everything else stay in
 * PostgreSQL whichever store holds the events. Each primitive is a folder (list/, trend/,
 * actor-events/, …) whose query.ts holds its types, re-exported here; the store's own files
 * import these, never index.ts (which re-exports the stores themselves).
 */
import type { PropertyNode } from "@/server/properties/contract";
import type { SqlDriver, SqlExecutor } from "@/server/db/driver";
import type { EventListQuery, EventRow, EventValuesQuery, ListCount, ListPage, SelectPage } from "./list/query";
import type { TrendQuery, TrendRow } from "./trend/query";
import type { ExportedEvent, ExportedSession, ExportPageQuery } from "./export/query";
import type { EventCountQuery, PersonEvents } from "./person-events/query";
import type { ActorEvents, ActorEventsQuery } from "./actor-events/query";
import type { ActorBuckets, ActorBucketsQuery } from "./actor-buckets/query";
import type { ExperimentTally, ExperimentTallyQuery } from "./experiment-tally/query";
import type { EventNameDay, EventPropertySample } from "./definitions/query";
import type { WebGoalOverviewAnswer, WebGoalQuery, WebGoalStatsAnswer, WebGoalStatsQuery } from "./web/goal";
import type { WebOverviewAnswer, WebQueryBase, WebStatsAnswer, WebStatsQuery, WebTopClick, WebTopClicksQuery, WebTrendQuery, WebTrendRow, WebTrendStarts } from "./web/query";

export type * from "./list/query";
export type * from "./trend/query";
export type * from "./person-events/query";
export type * from "./actor-events/query";
export type * from "./actor-buckets/query";
export type * from "./experiment-tally/query";
export type * from "./definitions/query";
export type * from "./web/query";

/** An event as it is stored (after ingestion has normalised it). */
export interface StoredEventInput {
  uuid: string;
  projectId: number;
  event: string;
  distinctId: string;
  properties: Record<string, unknown>;
  timestamp: Date;
  personId?: string | null;
  elementsChain?: string;
  historicalMigration?: boolean;
  /**
   * Destinations (hog function ids) whose filters the event matched at ingestion: an outbox
   * row each, written with the event (in its statement on PostgreSQL), so that an
   * acknowledged event is delivered even after a crash.
   */
  destinations?: readonly string[];
}

export type EventStoreKind = "postgres" | "clickhouse";

export interface EventStore {
  readonly kind: EventStoreKind;
  /** Inserts the ingestion writer may run at once (each one group-commit batch). */
  readonly maxConcurrentInserts: number;
  /**
   * Stores a batch; resolves once the store has accepted it durably (the request is then
   * acknowledged). A uuid the project already has is skipped, so a retried batch is not
   * stored twice. Returns the rows written.
   */
  insert(events: readonly StoredEventInput[]): Promise<number>;
  /**
   * This store with its reads on `sql` (an analytical run's connection, db/analytics.ts);
   * writes and background work stay where they were. A store that reads elsewhere
   * (ClickHouse) answers itself.
   */
  readingWith(sql: SqlDriver): EventStore;
  /**
   * Checks, on no data, what a filter could make the store refuse only when a row reaches
   * it (a regular expression): an AppError 400 now instead of a failure halfway through.
   */
  checkFilters(properties: PropertyNode | null): Promise<void>;
  /** One page of the list, newest first (ties by uuid, descending, so pages never overlap). */
  list(projectId: number, query: EventListQuery, page: ListPage): Promise<EventRow[]>;
  /**
   * One page with the experimental `select`: the selected columns of each event, newest
   * first — or, when a column aggregates (count), one row per distinct combination of the
   * other columns, the first aggregate descending (then the other columns ascending).
   * `cursor` applies only to rows that are not aggregated (aggregated rows page by offset).
   */
  select(projectId: number, query: EventListQuery, page: ListPage): Promise<SelectPage>;
  get(projectId: number, uuid: string): Promise<EventRow | null>;
  /**
   * How many events the list's filters match (`limit`, `offset` and `select` are not read),
   * counting no further than `cap` so that a wide filter stays fast: past it, `capped`.
   */
  countList(projectId: number, query: EventListQuery, options: { cap: number; now: Date }): Promise<ListCount>;
  /**
   * Distinct values of one event property, most frequent first (ties in text order), read
   * from the newest `valuesSample` events that have it: a list element counts as a value,
   * null is left out. `prefix` keeps values whose text starts with it, ignoring ASCII case.
   */
  values(projectId: number, query: EventValuesQuery): Promise<unknown[]>;
  /**
   * Gives one person's stored events to another (a merge). `tx` is the PostgreSQL
   * transaction of the merge: the PostgreSQL store moves the events inside it.
   */
  reassignPerson(projectId: number, sourceUuid: string, targetUuid: string, tx?: SqlExecutor): Promise<void>;
  /**
   * Deletes up to `limit` events of a deleted person, for good: those carrying its uuid, and
   * those of its distinct ids stored without a person. Returns how many went; 0 means none
   * are left. Callers loop, so a crash loses at most the batch under way, never the count.
   * ClickHouse deletes them all in one statement (its deletes scan whatever the batch).
   * `sql`: where the PostgreSQL store runs it (the workers' handle, db.worker).
   */
  deletePersonEvents(projectId: number, person: PersonEvents, limit: number, sql?: SqlExecutor): Promise<number>;
  /**
   * Batch exports' read (export/): one page of a project's events by ingestion time, in
   * (ingestion time, uuid) order after `query.after`. `sql`: where the PostgreSQL store runs
   * it (the workers' handle, db.worker).
   */
  exportPage(projectId: number, query: ExportPageQuery, sql?: SqlExecutor): Promise<ExportedEvent[]>;
  /**
   * Batch exports' read of sessions (export/): one page of the sessions that last changed in
   * the range, in (change time, session id) order. PostgreSQL: the sessions table's
   * `updated_at` (its events' deltas merged, a person merge); ClickHouse: the latest ingestion
   * time of the session's events (sessions_v2's `inserted_at`).
   */
  exportSessionPage(projectId: number, query: ExportPageQuery, sql?: SqlExecutor): Promise<ExportedSession[]>;
  /** Insights' aggregation (trend/): one row per (value, bucket) that has events — without a breakdown and buckets, always one row. */
  trend(projectId: number, query: TrendQuery): Promise<TrendRow[]>;
  /** Each actor's events of a range in time order, with the matchers each satisfies and its values (actor-events/). */
  actorEvents(projectId: number, query: ActorEventsQuery): Promise<ActorEvents[]>;
  /** Each actor's wall-clock buckets of a range with events matching each matcher, aggregated in the store (actor-buckets/). */
  actorBuckets(projectId: number, query: ActorBucketsQuery): Promise<ActorBuckets[]>;
  /** An experiment metric's per-variant exposures and values, aggregated in the store in one statement (experiment-tally/). */
  experimentTally(projectId: number, query: ExperimentTallyQuery): Promise<ExperimentTally>;
  /** The project's first event's time, for `date_from: "all"`; null without events. */
  earliestTimestamp(projectId: number): Promise<Date | null>;
  /**
   * The uuids of the persons who performed `event` since `since` a number of times that
   * satisfies `count` (cohorts' behavioral conditions). Persons without such events never
   * appear, whatever `count` says.
   */
  personsWithEventCount(projectId: number, query: EventCountQuery): Promise<string[]>;
  /** For the definitions backfill: events per name and UTC day, all time. */
  eventNameDays(projectId: number): Promise<EventNameDay[]>;
  /** For the definitions backfill: the property keys of the newest `sample` events, per event name and JSON type of value. */
  propertySamples(projectId: number, sample: number): Promise<EventPropertySample[]>;
  /** Web analytics' overview: visitors, views, sessions, duration and bounce rate of sessions starting in each period (web/). */
  webOverview(projectId: number, query: WebQueryBase): Promise<WebOverviewAnswer>;
  /** Web analytics' stats table: visitors and views per breakdown value, ordered and paged (web/). */
  webStats(projectId: number, query: WebStatsQuery): Promise<WebStatsAnswer>;
  /** Web analytics' overview with a conversion goal: visitors, conversions and converters of each period (web/goal.ts). */
  webGoalOverview(projectId: number, query: WebGoalQuery): Promise<WebGoalOverviewAnswer>;
  /** Web analytics' stats table with a conversion goal: visitors, conversions, converters and rate per breakdown value (web/goal.ts). */
  webGoalStats(projectId: number, query: WebGoalStatsQuery): Promise<WebGoalStatsAnswer>;
  /** Web analytics' top clicks: autocaptured clicks per element text, most first (web/). */
  webTopClicks(projectId: number, query: WebTopClicksQuery): Promise<WebTopClick[]>;
  /** Web analytics' trends: per bucket of session start, the sessions with the event in the range and their figures (web/). */
  webTrend(projectId: number, query: WebTrendQuery): Promise<WebTrendRow[]>;
  /** The actors (actor-events/ keys) of a web trend's sessions starting in `starts`, most of the event first. */
  webTrendActors(projectId: number, query: WebTrendQuery, starts: WebTrendStarts): Promise<string[]>;
  close(): Promise<void>;
}
