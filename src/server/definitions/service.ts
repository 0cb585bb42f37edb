/**
 * The definitions domain: the event names and property keys a project has seen, most used
 * first, for PostHog's definitions APIs and every suggestion input. Ingestion keeps them
 * (upkeep.ts); a project whose events predate them is read from the event store once, on its
 * first definitions request (`ensureBackfilled`), whichever store holds the events.
 */
import type { Context } from "@/server/context";
import type { Database } from "@/server/db";
import { DEFINITION_SAMPLE_EVENTS } from "@/server/db/events";
import { perDatabase } from "@/server/db/per-database";
import { AppError } from "@/server/errors";
import { canonicalUuid } from "@/server/events/contract";
import { eventValues } from "@/server/events/service";
import { pageWindow } from "@/server/input/page";
import { personPropertySamplesOf, personPropertyValuesOf } from "@/server/persons/service";
import {
  DEFINITION_LIMITS,
  type DefinitionList,
  type EventDefinitionListQuery,
  type EventDefinitionResource,
  type EventSuggestionsInput,
  type PropertyDefinitionListQuery,
  type PropertyDefinitionResource,
  type PropertySuggestionsInput,
  type PropertyValueSuggestion,
  type PropertyValuesInput,
} from "./contract";
import { eventDefinitionResource, propertyDefinitionResource } from "./present";
import { guessPropertyType } from "./property-type";
import {
  addVolumes,
  findEventDefinition,
  findEventDefinitions,
  findPropertyDefinition,
  findPropertyDefinitions,
  insertEventProperties,
  isBackfilled,
  markBackfilled,
  PROPERTY_TYPE_NUMBER,
  upsertEventDefinitions,
  upsertPropertyDefinitions,
  VOLUME_KIND,
  type EventPropertyRow,
  type PropertyDefinitionUpsert,
  type VolumeRow,
} from "./store";
import { definitionsUpkeep, keepableName } from "./upkeep";

export { DefinitionsUpkeep, definitionsUpkeep, type ObservedEvent } from "./upkeep";

const DAY_MS = 86_400_000;
const WRITE_CHUNK = 5_000;
const DEFAULT_SUGGESTIONS = 20;

/** The first day whose counters make `volume_30_day` (today and the 29 before, UTC). */
function volumeSince(now = Date.now()): string {
  return new Date(now - (DEFINITION_LIMITS.volumeDays - 1) * DAY_MS).toISOString().slice(0, 10);
}

async function inChunks<T>(rows: readonly T[], write: (chunk: T[]) => Promise<void>): Promise<void> {
  for (let start = 0; start < rows.length; start += WRITE_CHUNK) await write(rows.slice(start, start + WRITE_CHUNK));
}

/** The type the samples of one key suggest: the most common typed guess. */
function typeOfSamples(key: string, samples: readonly { sample: unknown; count: number }[]): string | null {
  const votes = new Map<string, number>();
  for (const { sample, count } of samples) {
    const type = guessPropertyType(key, sample);
    if (type) votes.set(type, (votes.get(type) ?? 0) + count);
  }
  return [...votes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

function groupByKey<T extends { key: string }>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    if (!keepableName(row.key)) continue;
    const list = out.get(row.key);
    if (list) list.push(row);
    else out.set(row.key, [row]);
  }
  return out;
}

/** Reads the project's stored events and persons into its definitions (idempotent). */
async function backfill(db: Database, projectId: number): Promise<void> {
  // Counts gathered in memory go in first: the store's counts below replace the days they cover.
  await definitionsUpkeep(db.sql).flush();
  const now = new Date();
  const today = now.toISOString().slice(0, 10);
  const since = volumeSince(now.getTime());

  const days = await db.events.eventNameDays(projectId);
  const names = new Map<string, { first: Date; last: Date }>();
  const volumes: VolumeRow[] = [];
  for (const row of days) {
    if (!keepableName(row.name)) continue;
    const known = names.get(row.name);
    if (!known) names.set(row.name, { first: row.first, last: row.last });
    else {
      if (row.first < known.first) known.first = row.first;
      if (row.last > known.last) known.last = row.last;
    }
    if (row.day >= since && row.day <= today) volumes.push({ projectId, kind: VOLUME_KIND.event, name: row.name, day: row.day, count: row.count });
  }
  await inChunks([...names].map(([name, seen]) => ({ projectId, name, createdAt: seen.first, lastSeenAt: seen.last })), (chunk) => upsertEventDefinitions(db.sql, chunk));

  const samples = (await db.events.propertySamples(projectId, DEFINITION_SAMPLE_EVENTS)).filter((row) => keepableName(row.event) && row.key !== "$set" && row.key !== "$set_once" && row.key !== "$unset");
  const pairs: EventPropertyRow[] = samples.filter((row) => keepableName(row.key)).map((row) => ({ projectId, event: row.event, property: row.key }));
  const unique = new Map(pairs.map((pair) => [`${pair.event}\u0000${pair.property}`, pair]));
  await inChunks([...unique.values()], (chunk) => insertEventProperties(db.sql, chunk));

  const definitions: PropertyDefinitionUpsert[] = [];
  // Without days in the sample, a key's use lands on today: enough to order suggestions until real counts take over.
  for (const [key, rows] of groupByKey(samples)) {
    definitions.push({ projectId, type: PROPERTY_TYPE_NUMBER.event, name: key, propertyType: typeOfSamples(key, rows), lastSeenAt: now });
    volumes.push({ projectId, kind: VOLUME_KIND.eventProperty, name: key, day: today, count: rows.reduce((sum, row) => sum + row.count, 0) });
  }
  for (const [key, rows] of groupByKey(await personPropertySamplesOf(db, projectId))) {
    definitions.push({ projectId, type: PROPERTY_TYPE_NUMBER.person, name: key, propertyType: typeOfSamples(key, rows), lastSeenAt: now });
    volumes.push({ projectId, kind: VOLUME_KIND.personProperty, name: key, day: today, count: rows.reduce((sum, row) => sum + row.count, 0) });
  }
  await inChunks(definitions, (chunk) => upsertPropertyDefinitions(db.sql, chunk));
  await inChunks(volumes, (chunk) => addVolumes(db.sql, chunk, { replace: true }));
  await markBackfilled(db.sql, projectId);
}

const backfills = perDatabase((_: Database["sql"]) => new Map<number, Promise<void>>(), "burrow.definitionBackfills");

/** Backfills the project once (per database, across requests that arrive together). */
export function ensureBackfilled(db: Database, projectId: number): Promise<void> {
  const running = backfills(db.sql);
  const key = projectId;
  const known = running.get(key);
  if (known) return known;
  const work = (async () => {
    if (!(await isBackfilled(db.sql, projectId))) await backfill(db, projectId);
  })();
  running.set(key, work);
  // A failure is retried by the next request; a success stays remembered.
  work.catch(() => running.delete(key));
  return work;
}

const searchOf = (text: string | undefined) => (text === undefined || text === "" ? null : text);

export async function listEventDefinitions(ctx: Context, query: EventDefinitionListQuery): Promise<DefinitionList<EventDefinitionResource>> {
  await ensureBackfilled(ctx.db, ctx.project.id);
  const { take, skip } = pageWindow(query);
  const { count, rows } = await findEventDefinitions(ctx.db.sql, { projectId: ctx.project.id, search: searchOf(query.search), since: volumeSince(), take, skip });
  return { count, results: rows.map(eventDefinitionResource) };
}

const notFound = () => new AppError("not_found", "Not found.");

export async function getEventDefinition(ctx: Context, id: string): Promise<EventDefinitionResource> {
  const uuid = canonicalUuid(id);
  if (!uuid) throw notFound();
  await ensureBackfilled(ctx.db, ctx.project.id);
  const row = await findEventDefinition(ctx.db.sql, ctx.project.id, uuid, volumeSince());
  if (!row) throw notFound();
  return eventDefinitionResource(row);
}

export async function listPropertyDefinitions(ctx: Context, query: PropertyDefinitionListQuery): Promise<DefinitionList<PropertyDefinitionResource>> {
  await ensureBackfilled(ctx.db, ctx.project.id);
  const { take, skip } = pageWindow(query);
  const eventNames = query.event_names && query.event_names.length > 0 ? query.event_names : null;
  const names = query.properties === undefined ? null : query.properties.split(",").map((name) => name.trim()).filter((name) => name !== "");
  const { count, rows } = await findPropertyDefinitions(ctx.db.sql, {
    projectId: ctx.project.id,
    search: searchOf(query.search),
    since: volumeSince(),
    take,
    skip,
    type: PROPERTY_TYPE_NUMBER[query.type],
    eventNames,
    onlyEvents: query.filter_by_event_names === true,
    isNumerical: query.is_numerical ?? null,
    names,
  });
  return { count, results: rows.map(propertyDefinitionResource) };
}

export async function getPropertyDefinition(ctx: Context, id: string): Promise<PropertyDefinitionResource> {
  const uuid = canonicalUuid(id);
  if (!uuid) throw notFound();
  await ensureBackfilled(ctx.db, ctx.project.id);
  const row = await findPropertyDefinition(ctx.db.sql, ctx.project.id, uuid, volumeSince());
  if (!row) throw notFound();
  return propertyDefinitionResource(row);
}

/** Event names for a suggestion list: contains `search`, most used first. */
export async function suggestEvents(ctx: Context, input: EventSuggestionsInput): Promise<EventDefinitionResource[]> {
  return (await listEventDefinitions(ctx, { search: input.search, limit: input.limit ?? DEFAULT_SUGGESTIONS, offset: 0 })).results;
}

/** Property keys for a suggestion list: those seen on `eventNames` first, then most used. */
export async function suggestProperties(ctx: Context, input: PropertySuggestionsInput): Promise<PropertyDefinitionResource[]> {
  const query: PropertyDefinitionListQuery = { search: input.search, type: input.type, limit: input.limit ?? DEFAULT_SUGGESTIONS, offset: 0 };
  if (input.type === "event" && input.eventNames && input.eventNames.length > 0) query.event_names = input.eventNames;
  return (await listPropertyDefinitions(ctx, query)).results;
}

/**
 * A property's values for a suggestion list, most frequent first: event properties through
 * the events `values` API (values starting with `search`, ignoring case, as that API reads
 * `value`), person properties from the persons (values containing `search`).
 */
export async function suggestPropertyValues(ctx: Context, input: PropertyValuesInput): Promise<PropertyValueSuggestion[]> {
  const search = searchOf(input.search);
  if (input.type === "person") {
    return (await personPropertyValuesOf(ctx, input.key, search, 50)).map(({ value, count }) => ({ name: value, count }));
  }
  return eventValues(ctx, { key: input.key, prefix: search, eventName: input.eventName ?? null });
}
