/**
 * Cohort membership of a large project on the PostgreSQL server: a project of 100,000
 * persons (and 3 events each over 60 days), then the time to compute — and swap in, one
 * transaction — a person-property cohort, a behavioral one ("$pageview at least twice in the
 * last 30 days") and one that nests the first and adds an event condition.
 *
 *   npm run bench:cohorts [-- --persons 100000]
 *
 * The server: DATABASE_URL, else TEST_POSTGRES_URL, else postgresql://root@127.0.0.1:5432/postgres;
 * a throwaway database is created there and dropped at the end.
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { persons: { type: "string", default: "100000" }, runs: { type: "string", default: "3" } } });
const PERSONS = Number(values.persons);
const RUNS = Number(values.runs);
if (process.env.DATABASE_URL && !process.env.TEST_POSTGRES_URL) process.env.TEST_POSTGRES_URL = process.env.DATABASE_URL;

const { createTestDatabase } = await import("@/test-support/db");
const { computeCohort } = await import("@/server/cohorts/worker");

const db = await createTestDatabase({ kind: "postgres", events: "postgres" });
try {
  const org = await db.prisma.organization.create({ data: { name: "bench" } });
  const project = await db.prisma.project.create({ data: { organizationId: org.id, name: "bench", apiToken: "phc_bench_cohorts" } });
  let started = performance.now();
  await db.sql.query(
    `INSERT INTO persons (project_id, properties, updated_at)
     SELECT $1::int, jsonb_build_object('email', 'user' || g || CASE WHEN g % 10 = 0 THEN '@acme.com' ELSE '@example.com' END,
                                        'plan', CASE WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END, 'age', g % 80), now()
       FROM generate_series(1, $2::int) g`,
    [project.id, PERSONS],
  );
  await db.sql.query(
    `INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp, person_id)
     SELECT gen_random_uuid(), $1::int, CASE WHEN (p.id + n) % 2 = 0 THEN '$pageview' ELSE 'signed_up' END, 'd' || p.id, '{}'::jsonb,
            now() - ((p.id * 7 + n * 13) % 60) * interval '1 day', p.uuid
       FROM persons p CROSS JOIN generate_series(1, 3) n WHERE p.project_id = $1::int`,
    [project.id],
  );
  await db.sql.exec("ANALYZE persons; ANALYZE events;");
  console.log(`seeded ${PERSONS} persons and ${PERSONS * 3} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const person = (key: string, operator: string, value: unknown) => ({ type: "person", key, operator, value, negation: false });
  const cohort = (name: string, properties: unknown) =>
    db.prisma.cohort.create({ data: { projectId: project.id, name, filters: { properties } as object, isCalculating: true } });
  const byProperties = await cohort("acme pros or over 70", {
    type: "OR",
    values: [
      { type: "AND", values: [person("email", "icontains", "@acme.com"), person("plan", "exact", ["pro"])] },
      { type: "AND", values: [person("age", "gt", 70)] },
    ],
  });
  const behavioral = await cohort("viewed twice in 30 days", {
    type: "AND",
    values: [{ type: "behavioral", key: "$pageview", value: "performed_event_multiple", event_type: "events", time_value: 30, time_interval: "day", operator: "gte", operator_value: 2 }],
  });
  const nested = await cohort("nested and signed up", {
    type: "AND",
    values: [
      { type: "cohort", key: "id", value: byProperties.id, negation: false },
      { type: "behavioral", key: "signed_up", value: "performed_event", event_type: "events", time_value: 14, time_interval: "day", negation: false },
    ],
  });

  console.log(`\nPostgreSQL server, ${PERSONS} persons: seconds to compute and swap in a cohort's membership (${RUNS} runs)`);
  for (const c of [byProperties, behavioral, nested]) {
    const times: number[] = [];
    let count = 0;
    for (let run = 0; run < RUNS; run++) {
      started = performance.now();
      const outcome = await computeCohort(db, c.id);
      times.push((performance.now() - started) / 1000);
      if (outcome.status !== "done") throw new Error(`${c.name}: ${JSON.stringify(outcome)}`);
      count = outcome.count;
    }
    console.log(`  ${c.name.padEnd(26)} ${String(count).padStart(7)} members   ${times.map((t) => t.toFixed(2)).join(" s, ")} s`);
  }
} finally {
  await db.close();
}
