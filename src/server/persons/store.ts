import type { SqlDriver, SqlExecutor } from "@/server/db/driver";

export interface PersonRef {
  id: number;
  uuid: string;
}

export interface PropertyUpdate {
  set: Record<string, unknown>;
  setOnce: Record<string, unknown>;
  unset: string[];
}

export async function findPersonByDistinctId(sql: SqlExecutor, projectId: number, distinctId: string): Promise<(PersonRef & { isIdentified: boolean }) | null> {
  const rows = await sql.query<{ id: number; uuid: string; is_identified: boolean }>(
    `SELECT p.id, p.uuid::text AS uuid, p.is_identified
       FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
      WHERE d.project_id = $1 AND d.distinct_id = $2`,
    [projectId, distinctId],
  );
  const row = rows[0];
  return row ? { id: row.id, uuid: row.uuid, isIdentified: row.is_identified } : null;
}

/**
 * A new person owning `distinctIds`. If another writer registered one of the ids first,
 * the new person is removed again and null returned: the caller looks the id up instead.
 */
export async function createPerson(
  sql: SqlExecutor,
  projectId: number,
  distinctIds: string[],
  options: { isIdentified: boolean; properties: Record<string, unknown> },
): Promise<PersonRef | null> {
  const [person] = await sql.query<PersonRef>(
    `INSERT INTO persons (project_id, properties, is_identified, updated_at)
     VALUES ($1, $2::jsonb, $3, now()) RETURNING id, uuid::text AS uuid`,
    [projectId, JSON.stringify(options.properties), options.isIdentified],
  );
  const inserted = await sql.query(
    `INSERT INTO person_distinct_ids (project_id, person_id, distinct_id)
     SELECT $1, $2, unnest($3::text[])
     ON CONFLICT (project_id, distinct_id) DO NOTHING RETURNING distinct_id`,
    [projectId, person!.id, distinctIds],
  );
  if (inserted.length === distinctIds.length) return person!;
  await sql.query(`DELETE FROM person_distinct_ids WHERE person_id = $1`, [person!.id]);
  await sql.query(`DELETE FROM persons WHERE id = $1`, [person!.id]);
  return null;
}

/** Attaches a distinct id to a person; false if the id belongs to someone already. */
export async function addDistinctId(sql: SqlExecutor, projectId: number, personId: number, distinctId: string): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO person_distinct_ids (project_id, person_id, distinct_id) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, distinct_id) DO NOTHING RETURNING id`,
    [projectId, personId, distinctId],
  );
  return rows.length > 0;
}

/**
 * `$set` overwrites, `$set_once` only fills keys the person lacks, `$unset` removes keys:
 * one UPDATE, evaluated against the row as it is at that moment, so concurrent updates of
 * one person compose without locks and persons never wait on each other.
 */
export async function updatePersonProperties(sql: SqlExecutor, personId: number, update: PropertyUpdate, identify: boolean): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE persons
        SET properties = (($2::jsonb || properties) - $3::text[]) || $4::jsonb,
            is_identified = is_identified OR $5,
            version = version + 1,
            updated_at = now()
      WHERE id = $1
      RETURNING id`,
    [personId, JSON.stringify(update.setOnce), update.unset, JSON.stringify(update.set), identify],
  );
  // False when the person is gone: a concurrent merge folded it into another.
  return rows.length > 0;
}

/**
 * Folds `source` into `target` in one transaction: distinct ids and flag hash-key overrides
 * move over; properties combine with the target's winning; the earlier creation time stays;
 * the source is deleted; then `alsoInTransaction` runs in the same transaction (the caller
 * moves the stored events there, through the event store: last, so a failure there undoes
 * the merge). Returns the distinct ids that moved.
 */
export function mergePersons(
  sql: SqlDriver,
  projectId: number,
  target: PersonRef,
  source: PersonRef,
  alsoInTransaction: (tx: SqlExecutor) => Promise<void>,
): Promise<string[]> {
  return sql.transaction(async (tx) => {
    const moved = await mergePersonRows(tx, projectId, target, source);
    await alsoInTransaction(tx);
    return moved;
  });
}

async function mergePersonRows(tx: SqlExecutor, projectId: number, target: PersonRef, source: PersonRef): Promise<string[]> {
  // Lock both rows in id order so two merges of the same pair cannot deadlock.
  await tx.query(`SELECT id FROM persons WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE`, [[target.id, source.id]]);
  const moved = await tx.query<{ distinct_id: string }>(
    `UPDATE person_distinct_ids SET person_id = $1, version = version + 1 WHERE person_id = $2 RETURNING distinct_id`,
    [target.id, source.id],
  );
  await tx.query(
    `UPDATE persons t
        SET properties = s.properties || t.properties,
            created_at = LEAST(t.created_at, s.created_at),
            is_identified = true,
            version = t.version + 1,
            updated_at = now()
       FROM persons s
      WHERE t.id = $1 AND s.id = $2`,
    [target.id, source.id],
  );
  await tx.query(
    `INSERT INTO feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
     SELECT project_id, $1, feature_flag_key, hash_key FROM feature_flag_hash_key_overrides WHERE person_id = $2
     ON CONFLICT (project_id, person_id, feature_flag_key) DO NOTHING`,
    [target.id, source.id],
  );
  await tx.query(`DELETE FROM persons WHERE id = $1`, [source.id]);
  return moved.map((row) => row.distinct_id);
}
