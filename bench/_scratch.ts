import { openDatabase } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
const db = await openDatabase({ kind: "pglite-memory" });
await migrate(db.sql);
const org = await db.prisma.organization.create({ data: { name: "x" } });
const projectId = (await db.prisma.project.create({ data: { organizationId: org.id, name: "x", apiToken: "phc_x" } })).id;
await db.sql.query(`INSERT INTO persons (project_id, properties, updated_at) SELECT $1::int, jsonb_build_object('plan', CASE WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END, 'age', g % 80), now() FROM generate_series(1, 40000) g`, [projectId]);
await db.sql.query(`INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp, person_id)
     SELECT gen_random_uuid(), $1::int, CASE WHEN (p.id + n) % 3 = 0 THEN 'signed_up' ELSE '$pageview' END, 'd' || p.id, '{}'::jsonb,
            now() - ((p.id * 7 + n * 13) % 60) * interval '1 day', p.uuid
       FROM persons p CROSS JOIN generate_series(1, 4) n WHERE p.project_id = $1::int`, [projectId]);
await db.sql.exec("ANALYZE persons; ANALYZE events;");
const q = `SELECT p.id, COALESCE(p.properties->>'plan' = 'free' AND (SELECT count(*) > 0 AND count(*) >= 2 FROM events ev WHERE ev.project_id = $1 AND ev.person_id = p.uuid AND ev.event = '$pageview' AND ev.timestamp >= now() - interval '30 days'), false) AS member FROM persons p WHERE p.project_id = $1 AND p.id > $2 ORDER BY p.id LIMIT $3`;
for (const n of [100, 500, 1000, 1000, 1000]) {
  const s = performance.now();
  await db.sql.query(q, [projectId, 1000, n]);
  console.log(n, (performance.now() - s).toFixed(1));
}
console.log((await db.sql.query(`EXPLAIN ANALYZE ${q}`, [projectId, 1000, 1000])).map((r: any) => r["QUERY PLAN"]).join("\n"));
await db.close();
