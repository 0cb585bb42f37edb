/**
 * `actorBuckets`, the per-actor calendar read retention, stickiness and lifecycle start
 * from, on whichever store the run uses: buckets per interval in the project's zone (weeks
 * from Sunday), a bit per matcher, counts, the first-ever bucket, filters, and actors
 * without a person.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { closeDb, registerDb } from "@/server/db";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { ANONYMOUS_ACTOR, type ActorBucketsQuery, type StoredEventInput } from "@/server/db/events";

let db: Database;
let projectId: number;
const alice = "0190a000-0000-7000-8000-00000000a11c";
const bob = "0190a000-0000-7000-8000-000000000b0b";
const utc = (text: string) => new Date(`${text}Z`);
const wall = (text: string) => utc(text).getTime();

const event = (e: Partial<StoredEventInput>): StoredEventInput => ({ uuid: uuidv7(), projectId, event: "e", distinctId: "d", properties: {}, timestamp: utc("2024-03-01T12:00:00"), ...e });

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  projectId = (await bootstrap(db.prisma, { email: "actor-buckets@example.com", password: "pw12345678" })).project_id;
  for (const [uuid, plan] of [[alice, "pro"], [bob, "free"]] as const) {
    await db.sql.query(`INSERT INTO persons (uuid, project_id, properties, updated_at) VALUES ($1::uuid, $2::int, $3::jsonb, now())`, [uuid, projectId, JSON.stringify({ plan })]);
  }
  await db.events.insert([
    // Before the range: alice's first pageview ever.
    event({ personId: alice, event: "$pageview", properties: { $browser: "Safari" }, timestamp: utc("2024-02-20T10:00:00") }),
    event({ personId: alice, event: "$pageview", properties: { $browser: "Chrome" }, timestamp: utc("2024-03-01T10:00:00") }),
    event({ personId: alice, event: "$pageview", properties: { $browser: "Chrome" }, timestamp: utc("2024-03-01T11:00:00") }),
    event({ personId: alice, event: "buy", timestamp: utc("2024-03-03T23:59:59.999") }),
    event({ personId: bob, event: "$pageview", properties: { $browser: "Chrome" }, timestamp: utc("2024-03-02T00:00:00") }),
    event({ personId: bob, event: "buy", timestamp: utc("2024-03-02T05:00:00") }),
    event({ distinctId: "anon", event: "$pageview", timestamp: utc("2024-03-04T08:00:00") }),
    // At the range's (exclusive) end.
    event({ personId: bob, event: "$pageview", timestamp: utc("2024-03-08T00:00:00") }),
  ]);
});

afterAll(() => closeDb());

const base: ActorBucketsQuery = {
  from: utc("2024-03-01T00:00:00"),
  to: utc("2024-03-08T00:00:00"),
  zone: "UTC",
  interval: "day",
  now: utc("2024-03-10T00:00:00"),
  filters: [],
  matchers: [
    { event: "$pageview", filters: [] },
    { event: "buy", filters: [] },
  ],
  counts: false,
  firstEver: null,
};

const byActor = async (query: ActorBucketsQuery) => Object.fromEntries((await db.events.actorBuckets(projectId, query)).map(({ actor, ...rest }) => [actor, rest]));

describe(`actorBuckets (${testStoresName})`, () => {
  it("gives each actor's buckets of the range in order with a bit per matcher, the end exclusive", async () => {
    expect(await byActor(base)).toEqual({
      [alice]: { buckets: [wall("2024-03-01T00:00:00"), wall("2024-03-03T00:00:00")], masks: [1, 2], counts: [], firstEver: null },
      [bob]: { buckets: [wall("2024-03-02T00:00:00")], masks: [3], counts: [], firstEver: null },
      [`${ANONYMOUS_ACTOR}anon`]: { buckets: [wall("2024-03-04T00:00:00")], masks: [1], counts: [], firstEver: null },
    });
  });

  it("counts each matcher's events per bucket when asked", async () => {
    const answer = await byActor({ ...base, counts: true });
    expect(answer[alice]!.counts).toEqual([
      [2, 0],
      [0, 1],
    ]);
    expect(answer[bob]!.counts).toEqual([[1, 1]]);
  });

  it("buckets on the zone's wall clock: weeks from Sunday, months, hours", async () => {
    // 3 March 2024 is a Sunday; in New York alice's buy (23:59 UTC on the 3rd) is on the 3rd still, bob's first pageview on 1 March.
    const weeks = await byActor({ ...base, interval: "week", zone: "America/New_York" });
    expect(weeks[alice]!.buckets).toEqual([wall("2024-02-25T00:00:00"), wall("2024-03-03T00:00:00")]);
    expect(weeks[bob]!.buckets).toEqual([wall("2024-02-25T00:00:00")]);
    const months = await byActor({ ...base, interval: "month", zone: "Asia/Kolkata" });
    expect(months[alice]!.buckets).toEqual([wall("2024-03-01T00:00:00")]);
    const hours = await byActor({ ...base, interval: "hour", zone: "Asia/Kolkata" });
    expect(hours[alice]!.buckets).toEqual([wall("2024-03-01T15:00:00"), wall("2024-03-01T16:00:00"), wall("2024-03-04T05:00:00")]);
  });

  it("applies the filters and the matchers' own filters, person properties included", async () => {
    const chrome = { type: "AND" as const, values: [{ type: "event" as const, key: "$browser", operator: "exact" as const, value: ["Chrome"], negation: false }] };
    const pro = { type: "AND" as const, values: [{ type: "person" as const, key: "plan", operator: "exact" as const, value: ["pro"], negation: false }] };
    const answer = await byActor({ ...base, filters: [pro], matchers: [{ event: "$pageview", filters: [chrome] }] });
    expect(answer).toEqual({ [alice]: { buckets: [wall("2024-03-01T00:00:00")], masks: [1], counts: [], firstEver: null } });
  });

  it("finds the first-ever bucket over all time (none when before the range), and only when it is the first of another matcher with onlyIfFirstOf", async () => {
    const first = await byActor({ ...base, firstEver: { matcher: 0, onlyIfFirstOf: null } });
    expect(first[alice]!.firstEver).toBeNull();
    expect(first[bob]!.firstEver).toBe(wall("2024-03-02T00:00:00"));
    expect(first[`${ANONYMOUS_ACTOR}anon`]!.firstEver).toBe(wall("2024-03-04T00:00:00"));

    const chrome = { type: "AND" as const, values: [{ type: "event" as const, key: "$browser", operator: "exact" as const, value: ["Chrome"], negation: false }] };
    const chromeFirst = await byActor({ ...base, matchers: [{ event: "$pageview", filters: [chrome] }], firstEver: { matcher: 0, onlyIfFirstOf: null } });
    expect(chromeFirst[alice]!.firstEver).toBe(wall("2024-03-01T00:00:00"));
    // alice's first pageview ever was Safari: her first Chrome pageview is not her first pageview.
    const firstOccurrence = await byActor({
      ...base,
      matchers: [{ event: "$pageview", filters: [chrome] }],
      firstEver: { matcher: 0, onlyIfFirstOf: { event: "$pageview", filters: [] } },
    });
    expect(firstOccurrence[alice]!.firstEver).toBeNull();
    expect(firstOccurrence[bob]!.firstEver).toBe(wall("2024-03-02T00:00:00"));
  });

  it("answers alike whether it folds masks or groups by bucket (counts asked)", async () => {
    const withoutCounts = ({ counts, ...rest }: { counts: number[][] }) => (void counts, rest);
    for (const query of [
      base,
      { ...base, interval: "hour" as const, zone: "Asia/Kolkata" },
      { ...base, interval: "week" as const, zone: "America/New_York", firstEver: { matcher: 0, onlyIfFirstOf: null } },
      { ...base, firstEver: { matcher: 1, onlyIfFirstOf: { event: null, filters: [] } } },
    ]) {
      const masks = await byActor(query);
      const grouped = await byActor({ ...query, counts: true });
      expect(Object.fromEntries(Object.entries(grouped).map(([actor, row]) => [actor, withoutCounts(row)]))).toEqual(
        Object.fromEntries(Object.entries(masks).map(([actor, row]) => [actor, withoutCounts(row)])),
      );
    }
  });

  it("reads a calendar longer than one mask word (hours over a week)", async () => {
    const hours = await byActor({ ...base, interval: "hour" });
    expect(hours[alice]!.buckets).toEqual([wall("2024-03-01T10:00:00"), wall("2024-03-01T11:00:00"), wall("2024-03-03T23:00:00")]);
    expect(hours[alice]!.masks).toEqual([1, 1, 2]);
    expect(hours[`${ANONYMOUS_ACTOR}anon`]!.buckets).toEqual([wall("2024-03-04T08:00:00")]);
  });
});
