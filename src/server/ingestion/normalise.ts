import { validate as isUuid } from "uuid";
import { storableText } from "@/server/properties/coerce";
import { newEventUuid } from "./event-uuid";
import { MAX_DISTINCT_ID_LENGTH, MAX_EVENT_NAME_LENGTH, type EventProblem, type IngestEvent, type RawEvent } from "./contract";
import { isObject } from "@/server/input/json-object";

const FUTURE_TOLERANCE_MS = 23 * 60 * 60 * 1000;

/** Deepest accepted nesting of an event's properties (deeper JSON overflows JSON.stringify). */
export const MAX_PROPERTY_DEPTH = 1000;

class TooDeep extends Error {}

/**
 * A JSON value with storable text throughout (storableText): the value itself when nothing
 * in it needs cleaning, as almost every event's properties, else a copy. Throws TooDeep
 * past MAX_PROPERTY_DEPTH.
 */
function storableJson(value: unknown, depth: number): unknown {
  if (typeof value === "string") return storableText(value);
  return needsCleaning(value, depth) ? cleanCopy(value as object, depth) : value;
}

/** Whether a JSON value holds text to clean, in a key or a value; throws TooDeep past MAX_PROPERTY_DEPTH. */
function needsCleaning(value: unknown, depth: number): boolean {
  if (typeof value === "string") return storableText(value) !== value;
  if (typeof value !== "object" || value === null) return false;
  if (depth >= MAX_PROPERTY_DEPTH) throw new TooDeep();
  if (Array.isArray(value)) {
    for (const item of value) if (needsCleaning(item, depth + 1)) return true;
    return false;
  }
  for (const key of Object.keys(value)) {
    if (storableText(key) !== key || needsCleaning((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

function cleanCopy(value: object, depth: number): unknown {
  if (Array.isArray(value)) return value.map((item) => storableJson(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a "__proto__" key from JSON.parse stays an ordinary property.
    Object.defineProperty(out, storableText(key), { value: storableJson(item, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The stored top level of an event's properties: a copy (the pipeline adds to it) with
 * storable keys and values, without `token`, the project key posthog-js sends in every
 * event. The rest-destructuring copy keeps V8's fast object layout; deleting a key, or
 * building a copy key by key, would not, and every later step pays for that.
 */
function storableProperties(given: Record<string, unknown>): Record<string, unknown> {
  const { token: _token, ...properties } = needsCleaning(given, 0) ? (cleanCopy(given, 0) as Record<string, unknown>) : given;
  return properties;
}

/** distinct_id, else $distinct_id, else properties.distinct_id; numbers become strings. */
function distinctIdOf(raw: RawEvent, properties: Record<string, unknown>): string | null {
  for (const candidate of [raw.distinct_id, raw.$distinct_id, properties.distinct_id]) {
    if (candidate === undefined || candidate === null) continue;
    if (typeof candidate === "string") return candidate.trim() === "" ? null : candidate;
    if (typeof candidate === "number" || typeof candidate === "boolean") return String(candidate);
    try {
      return JSON.stringify(candidate);
    } catch {
      return null; // nested too deeply to stringify
    }
  }
  return null;
}

/** A date the database can store: years 1–9999 (PostgreSQL has no year 0; `toISOString` writes others as ±YYYYYY). */
function isStorable(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
}

function parseDate(value: unknown): Date | null {
  let date: Date;
  if (typeof value === "number") date = new Date(value);
  else if (typeof value === "string" && value.trim() !== "") date = new Date(value);
  else return null;
  return isStorable(date) ? date : null;
}

/**
 * PostHog's timestamp rules: `offset` (ms before receipt) wins; else a `timestamp` is
 * corrected for the client's clock skew using `sent_at` (`now + (timestamp - sent_at)`,
 * unless `$ignore_sent_at`); else now. More than 23 h in the future becomes now.
 */
export function eventTimestamp(
  raw: RawEvent,
  properties: Record<string, unknown>,
  sentAt: Date | null,
  now: Date,
): Date {
  let ts: Date | null = null;
  if (typeof raw.offset === "number" && Number.isFinite(raw.offset)) {
    ts = new Date(now.getTime() - raw.offset);
  } else {
    const given = parseDate(raw.timestamp);
    if (given && sentAt && !properties.$ignore_sent_at) ts = new Date(now.getTime() + (given.getTime() - sentAt.getTime()));
    else ts = given;
  }
  if (!ts || !isStorable(ts) || ts.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) return now;
  return ts;
}

export interface NormaliseContext {
  now: Date;
  sentAt: Date | null;
  ip: string | null;
  historicalMigration: boolean;
  /** What a missing event name means on this path (`/engage/` sends person updates). */
  defaultEvent: string | null;
}

/**
 * Validates one event and brings it into the stored shape, or says why it cannot be
 * stored. Top-level `$set`/`$set_once` move into properties, as PostHog does.
 */
export function normaliseEvent(raw: RawEvent, index: number, context: NormaliseContext): IngestEvent | EventProblem {
  if (raw.properties !== undefined && raw.properties !== null && !isObject(raw.properties)) {
    return { index, detail: `Event ${index}: properties must be an object.` };
  }
  let properties: Record<string, unknown>;
  try {
    properties = storableProperties(isObject(raw.properties) ? raw.properties : {});
    for (const key of ["$set", "$set_once"] as const) {
      const given = raw[key];
      if (isObject(given)) properties[key] = storableJson({ ...(isObject(properties[key]) ? properties[key] : {}), ...given }, 1);
    }
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    return { index, detail: `Event ${index}: properties are nested more than ${MAX_PROPERTY_DEPTH} levels deep.` };
  }
  const name = raw.event ?? context.defaultEvent;
  if (typeof name !== "string" || name.trim() === "") {
    return { index, detail: `Event ${index}: 'event' is required and must be a non-empty string.` };
  }
  const event = storableText(name);
  if (event.length > MAX_EVENT_NAME_LENGTH) {
    return { index, detail: `Event ${index}: the event name is longer than ${MAX_EVENT_NAME_LENGTH} characters.` };
  }
  const given = distinctIdOf(raw, properties);
  const distinctId = given === null ? null : storableText(given);
  if (distinctId === null) return { index, detail: `Event ${index}: 'distinct_id' is required.` };
  if (distinctId.length > MAX_DISTINCT_ID_LENGTH) {
    return { index, detail: `Event ${index}: distinct_id is longer than ${MAX_DISTINCT_ID_LENGTH} characters.` };
  }
  if (context.historicalMigration && parseDate(raw.timestamp) === null) {
    return { index, detail: `Event ${index}: historical migrations need an ISO 8601 'timestamp' on every event.` };
  }
  if (properties.$ip === undefined && context.ip) properties.$ip = context.ip;
  return {
    uuid: typeof raw.uuid === "string" && isUuid(raw.uuid) ? raw.uuid.toLowerCase() : newEventUuid(),
    event,
    distinctId,
    properties,
    // Historical imports keep the time they say: no skew correction against sent_at.
    timestamp: context.historicalMigration
      ? (parseDate(raw.timestamp) ?? context.now)
      : eventTimestamp(raw, properties, context.sentAt, context.now),
    historicalMigration: context.historicalMigration,
  };
}

export const isProblem = (value: IngestEvent | EventProblem): value is EventProblem => "detail" in value;
