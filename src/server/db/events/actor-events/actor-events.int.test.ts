/**
 * `actorEvents`, the per-actor read funnels and paths start from, on whichever store the
 * run uses: masks per matcher, values (event, person, path), the range, filters, and
 * actors without a person.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { closeDb, registerDb } from "@/server/db";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { ANONYMOUS_ACTOR, type ActorEventsQuery, type StoredEventInput } from "@/server/db/events";

let db: Database;
let projectId: number;
const alice = "0190a000-0000-7000-8000-00000000a11c";
const bob = "0190a000-0000-7000-8000-000000000b0b";
const at = (minute: number) => new Date(Date.UTC(2024, 2, 1, 12, minute));

const event = (e: Partial<StoredEventInput>): StoredEventInput => ({ uuid: uuidv7(), projectId, event: "e", distinctId: "d", properties: {}, timestamp: at(0), ...e });

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  projectId = (await bootstrap(db.prisma, { email: "actor-events@example.com", password: "pw12345678" })).project_id;
  for (const [uuid, plan] of [[alice, "pro"], [bob, "free"]] as const) {
    await db.sql.query(`INSERT INTO persons (uuid, project_id, properties, updated_at) VALUES ($1::uuid, $2::int, $3::jsonb, now())`, [uuid, projectId, JSON.stringify({ plan })]);
  }
  await db.events.insert([
    event({ personId: alice, distinctId: "a", event: "$pageview", properties: { $current_url: "https://x.test/home/", $browser: "Chrome" }, timestamp: at(1) }),
    event({ personId: alice, distinctId: "a", event: "signed_up", properties: { $browser: "Chrome", n: 3 }, timestamp: at(2) }),
    event({ personId: alice, distinctId: "a", event: "$screen", properties: { $screen_name: "Settings" }, timestamp: at(3) }),
    event({ personId: bob, distinctId: "b", event: "$pageview", properties: { $current_url: "/", $browser: "" }, timestamp: at(2) }),
    event({ personId: bob, distinctId: "b", event: "other", timestamp: at(4) }),
    event({ distinctId: "anon", event: "signed_up", timestamp: at(5) }),
    event({ personId: bob, distinctId: "b", event: "signed_up", timestamp: at(90) }),
  ]);
});

afterAll(() => closeDb());

const base: ActorEventsQuery = {
  from: at(0),
  to: at(60),
  now: at(60),
  filters: [],
  matchers: [
    { event: "$pageview", filters: [] },
    { event: "signed_up", filters: [] },
  ],
  everyEvent: false,
  values: [],
};

const byActor = async (query: ActorEventsQuery) =>
  Object.fromEntries((await db.events.actorEvents(projectId, query)).map((a) => [a.actor, { times: a.times.map((t) => (t - at(0).getTime()) / 60_000), masks: a.masks, values: a.values }]));

describe(`actorEvents (${testStoresName})`, () => {
  it("reads each actor's matching events of the range in time order, a bit per matcher", async () => {
    expect(await byActor(base)).toEqual({
      [alice]: { times: [1, 2], masks: [1, 2], values: [] },
      [bob]: { times: [2], masks: [1], values: [] },
      [`${ANONYMOUS_ACTOR}anon`]: { times: [5], masks: [2], values: [] },
    });
  });

  it("reads every event of the range with everyEvent, unmatched ones with mask 0", async () => {
    const answer = await byActor({ ...base, everyEvent: true, values: [{ type: "path" }] });
    expect(answer[alice]).toEqual({ times: [1, 2, 3], masks: [1, 2, 0], values: [["https://x.test/home", "signed_up", "Settings"]] });
    // One trailing slash goes, but never the path's only character.
    expect(answer[bob]).toEqual({ times: [2, 4], masks: [1, 0], values: [["/", "other"]] });
  });

  it("reads event and person values as PostgreSQL's ->> gives them, '' and missing as null", async () => {
    const answer = await byActor({ ...base, values: [{ type: "event", key: "$browser" }, { type: "person", key: "plan" }, { type: "event", key: "n" }] });
    expect(answer[alice]!.values).toEqual([["Chrome", "Chrome"], ["pro", "pro"], [null, "3"]]);
    expect(answer[bob]!.values).toEqual([[null], ["free"], [null]]);
    expect(answer[`${ANONYMOUS_ACTOR}anon`]!.values).toEqual([[null], [null], [null]]);
  });

  it("applies the global filters and each matcher's own", async () => {
    const chrome = { type: "AND" as const, values: [{ key: "$browser", value: "Chrome", operator: "exact" as const, type: "event" as const, negation: false }] };
    const pro = { type: "AND" as const, values: [{ key: "plan", value: "pro", operator: "exact" as const, type: "person" as const, negation: false }] };
    expect(Object.keys(await byActor({ ...base, filters: [pro] }))).toEqual([alice]);
    const answer = await byActor({ ...base, matchers: [{ event: "$pageview", filters: [chrome] }, { event: null, filters: [] }] });
    expect(answer[alice]!.masks).toEqual([3, 2, 2]);
    expect(answer[bob]!.masks).toEqual([2, 2]);
  });
});
