/**
 * The persons API (PostHog's PersonViewSet): services of `(ctx, input)`, and the person reads
 * other domains make (insights' actors, definitions). Ingestion's identity path is
 * `identity.ts`; the deletion of deleted persons' events `deletion-worker.ts`.
 */
import { changesBetween, logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db";
import type { SqlExecutor } from "@/server/db/driver";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { canonicalUuid } from "@/server/events/contract";
import type { BulkDeleteInput, PersonCohort, PersonDeletionStatus, PersonKey, PersonListInput, PersonUpdateBody } from "./contract";
import { kickPersonDeletions } from "./deletion-worker";

export { alsoDeleteWithPersonEvents, type PersonDataDeletion } from "./deletion-worker";
import { flagPersonProperties } from "./flag-properties";
import { personExportPage, personPropertiesOf, type PersonExportQuery } from "./store/export";
import { forgetDistinctIds } from "./identity";
import { personDisplayName, presentPerson, presentPersonListItem, type PersonListItem, type PersonResource, type PersonRow } from "./present";
import {
  cohortsOfPerson,
  deletePersonRows,
  findPerson,
  findPersonPage,
  findPersonsFor,
  latestDeletion,
  personPropertySamples,
  personPropertyValues,
  queueDeletions,
  setPersonProperties,
  type DeletionRow,
} from "./store";

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

/** The project's persons owning any of `distinctIds` (recordings' person links), each once. */
export async function personsByDistinctIds(db: Pick<Database, "sql">, projectId: number, distinctIds: readonly string[]): Promise<PersonRow[]> {
  const wanted = [...new Set(distinctIds)];
  if (wanted.length === 0) return [];
  return findPersonsFor(db.sql, projectId, [], wanted);
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
/** A person's stored properties as flag evaluation reads them (a copy; null: no such person). See flag-properties.ts. */
export function personPropertiesForFlags(db: Pick<Database, "sql">, projectId: number, distinctId: string): Promise<Record<string, unknown> | null> {
  return flagPersonProperties(db.sql).get(projectId, distinctId);
}

/** Before the server says ready: on the embedded database, every person's properties in memory for flags. */
export function warmPersonPropertiesForFlags(db: Pick<Database, "sql">): Promise<void> {
  return flagPersonProperties(db.sql).warm();
}

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
  flagPersonProperties(ctx.db.sql).touch(ctx.project.id, { personIds: [person.id] });
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
  flagPersonProperties(ctx.db.sql).touch(ctx.project.id, { personIds: result.persons.map((person) => person.id) });
  await forgetDistinctIds(ctx.db, ctx.project.id, result.persons.flatMap((person) => person.distinctIds));
  if (result.deletionIds.length > 0) kickPersonDeletions(ctx.db);
  return { deleted: result.persons, deletionIds: result.deletionIds };
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

/** A person row as batch exports write it (PostHog's persons export): one per (distinct id, person). */
export interface ExportedPerson {
  distinct_id: string;
  person_id: string;
  properties: Record<string, unknown>;
  person_version: number;
  person_distinct_id_version: number;
  created_at: string;
  /** The row's latest change (ISO 8601): PostHog's `_inserted_at`. */
  changed_at: string;
}

/** Batch exports' read of persons: the rows that last changed in [from, to), a page after `after` (store.personExportPage). */
export async function exportPersonPage(sql: SqlExecutor, projectId: number, query: PersonExportQuery): Promise<ExportedPerson[]> {
  const rows = await personExportPage(sql, projectId, query);
  return rows.map((row) => ({
    ...row,
    person_version: Number(row.person_version),
    person_distinct_id_version: Number(row.person_distinct_id_version),
    created_at: new Date(row.created_at).toISOString(),
    changed_at: new Date(row.changed_at).toISOString(),
  }));
}

/**
 * Batch exports' person properties of an events page: the properties of the persons among
 * `uuids` as they are now (events keep no snapshot of their person), in one read; uuids of no
 * person of the project are absent from the map.
 */
export async function exportPersonProperties(sql: SqlExecutor, projectId: number, uuids: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
  const wanted = [...new Set(uuids.filter((uuid) => canonicalUuid(uuid) === uuid))];
  if (wanted.length === 0) return new Map();
  return new Map((await personPropertiesOf(sql, projectId, wanted)).map((row) => [row.uuid, row.properties]));
}
