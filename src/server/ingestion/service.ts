/**
 * The ingestion domain's service: the pipeline one capture request goes through (shape →
 * project → validate and normalise → transformations → persons and groups → durable write)
 * and the process's long-lived parts it runs on (project key cache, persons, groups, the
 * group-commit writer). HTTP (CORS, client IP, body decoding, responses) is the edge's:
 * `http/capture.ts` and `http/body/`.
 */
import { CAPTURE_MISSING_PROJECT_KEY, INVALID_PROJECT_KEY } from "@/server/accounts/contract";
import type { Database } from "@/server/db";
import { TimeSlice } from "@/server/event-loop";
import type { StoredEventInput } from "@/server/db/events";
import { TEST_EVENT } from "@/server/db/events/test-event";
import { definitionsUpkeep, type DefinitionsUpkeep } from "@/server/definitions/service";
import { GroupsService } from "@/server/groups/service";
import { PersonsService, propertyUpdateOf } from "@/server/persons/identity";
import {
  batchBodySchema,
  IngestionError,
  invalidPayload,
  rawEventSchema,
  type DecodedRequest,
  type EventProblem,
  type IngestEvent,
  type RawEvent,
  type TransformChain,
  type TransformationsFor,
} from "./contract";
import { isProblem, normaliseEvent } from "./normalise";
import { Enricher } from "./enrich";
import { ProjectKeyCache, type IngestProject } from "./store";
import { destinationsFor, kickDestinationWorker } from "@/server/destinations/service";
import { EventWriter } from "./writer";
import { isObject } from "@/server/input/json-object";
import { perDatabase } from "@/server/db/per-database";

/** The user-agent parser enrichment uses, for the user-agent transformation. */
export { userAgentProperties } from "./enrich";
/** Ingestion's normalisation, for transformations' dry runs (the same rules as capture). */
export { isProblem, normaliseEvent } from "./normalise";
export type { IngestProject } from "./store";

// One per database, shared by capture and the SDK endpoints (/decide, /flags, remote config),
// and by both copies of this module (Next's bundle and the server's).
const projectKeyCaches = perDatabase((prisma: Database["prisma"]) => new ProjectKeyCache(prisma), "burrow.projectKeys");
const projectKeys = (db: Database) => projectKeyCaches(db.prisma);

/** The project a public key (`phc_…`) belongs to, from memory (store.ts ProjectKeyCache), or null. */
export function projectByKey(db: Database, token: string): Promise<IngestProject | null> {
  return projectKeys(db).lookup(token);
}

/** Before the server says ready: every project's key in memory. */
export function warmProjectKeys(db: Database): Promise<void> {
  return projectKeys(db).warm();
}

export interface IngestionServices {
  db: Database;
  projects: ProjectKeyCache;
  persons: PersonsService;
  groups: GroupsService;
  writer: EventWriter;
  /** Event and property definitions, kept from committed events in memory and flushed in batches. */
  definitions: DefinitionsUpkeep;
}

// One set per process (modules load twice: Next's bundle and the server), bound to the
// process's database.
const KEY = Symbol.for("burrow.ingestionServices");
type Holder = { [KEY]?: IngestionServices };

export function ingestionServices(db: Database): IngestionServices {
  const holder = globalThis as Holder;
  const existing = holder[KEY];
  if (existing && existing.db === db) return existing;
  const services = createIngestionServices(db);
  holder[KEY] = services;
  return services;
}

export function createIngestionServices(db: Database): IngestionServices {
  const writer = new EventWriter(db.events);
  // Events resolved to a person before it was merged away, and written while the merge ran,
  // still name the old person: once those writes are in, move them too.
  const afterMerge = async (projectId: number, sourceUuid: string, targetUuid: string) => {
    await writer.settled();
    await db.events.reassignPerson(projectId, sourceUuid, targetUuid);
  };
  return {
    db,
    projects: projectKeys(db),
    persons: new PersonsService(db.sql, db.events, afterMerge, db.changes),
    groups: new GroupsService(db.sql),
    writer,
    definitions: definitionsUpkeep(db.sql),
  };
}

/** Waits for the event writer to finish (graceful shutdown). */
export async function drainIngestion(): Promise<void> {
  const services = (globalThis as Holder)[KEY];
  await services?.writer.drain();
  await services?.definitions.flush();
}

/** Events handed to a transformation chain at once: a slice of the thread holds many of these. */
const TRANSFORM_CHUNK = 500;
/** Events handed to the definitions upkeep between two looks at the time slice (~1 ms of work). */
const OBSERVED_PER_SLICE_CHECK = 100;

const emptyChain: TransformChain = { configIds: [], run: (events) => events };
export const noTransformations: TransformationsFor = async () => emptyChain;

export interface RequestInfo {
  path: "capture" | "batch" | "engage";
  ip: string | null;
  /** The request's User-Agent header. */
  userAgent?: string | null;
  now: Date;
}

export interface IngestResult {
  stored: number;
  /** Events left out, by index, with the reason. */
  dropped: EventProblem[];
}

interface Envelope {
  events: unknown[];
  token: unknown;
  sentAt: Date | null;
  historicalMigration: boolean;
}

/** The three body shapes: `{batch: [...]}`, a bare array, or one event. */
function envelopeOf(decoded: DecodedRequest): Envelope {
  const { payload } = decoded;
  const batch = batchBodySchema.safeParse(payload);
  if (batch.success) {
    const sentAt = typeof batch.data.sent_at === "string" ? new Date(batch.data.sent_at) : null;
    return {
      events: batch.data.batch,
      token: batch.data.api_key ?? batch.data.token ?? decoded.formToken,
      sentAt: sentAt && !Number.isNaN(sentAt.getTime()) ? sentAt : decoded.querySentAt,
      historicalMigration: batch.data.historical_migration === true,
    };
  }
  if (Array.isArray(payload)) return { events: payload, token: decoded.formToken, sentAt: decoded.querySentAt, historicalMigration: false };
  if (isObject(payload)) {
    if ("batch" in payload) throw invalidPayload("Malformed request data: 'batch' must be an array of events.");
    return { events: [payload], token: decoded.formToken, sentAt: decoded.querySentAt, historicalMigration: false };
  }
  throw invalidPayload("Malformed request data: expected an event, an array of events or a {batch: [...]} object.");
}

function tokenOfEvent(event: RawEvent): unknown {
  const properties = isObject(event.properties) ? event.properties : {};
  return event.api_key ?? event.token ?? event.$token ?? properties.token;
}

/** The project key: the body's, else every event's own, which must then agree (PostHog's rule). */
function projectToken(envelope: Envelope, events: RawEvent[]): string {
  let token = envelope.token;
  if (token === undefined || token === null) {
    const tokens = new Set(events.map(tokenOfEvent).filter((t) => t !== undefined && t !== null));
    if (tokens.size > 1) throw new IngestionError(401, "invalid_api_key", "The batch was submitted with inconsistent api_key values.");
    token = [...tokens][0];
  }
  if (typeof token !== "string" || token.trim() === "") {
    throw new IngestionError(401, "missing_api_key", CAPTURE_MISSING_PROJECT_KEY);
  }
  const trimmed = token.trim();
  // PostHog's other token checks; they also keep text the database rejects (NUL) out of the lookup.
  if (trimmed.length > 64) throw new IngestionError(401, "invalid_api_key", "API key is not valid: it is longer than 64 characters.");
  if (trimmed.includes("\u0000")) throw new IngestionError(401, "invalid_api_key", "API key is not valid: it contains a NUL character.");
  if (!/^[\x00-\x7f]*$/.test(trimmed)) throw new IngestionError(401, "invalid_api_key", "API key is not valid: it is not ASCII.");
  if (trimmed.startsWith("phx_")) {
    throw new IngestionError(401, "invalid_api_key", "API key is not valid: this is a personal API key; capture takes the project API key (phc_…).");
  }
  return trimmed;
}

/** The other distinct id that an `$identify`, `$create_alias` or `$merge_dangerously` puts on the event's person, or null. */
function linkOf(event: IngestEvent): { otherId: string; force: boolean } | null {
  const p = event.properties;
  if (event.event === "$identify" && typeof p.$anon_distinct_id === "string" && p.$anon_distinct_id !== "") return { otherId: p.$anon_distinct_id, force: false };
  if ((event.event === "$create_alias" || event.event === "$merge_dangerously") && typeof p.alias === "string" && p.alias !== "") {
    return { otherId: p.alias, force: event.event === "$merge_dangerously" };
  }
  return null;
}

/**
 * The distinct ids of `events` that only plain events name (no identify, alias or merge of
 * the batch names them on either side), with their first event's time: the ids whose new
 * persons can all be made at once before the events resolve one by one.
 */
function plainFirstSeen(events: readonly IngestEvent[]): Map<string, Date> {
  const first = new Map<string, Date>();
  const linked = new Set<string>();
  for (const event of events) {
    if (event.event === TEST_EVENT) continue;
    const link = linkOf(event);
    if (link) {
      linked.add(event.distinctId);
      linked.add(link.otherId);
    } else if (!first.has(event.distinctId)) first.set(event.distinctId, event.timestamp);
  }
  for (const id of linked) first.delete(id);
  return first;
}

/** Identify, alias, merge and group events change persons and groups; all may set properties. */
async function applyPersonsAndGroups(services: IngestionServices, projectId: number, event: IngestEvent): Promise<string> {
  const { persons, groups } = services;
  const p = event.properties;
  if (event.event === "$groupidentify" || event.event === "$group_identify") {
    if (typeof p.$group_type === "string" && p.$group_key !== undefined && p.$group_key !== null) {
      const key = typeof p.$group_key === "string" ? p.$group_key : JSON.stringify(p.$group_key);
      await groups.identifyGroup(projectId, p.$group_type, key, isObject(p.$group_set) ? p.$group_set : {});
    }
  }
  const link = linkOf(event);
  const person = link
    ? await persons.link(projectId, event.distinctId, link.otherId, { force: link.force, at: event.timestamp })
    : await persons.resolve(projectId, event.distinctId, event.timestamp);
  const updated = await persons.updateProperties(projectId, event.distinctId, person, propertyUpdateOf(p), event.event === "$identify");
  return updated.uuid;
}

/** GeoIP and user-agent properties, unless the project turned enrichment off (enrich.ts). */
async function enrichEvents(project: IngestProject, events: IngestEvent[], info: RequestInfo, slice: TimeSlice): Promise<void> {
  if (!project.enrichEvents) return;
  const enricher = new Enricher({ geoIp: !project.anonymizeIps, userAgent: info.userAgent ?? null });
  for (const event of events) {
    enricher.enrich(event);
    await slice.pace();
  }
}

/** The chain over a request's events, a chunk at a time, letting other requests in between. */
async function runInSlices(chain: TransformChain, events: IngestEvent[], slice: TimeSlice): Promise<IngestEvent[]> {
  if (chain.configIds.length === 0) return events;
  const kept: IngestEvent[] = [];
  for (let start = 0; start < events.length; start += TRANSFORM_CHUNK) {
    for (const event of chain.run(events.slice(start, start + TRANSFORM_CHUNK))) kept.push(event);
    await slice.pace();
  }
  return kept;
}

/**
 * The ingestion pipeline for one request: shape → project → validate and normalise →
 * transformations → persons and groups → durable write. Resolves only after the events
 * are committed; the caller acknowledges then.
 */
export async function ingestDecoded(
  services: IngestionServices,
  decoded: DecodedRequest,
  info: RequestInfo,
  transformationsFor: TransformationsFor = noTransformations,
): Promise<IngestResult> {
  const envelope = envelopeOf(decoded);
  if (envelope.events.length === 0) throw invalidPayload("The request holds no event.");
  // Every loop over the events shares the thread: a batch of 100,000 must not hold other requests.
  const slice = new TimeSlice();
  const raws: (RawEvent | null)[] = [];
  for (const e of envelope.events) {
    const parsed = rawEventSchema.safeParse(e);
    raws.push(parsed.success ? parsed.data : null);
    await slice.pace();
  }
  const token = projectToken(envelope, raws.filter((r): r is RawEvent => r !== null));
  const project = await services.projects.lookup(token);
  if (!project) throw new IngestionError(401, "invalid_api_key", INVALID_PROJECT_KEY);

  const context = {
    now: info.now,
    sentAt: envelope.sentAt,
    ip: project.anonymizeIps ? null : info.ip,
    // Honoured on any batch-shaped body, as PostHog does; never on single events.
    historicalMigration: envelope.historicalMigration,
    defaultEvent: info.path === "engage" ? "$identify" : null,
  };
  const dropped: EventProblem[] = [];
  const events: IngestEvent[] = [];
  for (const [index, raw] of raws.entries()) {
    const result = raw ? normaliseEvent(raw, index, context) : { index, detail: `Event ${index}: must be a JSON object.` };
    if (isProblem(result)) dropped.push(result);
    else events.push(result);
    await slice.pace();
  }
  if (events.length === 0) throw invalidPayload(dropped.map((d) => d.detail).join(" "));
  await enrichEvents(project, events, info, slice);

  const transformed = await runInSlices(await transformationsFor(project.id), events, slice);
  await services.persons.prefetch(project.id, transformed.map((event) => event.distinctId));
  await services.persons.createAbsent(project.id, plainFirstSeen(transformed));
  const rows: StoredEventInput[] = [];
  for (const event of transformed) {
    // PostHog drops even a client-sent $ip for projects that anonymise IPs (after transformations).
    if (project.anonymizeIps) delete event.properties.$ip;
    // "Send a test event" makes no person (db/events/test-event.ts).
    const personId = event.event === TEST_EVENT ? null : await applyPersonsAndGroups(services, project.id, event);
    rows.push({
      uuid: event.uuid,
      projectId: project.id,
      event: event.event,
      distinctId: event.distinctId,
      properties: event.properties,
      timestamp: event.timestamp,
      personId,
      historicalMigration: event.historicalMigration,
    });
    // Known persons answer from memory without a macrotask; new ones are PGlite queries on this thread.
    await slice.pace();
  }
  // A merge later in this batch (or in a concurrent request) may have removed a person that
  // earlier rows were resolved to: write them with the surviving person.
  for (const row of rows) if (row.personId) row.personId = services.persons.currentUuid(row.personId);
  // Destinations that want an event get its outbox row in the events' own write.
  const routed = await destinationsFor(services.db, project.id, rows);
  if (routed) for (const [i, row] of rows.entries()) row.destinations = routed[i];
  await services.writer.write(rows);
  // While capture is saturated, deliveries step back.
  if (routed?.some(Boolean)) kickDestinationWorker({ routed: true, saturated: services.writer.saturated });
  // Definitions look at every key of every event: a large batch lets other requests in between.
  if (rows.length <= OBSERVED_PER_SLICE_CHECK) services.definitions.observeEvents(rows);
  else {
    for (let from = 0; from < rows.length; from += OBSERVED_PER_SLICE_CHECK) {
      services.definitions.observeEvents(rows.slice(from, from + OBSERVED_PER_SLICE_CHECK));
      await slice.pace();
    }
  }
  return { stored: rows.length, dropped };
}
