/**
 * No background worker stalls a request (issue 31; the recording upkeep of issue 35 and the destinations' fan-out of issue 38 too): with enough data that one statement over
 * it held the embedded database's one connection for seconds, each worker's longest hold of
 * the connection (holds.ts, measured by the workers' handle) stays under the bound, a plain
 * query issued all through the run answers within it, and the worker's result is what it was.
 * On PostgreSQL the workers run on connections of their own, so the same plain query is never
 * held up either.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeCohort } from "@/server/cohorts/worker";
import { FanOut } from "@/server/destinations/worker";
import { runPersonDeletions } from "@/server/persons/deletion-worker";
import { runRecordingUpkeep } from "@/server/recordings/budget";
import type { Database } from "./client";
import { recordHolds, type HoldRecorder } from "./holds";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { seedWorkerProject } from "@/test-support/worker-seed";

/** The design target is ~50 ms; the assertion leaves room for a loaded CI machine. */
const BOUND_MS = 150;
/**
 * A machine at load 8 (CI beside other work) preempts the process now and then, so a single hold
 * or probe answer can take far longer than the work in it. A chunk that is too big shows in most
 * holds, a statement over the whole table in one hold of seconds: so all but 1% of them must be
 * within the bound, and none over this.
 */
const OUTLIER_MS = 3_000;

/** All but 1% (at least one) of `durations` within the bound, and none beyond OUTLIER_MS. */
function expectWithinBound(what: string, durations: readonly number[], context: string): void {
  const sorted = [...durations].sort((a, b) => a - b);
  const allowed = Math.max(1, Math.floor(sorted.length / 100));
  const typical = sorted[Math.max(0, sorted.length - 1 - allowed)] ?? 0;
  expect({ what, typical: typical <= BOUND_MS, slowest: (sorted.at(-1) ?? 0) <= OUTLIER_MS }, `${what}: ${context}`).toEqual({ what, typical: true, slowest: true });
}
const PERSONS = 40_000;
const EVENTS_PER_PERSON = 4;
const DELETED_PERSON_EVENTS = 50_000;

let db: Database;
let projectId: number;

beforeAll(async () => {
  db = await createTestDatabase({ events: "postgres" });
  projectId = await seedWorkerProject(db, "holds", PERSONS, EVENTS_PER_PERSON);
  await db.sql.exec("ANALYZE persons; ANALYZE events;");
}, 600_000);
afterAll(() => db?.close());

/** Runs `work` while a `SELECT 1` goes to the requests' connection every 5 ms; the slowest answer's time. */
async function withProbe<T>(work: () => Promise<T>): Promise<{ result: T; probeMs: number[] }> {
  let done = false;
  const probeMs: number[] = [];
  const probing = (async () => {
    while (!done) {
      const start = performance.now();
      await db.sql.query("SELECT 1");
      probeMs.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    return { result: await work(), probeMs };
  } finally {
    done = true;
    await probing;
  }
}

async function recorded<T>(work: () => Promise<T>): Promise<{ recorder: HoldRecorder; result: T; probeMs: number[] }> {
  const recorder = recordHolds();
  try {
    return { recorder, ...(await withProbe(work)) };
  } finally {
    recorder.stop();
  }
}

/** The longest holds, by whom, and the slowest probe answers: what a failure says. */
const longest = (recorder: HoldRecorder, probeMs: readonly number[]) =>
  `longest holds: ${[...recorder.holds]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map((hold) => `${hold.caller} ${hold.ms.toFixed(0)} ms`)
    .join(", ")} of ${recorder.holds.length}; slowest probes: ${[...probeMs]
    .sort((a, b) => b - a)
    .slice(0, 5)
    .map((ms) => ms.toFixed(0))
    .join(", ")} ms of ${probeMs.length}`;

/** The probe's answers and, on the embedded database, `caller`'s holds: many, and within the bound. */
function expectBriefHolds(recorder: HoldRecorder, probeMs: readonly number[], caller: string): void {
  expect(probeMs.length).toBeGreaterThan(0);
  expectWithinBound("probe answers", probeMs, longest(recorder, probeMs));
  if (testDbKind === "pglite") {
    expect(recorder.of(caller).length).toBeGreaterThan(10);
    expectWithinBound(`${caller} holds`, recorder.of(caller).map((hold) => hold.ms), longest(recorder, probeMs));
  }
}

describe(`workers hold the connection briefly (${testDbKind})`, () => {
  it("a cohort over 40,000 persons and 160,000 events: chunks within the bound, requests in between, the same members", async () => {
    const properties = {
      type: "AND",
      values: [
        { type: "person", key: "plan", operator: "exact", value: ["free"] },
        { type: "behavioral", key: "$pageview", value: "performed_event_multiple", event_type: "events", time_value: 30, time_interval: "day", operator: "gte", operator_value: 2 },
      ],
    };
    const cohort = await db.prisma.cohort.create({ data: { projectId, name: "busy", filters: { properties } as object, isCalculating: true } });
    // Members before: some who will stay, some who will go (a stale membership to correct).
    await db.sql.query(`INSERT INTO cohort_people (cohort_id, person_id, version) SELECT $1::int, id, 0 FROM persons WHERE project_id = $2::int AND id % 5 = 0`, [cohort.id, projectId]);

    const { recorder, result, probeMs } = await recorded(() => computeCohort(db, cohort.id));
    expect(result.status).toBe("done");

    const expected = await db.sql.query<{ id: number }>(
      `SELECT p.id FROM persons p WHERE p.project_id = $1::int AND p.properties->>'plan' = 'free'
          AND p.uuid IN (SELECT person_id FROM events WHERE project_id = $1::int AND event = '$pageview' AND timestamp >= now() - interval '30 days'
                          GROUP BY person_id HAVING count(*) >= 2)
        ORDER BY p.id`,
      [projectId],
    );
    const actual = await db.sql.query<{ person_id: number }>(`SELECT person_id FROM cohort_people WHERE cohort_id = $1::int ORDER BY person_id`, [cohort.id]);
    expect(expected.length).toBeGreaterThan(1_000);
    expect(actual.map((row) => row.person_id)).toEqual(expected.map((row) => row.id));
    expect(result).toEqual({ status: "done", count: expected.length });
    expect(await db.prisma.cohort.findUniqueOrThrow({ where: { id: cohort.id } })).toMatchObject({ count: expected.length, isCalculating: false, computedVersion: 1 });

    // On the embedded database many chunks; on PostgreSQL one transaction, on the workers' own connection.
    expectBriefHolds(recorder, probeMs, "cohorts");
    expect(recorder.of("cohorts").length).toBeGreaterThan(0);
  }, 300_000);

  it("deleting a person with 50,000 events: batches within the bound, requests in between, every event gone", async () => {
    const uuid = randomUUID();
    await db.sql.query(
      `INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp, person_id)
       SELECT gen_random_uuid(), $1::int, '$pageview', CASE WHEN g % 2 = 0 THEN 'doomed' ELSE 'doomed-anon' END, '{"$session_id": "s"}'::jsonb,
              now() - (g % 1000) * interval '1 minute', CASE WHEN g % 2 = 0 THEN $2::uuid END
         FROM generate_series(1, $3::int) g`,
      [projectId, uuid, DELETED_PERSON_EVENTS],
    );
    await db.sql.query(`INSERT INTO person_deletions (project_id, person_uuid, distinct_ids) VALUES ($1::int, $2::uuid, $3::text[])`, [projectId, uuid, ["doomed", "doomed-anon"]]);
    const others = async () => (await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1::int`, [projectId]))[0]!.n;
    const before = await others();

    const { recorder, result, probeMs } = await recorded(() => runPersonDeletions(db));
    expect(result).toMatchObject({ finished: 1, deletedEvents: DELETED_PERSON_EVENTS, failed: 0 });
    expect(await others()).toBe(before - DELETED_PERSON_EVENTS);
    const [deletion] = await db.sql.query<{ deleted_events: number; finished_at: Date | null }>(`SELECT deleted_events, finished_at FROM person_deletions WHERE person_uuid = $1::uuid`, [uuid]);
    expect(deletion).toMatchObject({ deleted_events: DELETED_PERSON_EVENTS });
    expect(deletion!.finished_at).not.toBeNull();

    expectBriefHolds(recorder, probeMs, "person-deletions");
  }, 300_000);

  it("fanning 5,000 routed events out to 5 destinations: steps within the bound, requests in between, every row there", async () => {
    const EVENTS = 5_000;
    const destinations = (
      await db.sql.query<{ id: string }>(
        `INSERT INTO hog_functions (id, project_id, type, name, updated_at) SELECT gen_random_uuid(), $1::int, 'destination', 'hold ' || g, now() FROM generate_series(1, 5) g RETURNING id::text`,
        [projectId],
      )
    ).map((row) => row.id);
    await db.events.insert(
      Array.from({ length: EVENTS }, (_, i) => ({ uuid: randomUUID(), projectId, event: "routed", distinctId: `r${i}`, properties: { i }, timestamp: new Date(), destinations })),
    );
    // The statistics upkeep's ANALYZE of what the test writes runs outside the measured work (and the next
    // test's): its check scheduled by the insert has run, then every table due is analyzed, before and after.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await db.statistics.check();
    const sql = db.sql.worker.as("destinations");
    const fanOut = new FanOut(sql);
    const { recorder, result, probeMs } = await recorded(async () => {
      let rows = 0;
      for (let added = 1; added > 0; rows += added) added = await fanOut.step();
      return rows;
    });
    expect(result).toBe(EVENTS * destinations.length);
    const [fanned] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM hog_function_outbox WHERE hog_function_id = ANY($1::uuid[])`, [destinations]);
    expect(fanned!.n).toBe(EVENTS * destinations.length);
    await db.statistics.check();
    expectBriefHolds(recorder, probeMs, "destinations");
  }, 300_000);

  it("analyzing 190,000 events five times: each ANALYZE within the bound, requests in between", async () => {
    // Events as posthog-js sends them carry a kilobyte or two of properties: those are what make a full sample slow.
    await db.sql.query(
      `INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp)
       SELECT gen_random_uuid(), $1::int, 'analyzed', 'a' || g, (SELECT jsonb_object_agg('$prop_' || k, md5(g::text || k::text)) FROM generate_series(1, 20) k), now()
         FROM generate_series(1, 30000) g`,
      [projectId],
    );
    const { recorder, probeMs } = await recorded(async () => {
      for (let run = 0; run < 5; run++) await db.statistics.analyze(["events"]);
    });
    expect(probeMs.length).toBeGreaterThan(0);
    expectWithinBound("probe answers", probeMs, longest(recorder, probeMs));
    if (testDbKind === "pglite") {
      // Each ANALYZE is one hold, and the read of the table's new row count another, shorter one.
      const analyzes = recorder.of("statistics").map((hold) => hold.ms).sort((a, b) => b - a).slice(0, 5);
      expect(analyzes).toHaveLength(5);
      // One of the five may be a preempted outlier (see OUTLIER_MS). With PostgreSQL's default sample (30,000 rows) each held it 142-178 ms here; with 3,000, 15-31 ms.
      expect(analyzes[1]!, longest(recorder, probeMs)).toBeLessThanOrEqual(BOUND_MS);
      expect(analyzes[0]!, longest(recorder, probeMs)).toBeLessThanOrEqual(OUTLIER_MS);
    }
  }, 120_000);

  it("expiring 2,000 recordings of 20 chunks each: deletes within the bound, requests in between, every one gone", async () => {
    const RECORDINGS = 2_000;
    await db.sql.query(
      `INSERT INTO recordings (project_id, session_id, distinct_id, start_time, end_time, size_bytes, chunk_count)
       SELECT $1::int, 'expired-' || g, 'v', now() - interval '100 days' - g * interval '1 second', now() - interval '100 days', 40000, 20
         FROM generate_series(1, $2::int) g`,
      [projectId, RECORDINGS],
    );
    await db.sql.query(
      `INSERT INTO recording_chunks (project_id, session_id, window_id, first_timestamp, last_timestamp, event_count, raw_bytes, data)
       SELECT $1::int, 'expired-' || g, 'w', now() - interval '100 days', now() - interval '100 days', 10, 2000, decode(repeat(md5(g::text || '-' || c), 62), 'hex')
         FROM generate_series(1, $2::int) g, generate_series(1, 20) c`,
      [projectId, RECORDINGS],
    );
    const left = async () => (await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM recording_chunks WHERE project_id = $1::int`, [projectId]))[0]!.n;
    expect(await left()).toBe(RECORDINGS * 20);

    const { recorder, result, probeMs } = await recorded(() => runRecordingUpkeep(db));
    expect(result).toEqual({ expired: RECORDINGS, evicted: 0 });
    expect(await left()).toBe(0);
    expectBriefHolds(recorder, probeMs, "recording-upkeep");
  }, 300_000);
});
