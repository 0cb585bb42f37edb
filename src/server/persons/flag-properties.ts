/**
 * Stored person properties for flag evaluation (/decide, /flags): the hottest read of persons.
 *
 * - Lookups are batched: those asked for while a batch query runs are gathered and sent as
 *   the next query (`distinct_id = ANY(…)`), so under load each request shares one round trip
 *   with the others; an idle server sends each lookup at the end of the event-loop turn it
 *   arrived in (so the requests whose bytes arrived together share it).
 * - On the embedded database, where this process makes every write, the answers are kept in
 *   memory: every project's persons are loaded before the server says it is ready (`warm`),
 *   and the persons writes of this process mark what they change (`touch`, after they commit),
 *   so a flag request never waits for the one connection that an insert or a worker holds.
 *   A lookup of a marked entry, or of a project that did not fit, goes to the database.
 * - On PostgreSQL, other nodes write persons too: every lookup asks the database (batched).
 *
 * Memory is bounded: past MAX_ENTRIES distinct ids the largest project is dropped from memory
 * (its lookups go to the database). Properties are kept as JSON text (a fifth of the parsed
 * size) and parsed for each caller, who gets its own copy.
 */
import type { SqlDriver, SqlExecutor } from "@/server/db/driver";
import { nextProjectWithPersons, personPropertiesByDistinctId, personPropertiesPage } from "./store";
import { perDatabase } from "@/server/db/per-database";

type Properties = Record<string, unknown>;

/** Enough to keep one statement small; more waiting lookups go in the next batch. */
const MAX_BATCH = 500;
/** Persons per statement while warming: a few milliseconds of the embedded connection each. */
const WARM_CHUNK = 2_000;
/** Distinct ids kept in memory in all (about 300 bytes each with a typical person). */
const MAX_ENTRIES = 500_000;

/** A person's properties as JSON text; null once a write made them stale. */
interface Slot {
  json: string | null;
}
/** Known to have no person. */
const NONE = Symbol("none");
/** Changed by a write since it was read: ask the database. */
const STALE = Symbol("stale");
type Entry = Slot | typeof NONE | typeof STALE;

interface ProjectIndex {
  /** Every person of the project is in `byDistinctId` (an id missing there has no person). */
  complete: boolean;
  byDistinctId: Map<string, Entry>;
  byPersonId: Map<number, Slot>;
}

interface Waiting {
  distinctId: string;
  resolve(properties: Properties | null): void;
  reject(error: unknown): void;
}

interface Row {
  distinct_id: string;
  person_id: number;
  properties: string;
}

function copyOf(json: string): Properties {
  return JSON.parse(json) as Properties;
}

export class FlagPersonProperties {
  private readonly queues = new Map<number, Waiting[]>();
  private readonly projects = new Map<number, ProjectIndex>();
  private entries = 0;
  /** Reads under way, and what writes touched while they ran: their answers for those are not kept. */
  private reading = 0;
  private readonly touchedWhileReading = new Set<string>();

  constructor(
    private readonly sql: SqlExecutor,
    /** Keep answers in memory: only where this process makes every persons write. */
    readonly indexed: boolean,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** The properties of the person behind `distinctId` (a copy the caller may change), or null when there is none. */
  get(projectId: number, distinctId: string): Promise<Properties | null> {
    const project = this.indexed ? this.projects.get(projectId) : undefined;
    if (project) {
      const entry = project.byDistinctId.get(distinctId);
      if (entry === NONE || (entry === undefined && project.complete)) return Promise.resolve(null);
      if (entry !== undefined && entry !== STALE && entry.json !== null) return Promise.resolve(copyOf(entry.json));
    }
    return this.fromDatabase(projectId, distinctId);
  }

  /**
   * Marks what a persons write changed, once it committed: the persons whose properties
   * changed or who are gone, and the distinct ids that were added, moved or removed.
   */
  touch(projectId: number, change: { personIds?: readonly number[]; distinctIds?: readonly string[] }): void {
    if (!this.indexed) return;
    if (this.reading > 0) {
      for (const id of change.personIds ?? []) this.touchedWhileReading.add(`${projectId}:p:${id}`);
      for (const id of change.distinctIds ?? []) this.touchedWhileReading.add(`${projectId}:d:${id}`);
    }
    const project = this.projects.get(projectId);
    if (!project) return;
    for (const id of change.personIds ?? []) {
      const slot = project.byPersonId.get(id);
      if (slot) {
        slot.json = null;
        project.byPersonId.delete(id);
      }
    }
    for (const id of change.distinctIds ?? []) {
      if (!project.byDistinctId.has(id)) this.entries++;
      project.byDistinctId.set(id, STALE);
    }
    this.keepWithinBound();
  }

  /**
   * Loads every person of every project (embedded database only), a chunk per statement with
   * the event loop free in between. Resolves once done: the server says ready after it.
   */
  async warm(): Promise<void> {
    if (!this.indexed) return;
    for (let projectId = await nextProjectWithPersons(this.sql, 0); projectId !== null; projectId = await nextProjectWithPersons(this.sql, projectId)) {
      if (this.projects.get(projectId)?.complete) continue;
      let after = 0;
      let complete = true;
      for (;;) {
        const rows = await this.read(
          () => personPropertiesPage(this.sql, projectId, after, WARM_CHUNK),
          (found) => this.keep(projectId, found),
        );
        if (rows.length === 0) break;
        after = rows[rows.length - 1]!.person_id;
        if (!this.projects.has(projectId)) {
          complete = false; // dropped: over the bound
          break;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      const project = this.projects.get(projectId);
      if (project && complete) project.complete = true;
    }
  }

  private project(projectId: number): ProjectIndex {
    let project = this.projects.get(projectId);
    if (!project) {
      project = { complete: false, byDistinctId: new Map(), byPersonId: new Map() };
      this.projects.set(projectId, project);
    }
    return project;
  }

  /** Runs a read and keeps what it found, but not what writes touched meanwhile (see keep). */
  private async read(query: () => Promise<Row[]>, keep: (rows: Row[]) => void): Promise<Row[]> {
    this.reading++;
    try {
      const rows = await query();
      keep(rows);
      return rows;
    } finally {
      if (--this.reading === 0) this.touchedWhileReading.clear();
    }
  }

  /** Keeps what a read found, except what a write touched while it ran (that stays for the next read). */
  private keep(projectId: number, rows: readonly Row[], missing: readonly string[] = []): void {
    const project = this.project(projectId);
    const touched = this.touchedWhileReading;
    for (const row of rows) {
      if (touched.has(`${projectId}:d:${row.distinct_id}`) || touched.has(`${projectId}:p:${row.person_id}`)) continue;
      let slot = project.byPersonId.get(row.person_id);
      if (!slot) {
        slot = { json: row.properties };
        project.byPersonId.set(row.person_id, slot);
      } else slot.json = row.properties;
      if (!project.byDistinctId.has(row.distinct_id)) this.entries++;
      project.byDistinctId.set(row.distinct_id, slot);
    }
    for (const id of missing) {
      if (touched.has(`${projectId}:d:${id}`)) continue;
      if (project.complete) {
        if (project.byDistinctId.delete(id)) this.entries--;
      } else {
        if (!project.byDistinctId.has(id)) this.entries++;
        project.byDistinctId.set(id, NONE);
      }
    }
    this.keepWithinBound();
  }

  /** Over the bound, the largest project goes: its lookups ask the database from then on. */
  private keepWithinBound(): void {
    while (this.entries > this.maxEntries && this.projects.size > 0) {
      let largest: [number, ProjectIndex] | null = null;
      for (const entry of this.projects) if (!largest || entry[1].byDistinctId.size > largest[1].byDistinctId.size) largest = entry;
      this.entries -= largest![1].byDistinctId.size;
      this.projects.delete(largest![0]);
    }
  }

  private fromDatabase(projectId: number, distinctId: string): Promise<Properties | null> {
    let queue = this.queues.get(projectId);
    const promise = new Promise<Properties | null>((resolve, reject) => {
      if (!queue) {
        queue = [];
        this.queues.set(projectId, queue);
        // Start at the end of this round of the event loop (see the module comment).
        setImmediate(() => void this.drain(projectId, queue!));
      }
      queue.push({ distinctId, resolve, reject });
    });
    return promise;
  }

  private async drain(projectId: number, queue: Waiting[]): Promise<void> {
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, MAX_BATCH);
        try {
          const ids = [...new Set(batch.map((entry) => entry.distinctId))];
          const rows = await this.read(
            () => personPropertiesByDistinctId(this.sql, projectId, ids),
            (found) => {
              if (!this.indexed) return;
              const present = new Set(found.map((row) => row.distinct_id));
              this.keep(projectId, found, ids.filter((id) => !present.has(id)));
            },
          );
          const found = new Map(rows.map((row) => [row.distinct_id, row.properties]));
          for (const entry of batch) {
            const json = found.get(entry.distinctId);
            entry.resolve(json === undefined ? null : copyOf(json));
          }
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.queues.delete(projectId);
    }
  }
}

// One per database (tests open several in one process), shared by both copies of this module
// (Next's bundle, where the management API writes persons, and the server's, where /decide reads).
export const flagPersonProperties = perDatabase((sql: SqlDriver) => new FlagPersonProperties(sql, sql.embedded), "burrow.flagPersonProperties");
