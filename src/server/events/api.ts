/**
 * The events API (`/api/projects/:project_id/events/…`, scope query): list (JSON pages
 * with a `before` cursor in `next`, or a streamed CSV), one event, and a property's values.
 * The route files under src/app/api call these through `projectRoute("query", …)`.
 */
import type { Database } from "@/server/db/client";
import { serverEnvFrom } from "@/server/env";
import { AppError } from "@/server/errors";
import { filterParams, type EventFilters, type EventPageCursor } from "./filters";
import { canonicalUuid, EVENT_LIMITS, listQueryOf, parseListQuery, parseValuesQuery, type EventListParams, type EventListQuery } from "./params";
import { CSV_HEADER, csvRecord, eventCsvRecord, eventResource, selectCsvRecord, type EventResource } from "./present";
import { personsByUuid } from "./query";
import type { EventCursor, EventRow } from "./store";

/** What the events API reads: events from the event store, their persons from PostgreSQL. */
export type EventsDb = Pick<Database, "sql" | "events">;

/** The answer with the experimental `select`: rows of values in select order. */
export interface SelectAnswer {
  columns: string[];
  types: string[];
  results: unknown[][];
  next: string | null;
}

/**
 * What a filter can make the database refuse — a regular expression it does not accept, or
 * one too complex — is the caller's mistake: a 400 on `properties`, not a 500.
 */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "2201B") {
      throw new AppError("invalid_input", `properties: the database rejected a regular expression (${(error as Error).message}).`, "properties");
    }
    if (code === "54000" || code === "54001") throw new AppError("invalid_input", "properties: the filter is too complex.", "properties");
    // ClickHouse (RE2) refusing a pattern.
    if ((error as { type?: unknown }).type === "CANNOT_COMPILE_REGEXP") {
      throw new AppError("invalid_input", `properties: the database rejected a regular expression (${(error as Error).message.split(". Look at")[0]}).`, "properties");
    }
    throw error;
  }
}

/**
 * `next`: this request's URL on SITE_URL with `before` set to the last row's timestamp
 * (offset dropped: the cursor replaces it). When the next row has the same timestamp,
 * `before_uuid` says where in those equal timestamps this page stopped.
 */
function nextLink(request: Request, last: EventCursor, following: EventCursor): string {
  const url = new URL(request.url);
  const next = new URL(url.pathname + url.search, serverEnvFrom().siteUrl);
  next.searchParams.set("before", last.timestamp.toISOString());
  next.searchParams.delete("offset");
  if (following.timestamp.getTime() === last.timestamp.getTime()) next.searchParams.set("before_uuid", last.uuid);
  else next.searchParams.delete("before_uuid");
  return next.toString();
}

/** `next` of aggregated `select` rows: this request's URL with the offset moved on. */
function offsetLink(request: Request, offset: number): string {
  const url = new URL(request.url);
  const next = new URL(url.pathname + url.search, serverEnvFrom().siteUrl);
  next.searchParams.set("offset", String(offset));
  return next.toString();
}

export async function listEvents(
  request: Request,
  db: EventsDb,
  projectId: number,
): Promise<Response | SelectAnswer | { next: string | null; results: EventResource[] }> {
  const now = new Date();
  const query = parseListQuery(new URL(request.url), request.headers.get("accept"), now);
  await guarded(() => db.events.checkFilters(query.properties));
  if (query.select) {
    if (query.format === "csv") return selectCsvResponse(db, projectId, query, now);
    const { types, aggregated, rows } = await guarded(() => db.events.select(projectId, query, { limit: query.limit + 1, offset: query.offset, cursor: null, now }));
    const page = rows.slice(0, query.limit);
    let next: string | null = null;
    if (rows.length > query.limit) {
      next = aggregated ? offsetLink(request, query.offset + query.limit) : nextLink(request, page[page.length - 1]!.cursor!, rows[query.limit]!.cursor!);
    }
    return { columns: query.select.map((item) => item.text), types, results: page.map((row) => row.values), next };
  }
  if (query.format === "csv") return csvResponse(db, projectId, query, now);
  const { results, last, following } = await eventPage(db, projectId, query, now);
  return { next: last && following ? nextLink(request, last, following) : null, results };
}

/**
 * One page of events with their persons (the REST list and the explorer), and the rows
 * either side of the page's end that the next cursor is made from (`following` is null on
 * the last page).
 */
async function eventPage(db: EventsDb, projectId: number, query: EventListQuery, now: Date) {
  const rows = await guarded(() => db.events.list(projectId, query, { limit: query.limit + 1, offset: query.offset, cursor: null, now }));
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
async function csvResponse(db: EventsDb, projectId: number, query: EventListQuery, now: Date): Promise<Response> {
  let remaining = query.limit;
  const fetchChunk = async (cursor: EventCursor | null): Promise<CsvChunk> => {
    const wanted = Math.min(EVENT_LIMITS.csvChunk, remaining);
    const rows = await db.events.list(projectId, query, { limit: wanted, offset: cursor ? 0 : query.offset, cursor, now });
    remaining -= rows.length;
    const end = rows[rows.length - 1];
    // A short chunk, or the limit reached: nothing follows.
    return { text: rows.map(eventCsvRecord).join(""), more: rows.length < wanted || remaining <= 0 || !end ? null : () => fetchChunk({ timestamp: end.timestamp, uuid: end.uuid }) };
  };
  return streamCsv(CSV_HEADER, await guarded(() => fetchChunk(null)));
}

/**
 * The CSV export with `select`: header = the expressions as given. Rows that are not
 * aggregated page by cursor, aggregated rows by offset.
 */
async function selectCsvResponse(db: EventsDb, projectId: number, query: EventListQuery, now: Date): Promise<Response> {
  let remaining = query.limit;
  const fetchChunk = async (cursor: EventCursor | null, offset: number): Promise<CsvChunk> => {
    const wanted = Math.min(EVENT_LIMITS.csvChunk, remaining);
    const { aggregated, rows } = await db.events.select(projectId, query, { limit: wanted, offset, cursor, now });
    remaining -= rows.length;
    const end = rows[rows.length - 1];
    const more = rows.length < wanted || remaining <= 0 || !end ? null : () => (aggregated ? fetchChunk(null, offset + rows.length) : fetchChunk(end.cursor, 0));
    return { text: rows.map((row) => selectCsvRecord(row.values)).join(""), more };
  };
  return streamCsv(csvRecord(query.select!.map((item) => item.text)), await guarded(() => fetchChunk(null, query.offset)));
}

/** Some CSV records, and how to read the ones after them (null: none follow). */
interface CsvChunk {
  text: string;
  more: (() => Promise<CsvChunk>) | null;
}

/** The streamed body: header, the first chunk (read before answering), then the rest as the client reads. */
function streamCsv(header: string, first: CsvChunk): Response {
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
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="events.csv"', "cache-control": "no-store" },
  });
}

export async function retrieveEvent(request: Request, db: EventsDb, projectId: number, id: string): Promise<Response | EventResource> {
  if (!canonicalUuid(id)) throw new AppError("invalid_input", "Invalid UUID", "id");
  const format = new URL(request.url).searchParams.get("format");
  if (format !== null && format !== "json" && format !== "csv") throw new AppError("invalid_input", "format must be 'json' or 'csv'.", "format");
  const row = await findEventRow(db, projectId, id);
  if (format === "csv") {
    return new Response(CSV_HEADER + eventCsvRecord(row), { status: 200, headers: { "content-type": "text/csv; charset=utf-8" } });
  }
  return eventResource(row, await personsByUuid(db.sql, projectId, [row.person_id]));
}

export async function eventValues(request: Request, db: EventsDb, projectId: number): Promise<{ name: unknown }[]> {
  const query = parseValuesQuery(new URL(request.url));
  return (await db.events.values(projectId, query)).map((name) => ({ name }));
}

/**
 * One page of the list for the app's explorer (tRPC): the filters are read by the REST
 * list's own checks (`listQueryOf`); the cursor, when given, replaces `before` as the REST
 * `next` link does. JSON only.
 */
export async function listEventPage(
  db: EventsDb,
  projectId: number,
  page: { filters?: EventFilters; limit?: number; cursor?: EventPageCursor | null },
): Promise<{ results: EventResource[]; next: EventPageCursor | null }> {
  const now = new Date();
  const params: EventListParams = filterParams(page.filters ?? {});
  if (page.limit !== undefined) params.limit = String(page.limit);
  // An empty parameter counts as not given, as in the REST query string.
  if (page.cursor?.before) params.before = page.cursor.before;
  if (page.cursor?.beforeUuid) params.before_uuid = page.cursor.beforeUuid;
  const query = listQueryOf(params, null, now);
  await guarded(() => db.events.checkFilters(query.properties));
  const { results, last, following } = await eventPage(db, projectId, query, now);
  return { results, next: last && following ? { before: last.timestamp.toISOString(), beforeUuid: last.uuid } : null };
}

/** One event with its person, or a 404 (absent, or in another project). */
export async function getEvent(db: EventsDb, projectId: number, id: string): Promise<EventResource> {
  const row = await findEventRow(db, projectId, id);
  return eventResource(row, await personsByUuid(db.sql, projectId, [row.person_id]));
}
