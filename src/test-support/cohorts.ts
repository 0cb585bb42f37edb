/**
 * Tests' cohorts: a cohort row and its members written straight into `cohorts` and
 * `cohort_people`, as the cohorts domain leaves them once computed (the event stores read
 * nothing else of a cohort).
 */
import type { SqlExecutor } from "@/server/db/driver";

export interface TestCohortOptions {
  /** Members by distinct id (their persons), or by person uuid. */
  distinctIds?: string[];
  personUuids?: string[];
  deleted?: boolean;
  isStatic?: boolean;
}

/** A cohort of the project with these members; returns its id. */
export async function insertTestCohort(sql: SqlExecutor, projectId: number, name: string, options: TestCohortOptions = {}): Promise<number> {
  const [row] = await sql.query<{ id: number }>(`INSERT INTO cohorts (project_id, name, is_static, deleted, updated_at) VALUES ($1, $2, $3, $4, now()) RETURNING id`, [
    projectId,
    name,
    options.isStatic ?? false,
    options.deleted ?? false,
  ]);
  const id = row!.id;
  await sql.query(
    `INSERT INTO cohort_people (cohort_id, person_id)
     SELECT DISTINCT $1::int, p.id FROM persons p
      WHERE p.project_id = $2
        AND (p.uuid = ANY($3::uuid[]) OR p.id IN (SELECT person_id FROM person_distinct_ids WHERE project_id = $2 AND distinct_id = ANY($4::text[])))`,
    [id, projectId, options.personUuids ?? [], options.distinctIds ?? []],
  );
  return id;
}
