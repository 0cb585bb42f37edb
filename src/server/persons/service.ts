import { changesBetween, logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db";
import { ALL_KEYS, type ChangeFeed } from "@/server/db/changes";
import type { SqlDriver } from "@/server/db/driver";
import type { EventStore } from "@/server/db/events";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { canonicalUuid } from "@/server/events/contract";
import type { BulkDeleteInput, PersonCohort, PersonDeletionStatus, PersonKey, PersonListInput, PersonUpdateBody } from "./contract";
import { personDisplayName, presentPerson, presentPersonListItem, type PersonListItem, type PersonResource, type PersonRow } from "./present";
import {
  addDeletedEvents,
  addDistinctId,
  cohortsOfPerson,
  createPerson,
  deletePersonRows,
  failDeletion,
  findPerson,
  findPersonByDistinctId,
  findPersonPage,
  findPersonsFor,
  finishDeletion,
  latestDeletion,
  markDeletionAttempt,
  mergePersons,
  queueDeletions,
  setPersonProperties,
  unfinishedDeletions,
  updatePersonProperties,
  type DeletionRow,
  type PersonRef,
  personPropertySamples,
  personPropertyValues,
  type PropertyUpdate,
} from "./store";
import { isObject } from "@/server/input/json-object";

const CACHE_LIMIT = 100_000;
/** Change-feed topic; keys are cache keys of distinct ids that moved to another person or lost theirs. */
const PERSONS_TOPIC = "persons";

/** The cache key of a distinct id, as ingestion's cache and the change feed name it. */
function distinctIdKey(projectId: number, distinctId: string): string {
  return `${projectId}\u0000${distinctId}`;
}

// PostHog's list of distinct ids it never merges on (clients that send a placeholder).
const ILLEGAL_IDS_ANY_CASE = new Set(["anonymous", "guest", "distinctid", "distinct_id", "id", "not_authenticated", "email", "undefined", "true", "false"]);
const ILLEGAL_IDS = new Set(["[object Object]", "NaN", "None", "none", "null", "0"]);

export function isIllegalDistinctId(id: string): boolean {
  const trimmed = id.trim();
  return trimmed === "" || ILLEGAL_IDS.has(trimmed) || ILLEGAL_IDS_ANY_CASE.has(trimmed.toLowerCase());
}

/** The `$set` / `$set_once` / `$unset` of an event's properties. */
export function propertyUpdateOf(properties: Record<string, unknown>): PropertyUpdate | null {
  const set = isObject(properties.$set) ? properties.$set : {};
  const setOnce = isObject(properties.$set_once) ? properties.$set_once : {};
  const unset = Array.isArray(properties.$unset) ? properties.$unset.filter((key): key is string => typeof key === "string") : [];
  if (Object.keys(set).length === 0 && Object.keys(setOnce).length === 0 && unset.length === 0) return null;
  return { set, setOnce, unset };
}

/**
 * Persons as ingestion sees them: which person a distinct id belongs to (created on first
 * sight), property updates, and PostHog's identify/alias/merge rules. Known distinct ids
 * are answered from memory, so the common event costs no query; creating a person for a
 * new id is done once per id even when its first events arrive concurrently.
 */
export class PersonsService {
  private readonly cache = new Map<string, PersonRef>();
  private readonly creating = new Map<string, Promise<PersonRef>>();
  /** Persons merged away (uuid → the uuid they were merged into), for rows not yet written. */
  private readonly mergedInto = new Map<string, string>();

  constructor(
    private readonly sql: SqlDriver,
    /** Where the events are: a merge moves the merged person's stored events there. */
    private readonly events: EventStore,
    /**
     * Called after a merge committed, before the merging event goes on: ingestion waits
     * there for event writes already under way and gives their rows the surviving person.
     */
    private readonly afterMerge?: (projectId: number, sourceUuid: string, targetUuid: string) => Promise<void>,
    /** Other nodes cache distinct ids too: a merge here makes theirs stale. */
    private readonly changes?: ChangeFeed,
  ) {
    changes?.subscribe(PERSONS_TOPIC, (key) => {
      if (key === ALL_KEYS) this.cache.clear();
      else this.cache.delete(key);
    });
  }

  private key(projectId: number, distinctId: string) {
    return distinctIdKey(projectId, distinctId);
  }

  private remember(projectId: number, distinctId: string, person: PersonRef) {
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(this.key(projectId, distinctId), person);
  }

  /** The person of `distinctId`, creating an anonymous one (created `at`, its first event's time) if the id is new. */
  async resolve(projectId: number, distinctId: string, at: Date = new Date()): Promise<PersonRef> {
    const key = this.key(projectId, distinctId);
    const cached = this.cache.get(key);
    if (cached) return cached;
    let pending = this.creating.get(key);
    if (!pending) {
      pending = this.lookupOrCreate(projectId, distinctId, at).finally(() => this.creating.delete(key));
      this.creating.set(key, pending);
    }
    return pending;
  }

  private async lookupOrCreate(projectId: number, distinctId: string, at: Date): Promise<PersonRef> {
    for (;;) {
      const found = await findPersonByDistinctId(this.sql, projectId, distinctId);
      const person = found ?? (await createPerson(this.sql, projectId, [distinctId], { isIdentified: false, properties: {}, createdAt: at }));
      if (person) {
        this.remember(projectId, distinctId, { id: person.id, uuid: person.uuid });
        return { id: person.id, uuid: person.uuid };
      }
      // Another process registered the id meanwhile: look again.
    }
  }

  /**
   * The person a resolved person uuid stands for now: events resolved before a merge (earlier
   * in the same batch, say) but written after it must carry the surviving person.
   */
  currentUuid(uuid: string): string {
    let current = uuid;
    for (let hops = 0; hops < 100; hops++) {
      const next = this.mergedInto.get(current);
      if (next === undefined) return current;
      current = next;
    }
    return current;
  }

  /**
   * Applies an event's property update to the person of `distinctId`. If a concurrent merge
   * removed that person meanwhile, the update goes to the person the id belongs to now.
   * Returns the person updated.
   */
  async updateProperties(
    projectId: number,
    distinctId: string,
    person: PersonRef,
    update: PropertyUpdate | null,
    identify = false,
  ): Promise<PersonRef> {
    if (!update && !identify) return person;
    let current = person;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await updatePersonProperties(this.sql, current.id, update ?? { set: {}, setOnce: {}, unset: [] }, identify)) return current;
      this.cache.delete(this.key(projectId, distinctId));
      current = await this.resolve(projectId, distinctId);
    }
    throw new Error(`could not update the person of ${distinctId}: it keeps being merged away`);
  }

  /**
   * `$identify`, `$create_alias` and `$merge_dangerously`: `distinctId` and `otherId` end
   * up on one person. If both already have persons, `otherId`'s is merged into
   * `distinctId`'s, but only when it was never identified (or `force`), as PostHog does.
   * Returns the person the event belongs to.
   */
  async link(projectId: number, distinctId: string, otherId: string, options: { force: boolean; at?: Date }): Promise<PersonRef> {
    const at = options.at ?? new Date();
    // Placeholder ids many clients send by mistake would merge every user into one person.
    if (otherId === distinctId || isIllegalDistinctId(otherId) || isIllegalDistinctId(distinctId)) {
      return this.resolve(projectId, distinctId, at);
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const [mine, other] = await Promise.all([
        findPersonByDistinctId(this.sql, projectId, distinctId),
        findPersonByDistinctId(this.sql, projectId, otherId),
      ]);
      if (!mine && !other) {
        const created = await createPerson(this.sql, projectId, [distinctId, otherId], { isIdentified: true, properties: {}, createdAt: at });
        if (!created) continue;
        this.remember(projectId, distinctId, created);
        this.remember(projectId, otherId, created);
        return created;
      }
      if (mine && !other) {
        if (!(await addDistinctId(this.sql, projectId, mine.id, otherId))) continue;
        this.remember(projectId, otherId, mine);
        return mine;
      }
      if (!mine && other) {
        if (!(await addDistinctId(this.sql, projectId, other.id, distinctId))) continue;
        this.remember(projectId, distinctId, other);
        return other;
      }
      if (mine!.id === other!.id || (other!.isIdentified && !options.force)) {
        // Already one person, or PostHog's `cannot_merge_already_identified`: keep both.
        return mine!;
      }
      const target = { id: mine!.id, uuid: mine!.uuid };
      // The stored events move in the merge's transaction on PostgreSQL; last, so a failure there undoes the merge.
      const moved = await mergePersons(this.sql, projectId, target, other!, (tx) => this.events.reassignPerson(projectId, other!.uuid, target.uuid, tx));
      const ids = [...moved, otherId];
      // Other nodes drop these ids from their caches. This node hears it at once, inside
      // publish, so it remembers the new person only afterwards.
      const published = ids.map((id) => this.changes?.publish(PERSONS_TOPIC, this.key(projectId, id)));
      for (const id of ids) this.remember(projectId, id, target);
      await Promise.all(published);
      if (this.mergedInto.size >= CACHE_LIMIT) this.mergedInto.clear();
      this.mergedInto.set(other!.uuid, target.uuid);
      await this.afterMerge?.(projectId, other!.uuid, target.uuid);
      return target;
    }
    throw new Error(`could not link distinct ids ${distinctId} and ${otherId}: they keep changing`);
  }
}

// ---------------------------------------------------------------------------
// The persons API (PostHog's PersonViewSet): services of `(ctx, input)`
// ---------------------------------------------------------------------------

async function requirePerson(ctx: Context, key: PersonKey): Promise<PersonRow> {
  const person = await findPerson(ctx.db.sql, ctx.project.id, key);
  if (!person) throw new AppError("not_found", "Not found.");
  return person;
}

/** The most uuids one read of `personsByUuids` asks for (the rest in further reads). */
const PERSONS_BY_UUIDS_CHUNK = 10_000;

/**
 * The project's persons among `uuids` (insights' actors), by uuid; uuids of no person of
 * the project are absent from the map.
 */
export async function personsByUuids(db: Pick<Database, "sql">, projectId: number, uuids: readonly string[]): Promise<Map<string, PersonRow>> {
  const wanted = [...new Set(uuids.filter((uuid) => canonicalUuid(uuid) === uuid))];
  const found = new Map<string, PersonRow>();
  for (let start = 0; start < wanted.length; start += PERSONS_BY_UUIDS_CHUNK) {
    for (const row of await findPersonsFor(db.sql, projectId, wanted.slice(start, start + PERSONS_BY_UUIDS_CHUNK), [])) found.set(row.uuid, row);
  }
  return found;
}

/** Person property keys with sample values and counts: the definitions backfill reads them once per project. */
export function personPropertySamplesOf(db: Pick<Database, "sql">, projectId: number): Promise<{ key: string; sample: unknown; count: number }[]> {
  return personPropertySamples(db.sql, projectId);
}

/** A person property's values, most persons first (suggestions for a person-property filter). */
export function personPropertyValuesOf(ctx: Context, key: string, search: string | null, limit: number): Promise<{ value: unknown; count: number }[]> {
  return personPropertyValues(ctx.db.sql, ctx.project.id, key, search, limit);
}

/** One page of the project's persons as PostHog's list items, and whether more follow. */
export async function listPersons(ctx: Context, input: PersonListInput): Promise<{ results: PersonListItem[]; more: boolean }> {
  const search = input.search === null ? null : { text: input.search, uuid: canonicalUuid(input.search) };
  const page = await findPersonPage(
    ctx.db.sql,
    ctx.project.id,
    { distinctId: input.distinctId, email: input.email, search, properties: input.properties },
    { limit: input.limit, offset: input.offset, now: new Date() },
  );
  return { results: page.rows.map(presentPersonListItem), more: page.more };
}

export async function getPerson(ctx: Context, key: PersonKey): Promise<PersonResource> {
  return presentPerson(await requirePerson(ctx, key));
}

/**
 * Sets and removes properties now, durably, in one transaction with the activity log's
 * entry (PostHog sends a `$set` event through ingestion instead; the answer is the same 202).
 */
async function changeProperties(ctx: Context, key: PersonKey, set: Record<string, unknown>, unset: string[]): Promise<PersonResource> {
  const person = await requirePerson(ctx, key);
  await inTransaction(ctx.db, async (tx) => {
    const changed = await setPersonProperties(tx, person.id, set, unset);
    if (!changed) throw new AppError("not_found", "Not found.");
    // Removed keys count as changes too (changesBetween reads the keys of `after`).
    const removed = Object.keys(changed.before).filter((field) => !(field in changed.after));
    const changes = [...changesBetween(changed.before, changed.after), ...removed.map((field) => ({ field, before: changed.before[field], after: null }))];
    if (changes.length > 0) {
      await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: "Person", itemId: person.id, activity: "updated", name: personDisplayName(person), changes });
    }
  });
  return getPerson(ctx, { id: person.id });
}

/** `PATCH`/`PUT /persons/:id/`: `properties` as a `$set`. */
export function updatePerson(ctx: Context, key: PersonKey, body: PersonUpdateBody): Promise<PersonResource> {
  return changeProperties(ctx, key, body.properties, []);
}

/** `update_property`: one key set. */
export function updatePersonProperty(ctx: Context, key: PersonKey, property: string, value: unknown): Promise<PersonResource> {
  return changeProperties(ctx, key, { [property]: value }, []);
}

/** `delete_property`: one key removed (PostHog's `$unset`). */
export async function deletePersonProperty(ctx: Context, key: PersonKey, property: string): Promise<{ success: true }> {
  await changeProperties(ctx, key, {}, [property]);
  return { success: true };
}

/** The cohorts the person is in (its `cohort_people` rows). */
export async function personCohorts(ctx: Context, key: PersonKey): Promise<{ results: PersonCohort[] }> {
  const person = await requirePerson(ctx, key);
  return { results: await cohortsOfPerson(ctx.db.sql, ctx.project.id, person.id) };
}

/**
 * Deletes persons now (with their distinct ids), and with `deleteEvents` queues their
 * events' deletion in the same transaction; then tells ingestion's distinct-id caches, here
 * and on other nodes, so the next event of one of those ids makes a new person.
 */
async function deletePersons(ctx: Context, persons: readonly PersonRow[], deleteEvents: boolean): Promise<{ deleted: PersonRow[]; deletionIds: number[] }> {
  const result = await inTransaction(ctx.db, async (tx) => {
    const removed = await deletePersonRows(
      tx,
      ctx.project.id,
      persons.map((person) => person.id),
      deleteEvents,
    );
    for (const person of removed.persons) {
      await logActivity(tx, {
        projectId: ctx.project.id,
        userId: ctx.actor.id,
        scope: "Person",
        itemId: person.id,
        activity: "deleted",
        name: personDisplayName(person),
        extra: { uuid: person.uuid, distinct_ids: person.distinctIds, delete_events: deleteEvents },
      });
    }
    return removed;
  });
  await forgetDistinctIds(ctx.db, ctx.project.id, result.persons.flatMap((person) => person.distinctIds));
  if (result.deletionIds.length > 0) kickPersonDeletions(ctx.db);
  return { deleted: result.persons, deletionIds: result.deletionIds };
}

async function forgetDistinctIds(db: Database, projectId: number, distinctIds: readonly string[]): Promise<void> {
  await Promise.all(distinctIds.map((id) => db.changes.publish(PERSONS_TOPIC, distinctIdKey(projectId, id))));
}

/** `DELETE /persons/:id/`; `deleteEvents` queues the deletion of the person's events. */
export async function deletePerson(ctx: Context, key: PersonKey, options: { deleteEvents: boolean }): Promise<{ deletionId: number | null }> {
  const person = await requirePerson(ctx, key);
  const { deleted, deletionIds } = await deletePersons(ctx, [person], options.deleteEvents);
  if (deleted.length === 0) throw new AppError("not_found", "Not found.");
  return { deletionId: deletionIds[0] ?? null };
}

/** `POST /persons/:id/delete_events/`: the person stays, its events go. */
export async function deletePersonEvents(ctx: Context, key: PersonKey): Promise<{ deletionId: number }> {
  const person = await requirePerson(ctx, key);
  const [deletionId] = await inTransaction(ctx.db, async (tx) => {
    const ids = await queueDeletions(tx, ctx.project.id, [person]);
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: "Person", itemId: person.id, activity: "events_deleted", name: personDisplayName(person) });
    return ids;
  });
  kickPersonDeletions(ctx.db);
  return { deletionId: deletionId! };
}

/** `POST /persons/bulk_delete/`: the persons of the distinct ids and uuids given (unknown ones are skipped). */
export async function bulkDeletePersons(ctx: Context, input: BulkDeleteInput): Promise<{ deleted: number }> {
  const persons = await findPersonsFor(ctx.db.sql, ctx.project.id, input.uuids, input.distinctIds);
  const { deleted } = await deletePersons(ctx, persons, input.deleteEvents);
  return { deleted: deleted.length };
}

/** How the newest deletion of a person's events is going (null: none was asked for). */
export async function personDeletionStatus(ctx: Context, personUuid: string): Promise<PersonDeletionStatus | null> {
  const uuid = canonicalUuid(personUuid);
  if (!uuid) throw new AppError("invalid_input", "id must be a person uuid.", "id");
  const row = await latestDeletion(ctx.db.sql, ctx.project.id, uuid);
  return row === null ? null : presentDeletion(row);
}

function presentDeletion(row: DeletionRow): PersonDeletionStatus {
  return {
    id: row.id,
    person_uuid: row.personUuid,
    deleted_events: row.deletedEvents,
    attempts: row.attempts,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

// ---------------------------------------------------------------------------
// Deleting events of deleted persons: in batches, off the request path, resumable
// ---------------------------------------------------------------------------

/** Events per batch: PGlite runs each statement on the server's thread, so its batches are small. */
function batchSizeFor(db: Database): number {
  if (db.events.kind === "clickhouse") return 20_000;
  return db.config.kind === "postgres" ? 10_000 : 1_000;
}

/** Deletions looked at per pass. */
const DELETIONS_PER_PASS = 100;

export interface DeletionPass {
  /** Deletions finished in this pass. */
  finished: number;
  /** Events deleted in this pass. */
  deletedEvents: number;
  /** Deletions that failed in this pass (left for the next one). */
  failed: number;
  /** Deletions with nothing left to delete but too young to close (see `settleMs`). */
  settling: number;
}

/**
 * How long after a deletion its events may still arrive: ingestion may have resolved an
 * event to the person just before the delete and write it just after (its group commit,
 * its distinct-id cache until the change feed is heard). The worker closes a deletion only
 * once it is this old, and looks again then.
 */
const DELETION_SETTLE_MS = 2_000;

/**
 * One pass over the unfinished deletions: each one's events are deleted batch by batch, its
 * count raised after every batch, and it is finished once a batch finds nothing. A crash
 * between batches loses nothing: the next pass (at the next start at the latest) goes on
 * from what is left. Two nodes on one deletion only share the work: each batch deletes and
 * counts what is still there.
 */
export async function runPersonDeletions(
  db: Database,
  options: { batchSize?: number; shouldStop?: () => boolean; settleMs?: number } = {},
): Promise<DeletionPass> {
  const batchSize = options.batchSize ?? batchSizeFor(db);
  const settleMs = options.settleMs ?? 0;
  const pass: DeletionPass = { finished: 0, deletedEvents: 0, failed: 0, settling: 0 };
  for (const deletion of await unfinishedDeletions(db.sql, DELETIONS_PER_PASS)) {
    if (options.shouldStop?.()) break;
    await markDeletionAttempt(db.sql, deletion.id);
    try {
      const person = { uuid: deletion.personUuid, distinctIds: deletion.distinctIds };
      for (;;) {
        if (options.shouldStop?.()) return pass;
        const deleted = await db.events.deletePersonEvents(deletion.projectId, person, batchSize);
        if (deleted === 0) break;
        await addDeletedEvents(db.sql, deletion.id, deleted);
        pass.deletedEvents += deleted;
        // Let requests in between batches (PGlite shares the thread).
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (Date.now() - deletion.createdAt.getTime() < settleMs) {
        pass.settling++;
        continue;
      }
      await finishDeletion(db.sql, deletion.id);
      pass.finished++;
    } catch (error) {
      pass.failed++;
      await failDeletion(db.sql, deletion.id, error instanceof Error ? error.message : String(error)).catch(() => {});
      console.error(`burrow: deleting the events of person ${deletion.personUuid} failed (will retry)`, error);
    }
  }
  return pass;
}

interface DeletionWorker {
  db: Database;
  timer: NodeJS.Timeout;
  running: Promise<void> | null;
  again: boolean;
  stopped: boolean;
}

// One worker per process, on globalThis: the server starts it, and the API (in Next's copy of this module) kicks it.
const WORKER_KEY = Symbol.for("burrow.personDeletions");
type WorkerHolder = { [WORKER_KEY]?: DeletionWorker };

/** How often the worker looks for deletions it was not told about (another node's, or failed ones). */
const DELETION_INTERVAL_MS = 30_000;

/**
 * Starts the background deletion of deleted persons' events: a pass now (which picks up any
 * left unfinished by a crash), one whenever a deletion is queued in this process, and one
 * every `intervalMs`.
 */
export function startPersonDeletions(db: Database, options: { intervalMs?: number } = {}): void {
  const holder = globalThis as WorkerHolder;
  if (holder[WORKER_KEY] && !holder[WORKER_KEY].stopped) return;
  const worker: DeletionWorker = {
    db,
    running: null,
    again: false,
    stopped: false,
    timer: setInterval(() => kickPersonDeletions(db), options.intervalMs ?? DELETION_INTERVAL_MS),
  };
  worker.timer.unref();
  holder[WORKER_KEY] = worker;
  kickPersonDeletions(db);
}

/** Stops the worker, waiting for the batch under way (graceful shutdown). */
export async function stopPersonDeletions(): Promise<void> {
  const holder = globalThis as WorkerHolder;
  const worker = holder[WORKER_KEY];
  if (!worker) return;
  worker.stopped = true;
  clearInterval(worker.timer);
  await worker.running;
  if (holder[WORKER_KEY] === worker) delete holder[WORKER_KEY];
}

/** Asks the worker for a pass now (a pass under way is followed by another). Without a started worker, nothing happens. */
function kickPersonDeletions(db: Database): void {
  const worker = (globalThis as WorkerHolder)[WORKER_KEY];
  if (!worker || worker.stopped || worker.db !== db) return;
  if (worker.running) {
    worker.again = true;
    return;
  }
  worker.running = (async () => {
    do {
      worker.again = false;
      try {
        const pass = await runPersonDeletions(db, { shouldStop: () => worker.stopped, settleMs: DELETION_SETTLE_MS });
        if (pass.settling > 0) setTimeout(() => kickPersonDeletions(db), DELETION_SETTLE_MS).unref();
      } catch (error) {
        console.error("burrow: a person-deletion pass failed", error);
      }
    } while (worker.again && !worker.stopped);
  })().finally(() => {
    worker.running = null;
  });
}
