/**
 * Keeps the definitions up to date from ingestion without slowing it. Ingestion hands over
 * each request's committed rows; this looks at them in memory only:
 *
 * - a per-project seen-set of event names, (event, property key) pairs and person keys, so a
 *   definition is upserted once per process when first seen, not per event;
 * - per-day counters (events per name, events per property key, person writes per key),
 *   summed in memory.
 *
 * A timer flushes what gathered (at most once a second) as one batched upsert per table,
 * off the acknowledgement path: an event is acknowledged when it is committed, and its
 * definitions follow within the flush interval. Counters lost to a crash only make the
 * 30-day volumes, which are suggestions' ordering, slightly low. Closing the database
 * drains what gathered first, and the upkeep then stops: no timer outlives its database.
 */
import { yieldToRequests } from "@/server/db/chunks";
import type { SqlDriver, SqlExecutor } from "@/server/db/driver";
import { perDatabase } from "@/server/db/per-database";
import { DEFINITION_LIMITS } from "./contract";
import { guessPropertyType } from "./property-type";
import {
  addVolumes,
  insertEventProperties,
  pruneVolumes,
  PROPERTY_TYPE_NUMBER,
  upsertEventDefinitions,
  upsertPropertyDefinitions,
  VOLUME_KIND,
  type EventDefinitionUpsert,
  type EventPropertyRow,
  type PropertyDefinitionUpsert,
  type VolumeKind,
  type VolumeRow,
} from "./store";

/** Keys that carry person updates, not properties of the event (PostHog skips them too). */
const NOT_PROPERTIES = new Set(["$set", "$set_once", "$unset", "$group_set"]);
/** Past this many remembered pairs, a project's seen-set starts over (re-upserts are harmless). */
const MAX_SEEN_PER_PROJECT = 100_000;
const DAY_MS = 86_400_000;
/**
 * Rows per upsert statement: a flush of many new keys (a first batch of a new app, a backfill's
 * counters) goes in several short statements, with requests let in between.
 */
const FLUSH_CHUNK = 500;

async function inChunks<T>(rows: readonly T[], write: (chunk: readonly T[]) => Promise<void>): Promise<void> {
  for (let start = 0; start < rows.length; start += FLUSH_CHUNK) {
    if (start > 0) await yieldToRequests();
    await write(start === 0 && rows.length <= FLUSH_CHUNK ? rows : rows.slice(start, start + FLUSH_CHUNK));
  }
}

export interface ObservedEvent {
  projectId: number;
  event: string;
  properties: Record<string, unknown>;
  timestamp: Date;
}

interface ProjectSeen {
  /** Event name → the property keys seen on it. */
  events: Map<string, Set<string>>;
  /** Property keys whose definition exists with a type (or whose values say none), per type. */
  typed: [Set<string>, Set<string>];
  size: number;
}

/** Per project, per day, per name: uses gathered since the last flush. */
type Counters = Map<number, Map<string, [Map<string, number>, Map<string, number>, Map<string, number>]>>;

export const keepableName = (name: string) => name.length > 0 && name.length <= DEFINITION_LIMITS.maxName && !name.includes("\u0000");

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class DefinitionsUpkeep {
  private seen = new Map<number, ProjectSeen>();
  private eventDefinitions = new Map<string, EventDefinitionUpsert>();
  private propertyDefinitions = new Map<string, PropertyDefinitionUpsert>();
  private eventProperties: EventPropertyRow[] = [];
  private counters: Counters = new Map();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private prunedDay = "";
  private closed = false;

  constructor(
    private readonly sql: SqlExecutor,
    private readonly intervalMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  private seenFor(projectId: number): ProjectSeen {
    let seen = this.seen.get(projectId);
    if (!seen || seen.size > MAX_SEEN_PER_PROJECT) {
      seen = { events: new Map(), typed: [new Set(), new Set()], size: 0 };
      this.seen.set(projectId, seen);
    }
    return seen;
  }

  private countersFor(projectId: number, day: string) {
    let days = this.counters.get(projectId);
    if (!days) this.counters.set(projectId, (days = new Map()));
    let kinds = days.get(day);
    if (!kinds) days.set(day, (kinds = [new Map(), new Map(), new Map()]));
    return kinds;
  }

  /** A property key's definition, upserted when new or still untyped. */
  private noteProperty(projectId: number, seen: ProjectSeen, type: 1 | 2, key: string, value: unknown, at: Date) {
    const typed = seen.typed[type - 1]!;
    if (typed.has(key)) return;
    const propertyType = guessPropertyType(key, value);
    // A null value says nothing yet: look again at the next one.
    if (propertyType !== null || (value !== null && value !== undefined)) {
      typed.add(key);
      seen.size++;
    }
    const id = `${projectId}\u0000${type}\u0000${key}`;
    const pending = this.propertyDefinitions.get(id);
    if (!pending || (pending.propertyType === null && propertyType !== null)) {
      this.propertyDefinitions.set(id, { projectId, type, name: key, propertyType, lastSeenAt: at });
    }
  }

  /** Committed events: O(keys) map lookups each, writes only for what is new. */
  observeEvents(events: readonly ObservedEvent[]): void {
    if (this.closed) return;
    const now = this.now();
    const oldest = now - DEFINITION_LIMITS.volumeDays * DAY_MS;
    const todayStart = now - (now % DAY_MS);
    const today = dayOf(todayStart);
    for (const row of events) {
      if (!keepableName(row.event)) continue;
      const seen = this.seenFor(row.projectId);
      let keys = seen.events.get(row.event);
      const pendingName = `${row.projectId}\u0000${row.event}`;
      const pending = this.eventDefinitions.get(pendingName);
      if (!keys) {
        seen.events.set(row.event, (keys = new Set()));
        seen.size++;
      }
      if (!pending || pending.lastSeenAt < row.timestamp) this.eventDefinitions.set(pendingName, { projectId: row.projectId, name: row.event, lastSeenAt: row.timestamp });

      const ms = row.timestamp.getTime();
      const counted = ms >= oldest && ms <= now + DAY_MS;
      const kinds = counted ? this.countersFor(row.projectId, ms >= todayStart && ms < todayStart + DAY_MS ? today : dayOf(ms)) : null;
      if (kinds) kinds[VOLUME_KIND.event].set(row.event, (kinds[VOLUME_KIND.event].get(row.event) ?? 0) + 1);
      for (const key in row.properties) {
        if (NOT_PROPERTIES.has(key)) continue;
        if (kinds) kinds[VOLUME_KIND.eventProperty].set(key, (kinds[VOLUME_KIND.eventProperty].get(key) ?? 0) + 1);
        if (!keys.has(key)) {
          if (!keepableName(key)) continue;
          keys.add(key);
          seen.size++;
          this.eventProperties.push({ projectId: row.projectId, event: row.event, property: key });
        }
        // Until a value gives the key a type (a first null says nothing), its values are looked at.
        if (!seen.typed[0].has(key)) this.noteProperty(row.projectId, seen, PROPERTY_TYPE_NUMBER.event, key, row.properties[key], row.timestamp);
      }
      // Person properties come with the event ($set, $set_once; identify carries them too).
      const { $set, $set_once } = row.properties;
      if (isRecord($set)) this.observePersonProperties(row.projectId, $set, row.timestamp);
      if (isRecord($set_once)) this.observePersonProperties(row.projectId, $set_once, row.timestamp);
    }
    this.schedule();
  }

  /** A person write's `$set` / `$set_once` keys (identify, any event's `$set`, the persons API). */
  observePersonProperties(projectId: number, properties: Record<string, unknown>, at: Date = new Date(this.now())): void {
    if (this.closed) return;
    const seen = this.seenFor(projectId);
    const kinds = this.countersFor(projectId, dayOf(this.now()));
    for (const key in properties) {
      if (!keepableName(key)) continue;
      kinds[VOLUME_KIND.personProperty].set(key, (kinds[VOLUME_KIND.personProperty].get(key) ?? 0) + 1);
      this.noteProperty(projectId, seen, PROPERTY_TYPE_NUMBER.person, key, properties[key], at);
    }
    this.schedule();
  }

  private schedule() {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.intervalMs);
    this.timer.unref?.();
  }

  /** Writes what gathered; resolves once it (and any flush before it) is written. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const eventDefinitions = [...this.eventDefinitions.values()];
    const propertyDefinitions = this.propertyDefinitions;
    const eventProperties = this.eventProperties;
    const counters = this.counters;
    this.eventDefinitions = new Map();
    this.propertyDefinitions = new Map();
    this.eventProperties = [];
    this.counters = new Map();
    const volumes = volumeRows(counters);
    // Property keys used since the last flush: their last_seen_at moves on (a null type keeps the known one).
    const at = new Date(this.now());
    for (const row of volumes) {
      if (row.kind === VOLUME_KIND.event) continue;
      const type = row.kind === VOLUME_KIND.personProperty ? PROPERTY_TYPE_NUMBER.person : PROPERTY_TYPE_NUMBER.event;
      const id = `${row.projectId}\u0000${type}\u0000${row.name}`;
      if (!propertyDefinitions.has(id)) propertyDefinitions.set(id, { projectId: row.projectId, type, name: row.name, propertyType: null, lastSeenAt: at });
    }
    const write = async () => {
      await inChunks(eventDefinitions, (chunk) => upsertEventDefinitions(this.sql, chunk));
      await inChunks([...propertyDefinitions.values()], (chunk) => upsertPropertyDefinitions(this.sql, chunk));
      await inChunks(eventProperties, (chunk) => insertEventProperties(this.sql, chunk));
      await inChunks(volumes, (chunk) => addVolumes(this.sql, chunk));
      const today = dayOf(this.now());
      if (this.prunedDay !== today) {
        this.prunedDay = today;
        await pruneVolumes(this.sql, dayOf(this.now() - (DEFINITION_LIMITS.volumeDays + 1) * DAY_MS));
      }
    };
    const empty = eventDefinitions.length === 0 && propertyDefinitions.size === 0 && volumes.length === 0;
    this.flushing = this.flushing.then(empty ? () => undefined : write).catch((error: unknown) => {
      // Forget what was seen, so the next events write their definitions again.
      this.seen.clear();
      console.error("definitions: flush failed", error);
    });
    return this.flushing;
  }

  /**
   * Writes what gathered, then stops: later observations are dropped (their database is
   * closing) and no timer is left to run against a closed connection.
   */
  async close(): Promise<void> {
    if (this.closed) return this.flushing;
    await this.flush();
    this.closed = true;
    // A flush that an observation during the drain scheduled.
    await this.flush();
  }

  /** Forgets the in-memory seen-sets (tests; a project's definitions were rebuilt). */
  forget(projectId?: number): void {
    if (projectId === undefined) this.seen.clear();
    else this.seen.delete(projectId);
  }
}

function volumeRows(counters: Counters): VolumeRow[] {
  const rows: VolumeRow[] = [];
  for (const [projectId, days] of counters) {
    for (const [day, kinds] of days) {
      kinds.forEach((names, kind) => {
        for (const [name, count] of names) rows.push({ projectId, kind: kind as VolumeKind, name, day, count });
      });
    }
  }
  return rows;
}

// One per process and database (modules load twice: Next's bundle and the server).
/**
 * The process's upkeep for `sql` (the database's plain SQL driver); closing the driver drains
 * and stops it. Its flushes run on the workers' handle (their own connections on a server).
 */
export const definitionsUpkeep = perDatabase((sql: SqlDriver): DefinitionsUpkeep => {
  const upkeep = new DefinitionsUpkeep(sql.worker.as("definitions"));
  sql.beforeClose(() => upkeep.close());
  return upkeep;
}, "burrow.definitionsUpkeep");
