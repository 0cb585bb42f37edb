/**
 * The flag benchmarks' project: 100,000 persons (distinct ids `person-1` … `person-100000`)
 * and 50 flags, every third reading person properties, the rest rollouts and multivariates
 * with payloads. `cohortFlags` moves that many of the person-property conditions into
 * dynamic cohorts of the same filters (the flag's condition becomes `{type: "cohort"}`).
 */
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { computeCohort } from "@/server/cohorts/worker";

export const PERSONS = 100_000;
export const FLAGS = 50;

const PERSON_CONDITIONS = [
  [{ key: "plan", value: ["pro", "team"], operator: "exact", type: "person" }],
  [{ key: "email", value: "@acme.com", operator: "icontains", type: "person" }],
  [{ key: "age", value: 40, operator: "gt", type: "person" }],
  [{ key: "country", value: "^(SE|DE)$", operator: "regex", type: "person" }],
  [{ key: "plan", value: "free", operator: "is_not", type: "person" }, { key: "age", value: "30", operator: "lte", type: "person" }],
  [{ key: "signed_up", value: "-180d", operator: "is_date_after", type: "person" }],
];

export function flagDefinitions(): Array<{ key: string; filters: { groups: { properties: object[]; rollout_percentage: number }[] } & Record<string, unknown> }> {
  return Array.from({ length: FLAGS }, (_, index) => {
    const key = `bench-flag-${index}`;
    if (index % 3 === 0) {
      return { key, filters: { groups: [{ properties: PERSON_CONDITIONS[(index / 3) % PERSON_CONDITIONS.length]!, rollout_percentage: 50 + (index % 50) }], payloads: { true: '{"on":true}' } } };
    }
    if (index % 3 === 1) {
      return {
        key,
        filters: {
          groups: [{ properties: [], rollout_percentage: 30 + index }],
          multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] },
          payloads: { control: '{"v":"c"}', test: '{"v":"t"}' },
        },
      };
    }
    return { key, filters: { groups: [{ properties: [], rollout_percentage: index * 2 }] } };
  });
}

export interface FlagsProject {
  token: string;
  projectId: number;
  personalKey: string;
  cohortIds: number[];
}

/** Migrates, bootstraps and seeds the project (see the module comment). */
export async function seedFlagsProject(db: Database, { cohortFlags = 0 } = {}): Promise<FlagsProject> {
  await migrate(db.sql);
  const { project_api_key: token, project_id: projectId, personal_api_key: personalKey } = await bootstrap(db.prisma, { email: "bench@example.com", password: "bench-password" });
  await db.sql.query(
    `INSERT INTO persons (project_id, properties, is_identified, updated_at)
     SELECT $1, jsonb_build_object(
              'plan', (ARRAY['free','pro','team'])[1 + g % 3],
              'email', 'user' || g || '@' || (ARRAY['acme.com','example.com','mail.net'])[1 + g % 3],
              'age', 18 + g % 60,
              'country', (ARRAY['SE','US','DE','FR'])[1 + g % 4],
              'signed_up', to_char(now() - (g % 400) * interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
            true, now()
       FROM generate_series(1, ${PERSONS}) AS g`,
    [projectId],
  );
  await db.sql.query(
    `INSERT INTO person_distinct_ids (project_id, person_id, distinct_id)
     SELECT project_id, id, 'person-' || row_number() OVER (ORDER BY id) FROM persons WHERE project_id = $1`,
    [projectId],
  );
  const cohortIds: number[] = [];
  for (const flag of flagDefinitions()) {
    const group = flag.filters.groups[0]!;
    if (group.properties.length > 0 && cohortIds.length < cohortFlags) {
      const properties = { type: "OR", values: [{ type: "AND", values: group.properties.map((property) => ({ ...property, negation: false })) }] };
      const [cohort] = await db.sql.query<{ id: number }>(
        `INSERT INTO cohorts (project_id, name, filters, is_calculating, updated_at) VALUES ($1, $2, $3::jsonb, true, now()) RETURNING id`,
        [projectId, `cohort of ${flag.key}`, JSON.stringify({ properties })],
      );
      cohortIds.push(Number(cohort!.id));
      group.properties = [{ key: "id", type: "cohort", value: Number(cohort!.id), operator: "in" }];
    }
    await db.sql.query(`INSERT INTO feature_flags (project_id, key, name, filters, updated_at) VALUES ($1, $2, $3, $4::jsonb, now())`, [projectId, flag.key, flag.key, JSON.stringify(flag.filters)]);
  }
  await db.sql.exec("ANALYZE");
  // Computed now, as in a project that has been running: a server started on this database
  // then measures its hot paths, not its first computation of every cohort.
  for (const id of cohortIds) {
    const outcome = await computeCohort(db, id);
    if (outcome.status !== "done") throw new Error(`computing cohort ${id} for the seed: ${JSON.stringify(outcome)}`);
  }
  return { token, projectId, personalKey, cohortIds };
}
