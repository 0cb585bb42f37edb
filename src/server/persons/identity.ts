/**
 * Persons as ingestion sees them: the distinct id → person resolution on the hot path, with
 * its in-memory cache kept true across nodes by the change feed, property updates, and
 * PostHog's identify/alias/merge rules. The management API is `service.ts`; the deletion of
 * deleted persons' events `deletion-worker.ts`.
 */
import type { Database } from "@/server/db";
import { ALL_KEYS, type ChangeFeed } from "@/server/db/changes";
import type { SqlDriver } from "@/server/db/driver";
import type { EventStore } from "@/server/db/events";
import { isObject } from "@/server/input/json-object";
import { flagPersonProperties } from "./flag-properties";
import { addDistinctId, createPerson, createPersons, findPersonByDistinctId, findPersonsByDistinctIds, mergePersons, updatePersonProperties, type PersonRef, type PropertyUpdate } from "./store";

const CACHE_LIMIT = 100_000;
/** Distinct ids per prefetch query. */
const PREFETCH_CHUNK = 1_000;
/** New persons per creating transaction: on the embedded database, about 50 ms of its one connection. */
const CREATE_CHUNK = 250;
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
  /**
   * Ids a prefetch just found without a person: their first resolve creates at once instead
   * of asking again (a creation that loses a race to another node finds the winner anyway).
   */
  private readonly seenAbsent = new Set<string>();
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

  /** Flag evaluation's copy of person properties: told of each write once it committed. */
  private touch(projectId: number, change: { personIds?: number[]; distinctIds?: string[] }) {
    flagPersonProperties(this.sql).touch(projectId, change);
  }

  private remember(projectId: number, distinctId: string, person: PersonRef) {
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(this.key(projectId, distinctId), person);
  }

  /**
   * Reads the persons of the ids not in memory with one query, so that the events of a batch
   * then resolve from memory (after a restart, one query a batch instead of one an id). Ids
   * without a person are left to resolve, which creates them in event order.
   */
  async prefetch(projectId: number, distinctIds: Iterable<string>): Promise<void> {
    const unknown = [...new Set(distinctIds)].filter((id) => !this.cache.has(this.key(projectId, id)) && !this.creating.has(this.key(projectId, id)));
    for (let start = 0; start < unknown.length; start += PREFETCH_CHUNK) {
      const chunk = unknown.slice(start, start + PREFETCH_CHUNK);
      const found = await findPersonsByDistinctIds(this.sql, projectId, chunk);
      for (const person of found) {
        if (!this.creating.has(this.key(projectId, person.distinctId))) this.remember(projectId, person.distinctId, { id: person.id, uuid: person.uuid });
      }
      if (this.seenAbsent.size >= CACHE_LIMIT) this.seenAbsent.clear();
      const present = new Set(found.map((person) => person.distinctId));
      for (const id of chunk) if (!present.has(id)) this.seenAbsent.add(this.key(projectId, id));
    }
  }

  /**
   * Creates at once the persons of the ids in `firstSeen` that the last prefetch found without
   * one (each created at its time there), so that their events then resolve from memory. Meant
   * for ids no identify, alias or merge in the batch names: those go through `link`. While the
   * statement runs, a concurrent resolve of one of the ids waits for it.
   */
  async createAbsent(projectId: number, firstSeen: ReadonlyMap<string, Date>): Promise<void> {
    const wanted = [...firstSeen].filter(([id]) => {
      const key = this.key(projectId, id);
      return this.seenAbsent.has(key) && !this.cache.has(key) && !this.creating.has(key);
    });
    for (let start = 0; start < wanted.length; start += CREATE_CHUNK) {
      const chunk = wanted.slice(start, start + CREATE_CHUNK);
      const created = createPersons(this.sql, projectId, chunk).then((persons) => new Map(persons.map((person) => [person.distinctId, { id: person.id, uuid: person.uuid }])));
      for (const [id, at] of chunk) {
        const key = this.key(projectId, id);
        this.seenAbsent.delete(key);
        // An id another writer took meanwhile is looked up, as resolve would.
        const pending = created.then((persons) => persons.get(id) ?? this.lookupOrCreate(projectId, id, at)).finally(() => this.creating.delete(key));
        // Its failure is the statement's, awaited below; a waiting resolve sees it too.
        pending.catch(() => {});
        this.creating.set(key, pending);
      }
      const persons = await created;
      for (const [id, person] of persons) this.remember(projectId, id, person);
      if (persons.size > 0) this.touch(projectId, { distinctIds: [...persons.keys()] });
    }
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
    let lookFirst = !this.seenAbsent.delete(this.key(projectId, distinctId));
    for (;;) {
      const found = lookFirst ? await findPersonByDistinctId(this.sql, projectId, distinctId) : null;
      lookFirst = true;
      const person = found ?? (await createPerson(this.sql, projectId, [distinctId], { isIdentified: false, properties: {}, createdAt: at }));
      if (person && !found) this.touch(projectId, { distinctIds: [distinctId] });
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
      if (await updatePersonProperties(this.sql, current.id, update ?? { set: {}, setOnce: {}, unset: [] }, identify)) {
        if (update) this.touch(projectId, { personIds: [current.id] });
        return current;
      }
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
        this.touch(projectId, { distinctIds: [distinctId, otherId] });
        this.remember(projectId, distinctId, created);
        this.remember(projectId, otherId, created);
        return created;
      }
      if (mine && !other) {
        if (!(await addDistinctId(this.sql, projectId, mine.id, otherId))) continue;
        this.touch(projectId, { distinctIds: [otherId] });
        this.remember(projectId, otherId, mine);
        return mine;
      }
      if (!mine && other) {
        if (!(await addDistinctId(this.sql, projectId, other.id, distinctId))) continue;
        this.touch(projectId, { distinctIds: [distinctId] });
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
      this.touch(projectId, { personIds: [target.id, other!.id], distinctIds: ids });
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

/**
 * Tells ingestion's distinct-id caches, here and on other nodes, that these ids lost their
 * person (it was deleted): the next event of one of them makes a new person.
 */
export async function forgetDistinctIds(db: Pick<Database, "changes" | "sql">, projectId: number, distinctIds: readonly string[]): Promise<void> {
  flagPersonProperties(db.sql).touch(projectId, { distinctIds });
  await Promise.all(distinctIds.map((id) => db.changes.publish(PERSONS_TOPIC, distinctIdKey(projectId, id))));
}
