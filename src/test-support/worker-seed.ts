/**
 * A project for the background workers to chew on (worker-holds.int.test.ts, bench:workers):
 * `persons` persons with a plan and an age, and `eventsPerPerson` events each over 60 days.
 */
import { randomUUID } from "node:crypto";
import type { Database } from "@/server/db/client";

export async function seedWorkerProject(db: Database, name: string, persons: number, eventsPerPerson: number): Promise<number> {
  const org = await db.prisma.organization.create({ data: { name } });
  const projectId = (await db.prisma.project.create({ data: { organizationId: org.id, name, apiToken: `phc_${name}_${randomUUID()}` } })).id;
  await db.sql.query(
    `INSERT INTO persons (project_id, properties, updated_at)
     SELECT $1::int, jsonb_build_object('plan', CASE WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END, 'age', g % 80), now() FROM generate_series(1, $2::int) g`,
    [projectId, persons],
  );
  await db.sql.query(
    `INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp, person_id)
     SELECT gen_random_uuid(), $1::int, CASE WHEN (p.id + n) % 3 = 0 THEN 'signed_up' ELSE '$pageview' END, 'd' || p.id, '{}'::jsonb,
            now() - ((p.id * 7 + n * 13) % 60) * interval '1 day', p.uuid
       FROM persons p CROSS JOIN generate_series(1, $2::int) n WHERE p.project_id = $1::int`,
    [projectId, eventsPerPerson],
  );
  return projectId;
}
