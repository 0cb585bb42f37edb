/**
 * The lead's benchmark, run on demand (BURROW_BENCH=1): a 3-step, 30-day funnel over
 * 1,000,000 events of 100,000 persons (three funnel events and noise), timing the event
 * read (actorEvents) and the whole query apart. Skipped in ordinary runs.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/server/db/testing";
import type { StoredEventInput } from "@/server/db/events";
import type { QueryEnv } from "@/server/analytics/kind";
import { postgresActorEventsStatement } from "@/server/db/events/postgres-actor-events";
import { funnelsKind, planOf } from "./service";
import { StepsWalker } from "./walk";
import type { FunnelStepResult } from "./present";

const PERSONS = 100_000;
const EVENTS_PER_PERSON = 10;
const START = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;

let db: Database;
let env: QueryEnv;

describe.skipIf(!process.env.BURROW_BENCH)(`funnel benchmark (${testStoresName})`, () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    registerDb(db);
    const projectId = (await bootstrap(db.prisma, { email: "bench@example.com", password: "pw12345678" })).project_id;
    env = { db, projectId, zone: "UTC", now: new Date(START + 31 * DAY) };
    // A fixed pseudo-random sequence, so every run measures the same data.
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
    const names = ["step a", "step b", "step c", "$pageview", "$pageview", "clicked", "step a", "step b", "$pageview", "scrolled"];
    let batch: StoredEventInput[] = [];
    const started = Date.now();
    for (let p = 0; p < PERSONS; p++) {
      const person = randomUUID();
      const base = START + random() * 28 * DAY;
      for (let e = 0; e < EVENTS_PER_PERSON; e++) {
        batch.push({
          uuid: randomUUID(),
          projectId,
          event: names[Math.floor(random() * names.length)]!,
          distinctId: `d${p}`,
          personId: person,
          properties: { $browser: random() < 0.5 ? "Chrome" : "Safari" },
          timestamp: new Date(base + random() * 2 * DAY),
        });
      }
      if (batch.length >= 50_000) {
        await db.events.insert(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await db.events.insert(batch);
    console.log(`inserted ${PERSONS * EVENTS_PER_PERSON} events in ${Date.now() - started} ms`);
  }, 1_800_000);

  afterAll(() => closeDb());

  it("computes a 3-step, 30-day funnel over 1M events", async () => {
    const query = {
      kind: "FunnelsQuery",
      series: [{ event: "step a" }, { event: "step b" }, { event: "step c" }],
      dateRange: { date_from: "2024-01-01", date_to: "2024-01-30" },
    };
    const spec = funnelsKind.spec(query, null);
    const timings: number[] = [];
    let result: FunnelStepResult[] = [];
    for (let run = 0; run < 4; run++) {
      const started = performance.now();
      result = (await funnelsKind.compute(env, spec)).results as FunnelStepResult[];
      timings.push(performance.now() - started);
    }
    const readOnce = () =>
      db.events.actorEvents(env.projectId, {
        from: new Date(START),
        to: new Date(START + 30 * DAY - 1),
        now: env.now,
        filters: [],
        matchers: ["step a", "step b", "step c"].map((event) => ({ event, filters: [] })),
        everyEvent: false,
        values: [],
      });
    // Alternating, so that a busy machine weighs on both alike.
    const alternating: string[] = [];
    for (let run = 0; run < 3; run++) {
      let started = performance.now();
      await readOnce();
      const readMs = performance.now() - started;
      started = performance.now();
      await funnelsKind.compute(env, spec);
      alternating.push(`read ${readMs.toFixed(0)} / query ${(performance.now() - started).toFixed(0)}`);
    }
    console.log(`alternating (ms): ${alternating.join("; ")}`);
    const readStarted = performance.now();
    const actors = await readOnce();
    const read = performance.now() - readStarted;
    const walkStarted = performance.now();
    const walker = new StepsWalker(planOf(spec));
    let reached = 0;
    for (const actor of actors) if (walker.walk({ times: actor.times, masks: actor.masks, values: null }) >= 0) reached++;
    const walked = performance.now() - walkStarted;
    console.log(`walk alone ${walked.toFixed(0)} ms (${reached} persons counted)`);
    if (db.events.kind === "postgres") {
      const statement = postgresActorEventsStatement(env.projectId, {
        from: new Date(START),
        to: new Date(START + 30 * DAY - 1),
        now: env.now,
        filters: [],
        matchers: ["step a", "step b", "step c"].map((event) => ({ event, filters: [] })),
        everyEvent: false,
        values: [],
      });
      const plan = await db.sql.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
      console.log(plan.map((row) => row["QUERY PLAN"]).join("\n"));
      const sqlStarted = performance.now();
      await db.sql.query(statement.text, statement.values);
      console.log(`the statement through db.sql: ${(performance.now() - sqlStarted).toFixed(0)} ms`);
    }
    if (db.events.kind === "postgres") {
      // Fresh bulk inserts have no statistics until autovacuum analyzes them: measure after ANALYZE too.
      await db.sql.query("ANALYZE events");
      const analyzed: number[] = [];
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        await funnelsKind.compute(env, spec);
        analyzed.push(performance.now() - started);
      }
      console.log(`after ANALYZE: runs ${analyzed.map((t) => t.toFixed(0)).join(", ")} ms`);
      const statement = postgresActorEventsStatement(env.projectId, {
        from: new Date(START),
        to: new Date(START + 30 * DAY - 1),
        now: env.now,
        filters: [],
        matchers: ["step a", "step b", "step c"].map((event) => ({ event, filters: [] })),
        everyEvent: false,
        values: [],
      });
      const plan = await db.sql.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
      console.log(plan.map((row) => row["QUERY PLAN"]).join("\n"));
    }
    console.log(
      `funnel ${testStoresName}: runs ${timings.map((t) => t.toFixed(0)).join(", ")} ms; actorEvents alone ${read.toFixed(0)} ms for ${actors.length} actors, ` +
        `${actors.reduce((sum, a) => sum + a.times.length, 0)} events; counts ${result.map((step) => step.count).join(", ")}`,
    );
    expect(result[0]!.count).toBeGreaterThan(0);
  }, 600_000);
});
