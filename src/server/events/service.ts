/**
 * The events service behind `/api/projects/:project_id/events/…` and the explorer: a list
 * (JSON pages with where the next starts, or a streamed CSV body), one event, and a
 * property's values. Typed queries in, plain data out; the REST edge
 * (http/rest/resources/events.ts) parses the query string and builds PostHog's `next`
 * links and CSV responses.
 */
import type { Context } from "@/server/context";
import type { Database } from "@/server/db/client";
import { cohortIdsOf, requireCohorts } from "@/server/db/events/filters/cohorts";
import type { EventCursor, EventRow, ListCount } from "@/server/db/events";
import { AppError } from "@/server/errors";
import type { PropertyNode } from "@/server/properties/contract";
import {
  canonicalUuid,
  EVENT_LIMITS,
  filterParams,
  listQueryOf,
  type EventFilters,
  type EventListParams,
  type EventListQuery,
  type EventPageCursor,
  type EventValuesQuery,
} from "./contract";
import { CSV_HEADER, csvRecord, eventCsvRecord, eventResource, selectCsvRecord, type EventResource } from "./present";
import { findCohortChoices, personsByUuid } from "./store";

/** What the events API reads: events from the event store, their persons from PostgreSQL. */
export type EventsDb = Pick<Database, "sql" | "events">;

/**
 * What the events service needs of the request context: the database and the project. A
 * `Context` is one; system callers (transformations' test runs) pass just these two.
 */
export interface EventsContext {
  db: EventsDb;
  project: Pick<Context["project"], "id">;
}

/** One page of the explorer's list: its filters, the page size and where the page starts. */
export type EventPageInput = EventFilters & { limit?: number; cursor?: EventPageCursor | null };

/**
 * Where the REST list's next page starts: before the last row's timestamp (and, when the
 * next row shares it, before the last row's uuid among them), or at an offset for
 * aggregated `select` rows.
 */
export type EventListNext = { before: Date; beforeUuid: string | null } | { offset: number } | null;

/** One answer of the list: events, `select` rows of values in select order, or a CSV body. */
export type EventListAnswer =
  | { kind: "events"; results: EventResource[]; next: EventListNext }
  | { kind: "select"; columns: string[]; types: string[]; results: unknown[][]; next: EventListNext }
  | { kind: "csv"; body: ReadableStream<Uint8Array> };

/**
 * What only the data can refuse in filter groups, checked before a query runs or is
 * stored: a regular expression the event store does not accept, a cohort that is not a live
 * one of the project (both a 400 on `properties`).
 */
export async function checkEventFilters(db: Database, projectId: number, groups: readonly (PropertyNode | null)[]): Promise<void> {
  for (const group of groups) await db.events.checkFilters(group);
  await requireCohorts(db.sql, projectId, cohortIdsOf(groups));
}

/** Where the page after `last` starts: `following` (the row after it) says whether a uuid is needed. */
function cursorAfter(last: EventCursor, following: EventCursor): EventListNext {
  return { before: last.timestamp, beforeUuid: following.timestamp.getTime() === last.timestamp.getTime() ? last.uuid : null };
}

/** The list; `now` is the instant the query's relative dates were read at (filters count back from it too). */
export async function listEvents({ db, project }: EventsContext, query: EventListQuery, now: Date): Promise<EventListAnswer> {
  const projectId = project.id;
  await db.events.checkFilters(query.properties);
  if (query.select) {
    if (query.format === "csv") return { kind: "csv", body: await selectCsvBody(db, projectId, query, now) };
    const { types, aggregated, rows } = await db.events.select(projectId, query, { limit: query.limit + 1, offset: query.offset, cursor: null, now });
    const page = rows.slice(0, query.limit);
    let next: EventListNext = null;
    if (rows.length > query.limit) next = aggregated ? { offset: query.offset + query.limit } : cursorAfter(page[page.length - 1]!.cursor!, rows[query.limit]!.cursor!);
    return { kind: "select", columns: query.select.map((item) => item.text), types, results: page.map((row) => row.values), next };
  }
  if (query.format === "csv") return { kind: "csv", body: await csvBody(db, projectId, query, now) };
  const { results, last, following } = await eventPage(db, projectId, query, now);
  return { kind: "events", results, next: last && following ? cursorAfter(last, following) : null };
}

/**
 * One page of events with their persons (the REST list and the explorer), and the rows
 * either side of the page's end that the next cursor is made from (`following` is null on
 * the last page).
 */
async function eventPage(db: EventsDb, projectId: number, query: EventListQuery, now: Date) {
  const rows = await db.events.list(projectId, query, { limit: query.limit + 1, offset: query.offset, cursor: null, now });
  const page = rows.slice(0, query.limit);
  const persons = await personsByUuid(db.sql, projectId, page.map((row) => row.person_id));
  return {
    results: page.map((row) => eventResource(row, persons)),
    last: page.at(-1) ?? null,
    following: rows[query.limit] ?? null,
  };
}

/** A stored event of the project by its id: 400 for a non-UUID, 404 if there is none. */
async function findEventRow(db: EventsDb, projectId: number, id: string): Promise<EventRow> {
  const uuid = canonicalUuid(id);
  if (!uuid) throw new AppError("invalid_input", "Invalid UUID", "id");
  const row = await db.events.get(projectId, uuid);
  if (!row) throw new AppError("not_found", `No events exist for event UUID ${uuid}`);
  return row;
}

/**
 * The CSV export, streamed: the first chunk is read before answering (so a bad filter is
 * still a 400), the rest page through the database as the client reads, by cursor.
 */
async function csvBody(db: EventsDb, projectId: number, query: EventListQuery, now: Date): Promise<ReadableStream<Uint8Array>> {
  let remaining = query.limit;
  const fetchChunk = async (cursor: EventCursor | null): Promise<CsvChunk> => {
    const wanted = Math.min(EVENT_LIMITS.csvChunk, remaining);
    const rows = await db.events.list(projectId, query, { limit: wanted, offset: cursor ? 0 : query.offset, cursor, now });
    remaining -= rows.length;
    const end = rows[rows.length - 1];
    // A short chunk, or the limit reached: nothing follows.
    return { text: rows.map(eventCsvRecord).join(""), more: rows.length < wanted || remaining <= 0 || !end ? null : () => fetchChunk({ timestamp: end.timestamp, uuid: end.uuid }) };
  };
  return streamCsv(CSV_HEADER, await fetchChunk(null));
}

/**
 * The CSV export with `select`: header = the expressions as given. Rows that are not
 * aggregated page by cursor, aggregated rows by offset.
 */
async function selectCsvBody(db: EventsDb, projectId: number, query: EventListQuery, now: Date): Promise<ReadableStream<Uint8Array>> {
  let remaining = query.limit;
  const fetchChunk = async (cursor: EventCursor | null, offset: number): Promise<CsvChunk> => {
    const wanted = Math.min(EVENT_LIMITS.csvChunk, remaining);
    const { aggregated, rows } = await db.events.select(projectId, query, { limit: wanted, offset, cursor, now });
    remaining -= rows.length;
    const end = rows[rows.length - 1];
    const more = rows.length < wanted || remaining <= 0 || !end ? null : () => (aggregated ? fetchChunk(null, offset + rows.length) : fetchChunk(end.cursor, 0));
    return { text: rows.map((row) => selectCsvRecord(row.values)).join(""), more };
  };
  return streamCsv(csvRecord(query.select!.map((item) => item.text)), await fetchChunk(null, query.offset));
}

/** Some CSV records, and how to read the ones after them (null: none follow). */
interface CsvChunk {
  text: string;
  more: (() => Promise<CsvChunk>) | null;
}

/** The streamed body: header, the first chunk (read before answering), then the rest as the client reads. */
function streamCsv(header: string, first: CsvChunk): ReadableStream<Uint8Array> {
  let pending: CsvChunk | null = first;
  const encoder = new TextEncoder();
  let started = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(header));
        return;
      }
      if (pending === null || pending.text === "") {
        controller.close();
        return;
      }
      const { text, more } = pending;
      controller.enqueue(encoder.encode(text));
      try {
        pending = more ? await more() : null;
      } catch (error) {
        console.error("burrow: CSV export failed while streaming", error);
        controller.error(error);
      }
    },
  });
  return stream;
}

/** One event as a CSV record under the export's header: 400 for a non-UUID, 404 if there is none. */
export async function eventCsv({ db, project }: EventsContext, id: string): Promise<string> {
  return CSV_HEADER + eventCsvRecord(await findEventRow(db, project.id, id));
}

export async function eventValues({ db, project }: EventsContext, query: EventValuesQuery): Promise<{ name: unknown }[]> {
  return (await db.events.values(project.id, query)).map((name) => ({ name }));
}

/**
 * One page of the list for the app's explorer (tRPC): the filters are read by the REST
 * list's own checks (`listQueryOf`); the cursor, when given, replaces `before` as the REST
 * `next` link does. JSON only.
 */
export async function listEventPage({ db, project }: EventsContext, page: EventPageInput): Promise<{ results: EventResource[]; next: EventPageCursor | null }> {
  const projectId = project.id;
  const now = new Date();
  const params: EventListParams = filterParams(page);
  if (page.limit !== undefined) params.limit = String(page.limit);
  // An empty parameter counts as not given, as in the REST query string.
  if (page.cursor?.before) params.before = page.cursor.before;
  if (page.cursor?.beforeUuid) params.before_uuid = page.cursor.beforeUuid;
  const query = listQueryOf(params, null, now);
  await db.events.checkFilters(query.properties);
  const { results, last, following } = await eventPage(db, projectId, query, now);
  return { results, next: last && following ? { before: last.timestamp.toISOString(), beforeUuid: last.uuid } : null };
}

/**
 * How many events the explorer's filters match, up to `EVENT_LIMITS.countCap` (then
 * `capped`): the same filters, read by the same checks, as `listEventPage`.
 */
export async function countEventMatches({ db, project }: EventsContext, filters: EventFilters): Promise<ListCount> {
  const now = new Date();
  const query = listQueryOf(filterParams(filters), null, now);
  await db.events.checkFilters(query.properties);
  return db.events.countList(project.id, query, { cap: EVENT_LIMITS.countCap, now });
}

/** The cohorts the explorer's filter offers: the project's live ones, by name. */
export function listCohortChoices({ db, project }: EventsContext): Promise<{ id: number; name: string }[]> {
  return findCohortChoices(db.sql, project.id);
}

/** One event with its person, or a 404 (absent, or in another project). */
export async function getEvent({ db, project }: EventsContext, id: string): Promise<EventResource> {
  const row = await findEventRow(db, project.id, id);
  return eventResource(row, await personsByUuid(db.sql, project.id, [row.person_id]));
}
