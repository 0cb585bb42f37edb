/**
 * Persons: creation on first sight, $set/$set_once/$unset, PostHog's identify/alias/merge
 * rules and concurrency — through the capture handlers and PersonsService on a real
 * database, reading persons back with SQL.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase, createTestDatabase, testDbKind, testEventStoreKind } from "@/test-support/db";
import { handleBatch, handleCaptureEvents } from "@/server/http/capture";
import { PersonsService, propertyUpdateOf } from "./identity";

interface PersonRow {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: Date;
  distinct_ids: string[];
}

let db: Database;
let projectId: number;
let key: string;

let counter = 0;
const uid = (label: string) => `${label}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

async function capture(event: Record<string, unknown>): Promise<void> {
  const response = await handleCaptureEvents(
    new Request("http://burrow.test/capture/", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: key, ...event }) }),
  );
  expect(response.status, await response.clone().text()).toBe(200);
}

async function personOf(distinctId: string): Promise<PersonRow | null> {
  const rows = await db.sql.query<PersonRow>(
    `SELECT p.id, p.uuid::text AS uuid, p.properties, p.is_identified, p.created_at,
            (SELECT array_agg(d2.distinct_id ORDER BY d2.distinct_id) FROM person_distinct_ids d2 WHERE d2.person_id = p.id) AS distinct_ids
       FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id
      WHERE d.project_id = $1 AND d.distinct_id = $2`,
    [projectId, distinctId],
  );
  return rows[0] ?? null;
}

async function personIdsOfEvents(distinctIds: string[]): Promise<Array<{ distinct_id: string; event: string; person_id: string }>> {
  return db.sql.query(
    `SELECT distinct_id, event, person_id::text AS person_id FROM events WHERE project_id = $1 AND distinct_id = ANY($2::text[]) ORDER BY timestamp, event`,
    [projectId, distinctIds],
  );
}

async function personExists(id: number): Promise<boolean> {
  const rows = await db.sql.query(`SELECT 1 FROM persons WHERE id = $1`, [id]);
  return rows.length > 0;
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const alice = await bootstrap(db.prisma, { email: "persons@example.com", password: "pw12345678" });
  projectId = alice.project_id;
  key = alice.project_api_key;
});

afterAll(async () => {
  await closeDb();
});

// It reads the PostgreSQL events table directly, so it runs where events are there (not with BURROW_TEST_EVENTS=clickhouse).
describe.skipIf(testEventStoreKind === "clickhouse")(`persons (${testDbKind})`, () => {
  describe("creation", () => {
    it("creates an anonymous person with no properties for a new distinct id", async () => {
      const d = uid("new");
      await capture({ event: "$pageview", distinct_id: d });
      const person = await personOf(d);
      expect(person).toMatchObject({ properties: {}, is_identified: false, distinct_ids: [d] });
      expect((await personIdsOfEvents([d]))[0]!.person_id).toBe(person!.uuid);
    });

    it("dates a new person by its first event, as PostHog (lifecycle's 'new' reads it), never in the future", async () => {
      const past = uid("past");
      await capture({ event: "$pageview", distinct_id: past, timestamp: "2024-03-01T12:00:00Z" });
      expect((await personOf(past))!.created_at.toISOString()).toBe("2024-03-01T12:00:00.000Z");
      const identified = uid("identified");
      await capture({ event: "$identify", distinct_id: identified, timestamp: "2024-02-01T08:00:00Z", properties: { $anon_distinct_id: uid("anon") } });
      expect((await personOf(identified))!.created_at.toISOString()).toBe("2024-02-01T08:00:00.000Z");
      const future = uid("future");
      const before = Date.now();
      await capture({ event: "$pageview", distinct_id: future, timestamp: "2099-01-01T00:00:00Z" });
      expect((await personOf(future))!.created_at.getTime()).toBeLessThanOrEqual(Date.now());
      expect((await personOf(future))!.created_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    });

    it("reuses the person for the next events of the same distinct id", async () => {
      const d = uid("again");
      await capture({ event: "a", distinct_id: d });
      await capture({ event: "b", distinct_id: d });
      const events = await personIdsOfEvents([d]);
      expect(events).toHaveLength(2);
      expect(new Set(events.map((e) => e.person_id)).size).toBe(1);
      const [{ n }] = (await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM person_distinct_ids WHERE distinct_id = $1`, [d])) as [{ n: number }];
      expect(n).toBe(1);
    });

    it("keeps persons of different projects apart for the same distinct id", async () => {
      const d = uid("cross");
      const organizationId = (await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).organizationId;
      const other = await db.prisma.project.create({ data: { organizationId, name: "P2", apiToken: `phc_persons_${counter}` } });
      await capture({ event: "a", distinct_id: d });
      await capture({ event: "a", distinct_id: d, api_key: other.apiToken });
      const rows = await db.sql.query<{ project_id: number }>(`SELECT project_id FROM person_distinct_ids WHERE distinct_id = $1 ORDER BY project_id`, [d]);
      expect(rows.map((r) => r.project_id)).toEqual([projectId, other.id].sort((a, b) => a - b));
    });
  });

  describe("property updates on any event", () => {
    it("$set overwrites, $set_once fills only missing keys, $unset removes", async () => {
      const d = uid("props");
      await capture({ event: "signed up", distinct_id: d, properties: { $set: { plan: "free", name: "Ann" }, $set_once: { first_seen: "mon" } } });
      await capture({ event: "upgraded", distinct_id: d, properties: { $set: { plan: "pro" }, $set_once: { first_seen: "tue", referrer: "ad" } } });
      await capture({ event: "renamed", distinct_id: d, $set: { name: "Anna" }, properties: { $unset: ["referrer", "not-there"] } });
      const person = await personOf(d);
      expect(person!.properties).toEqual({ plan: "pro", name: "Anna", first_seen: "mon" });
      expect(person!.is_identified).toBe(false);
    });

    it("applies $set and $set_once of one event together ($set wins on the same key)", async () => {
      const d = uid("both");
      await capture({ event: "x", distinct_id: d, properties: { $set: { k: "set" }, $set_once: { k: "once", o: 1 } } });
      expect((await personOf(d))!.properties).toEqual({ k: "set", o: 1 });
    });

    it("ignores $unset entries that are not strings and a $set that is not an object", async () => {
      const d = uid("junk");
      await capture({ event: "x", distinct_id: d, properties: { $set: { a: 1, b: 2 } } });
      await capture({ event: "x", distinct_id: d, properties: { $set: "nope", $unset: [1, null, "b"] } });
      expect((await personOf(d))!.properties).toEqual({ a: 1 });
    });

    it("stores nested values and nulls as given", async () => {
      const d = uid("nested");
      await capture({ event: "x", distinct_id: d, $set: { address: { city: "Oslo", zip: ["0150"] }, gone: null } });
      expect((await personOf(d))!.properties).toEqual({ address: { city: "Oslo", zip: ["0150"] }, gone: null });
    });

    it("propertyUpdateOf is null when an event changes nothing", () => {
      expect(propertyUpdateOf({ a: 1 })).toBeNull();
      expect(propertyUpdateOf({ $set: {}, $set_once: {}, $unset: [] })).toBeNull();
      expect(propertyUpdateOf({ $unset: ["x", 3] })).toEqual({ set: {}, setOnce: {}, unset: ["x"] });
    });
  });

  describe("$identify", () => {
    it("without $anon_distinct_id marks the person identified", async () => {
      const d = uid("ident");
      await capture({ event: "$pageview", distinct_id: d });
      await capture({ event: "$identify", distinct_id: d, $set: { email: "i@example.com" } });
      expect(await personOf(d)).toMatchObject({ is_identified: true, properties: { email: "i@example.com" } });
    });

    it("with both ids new creates one identified person holding both", async () => {
      const user = uid("user");
      const anon = uid("anon");
      await capture({ event: "$identify", distinct_id: user, properties: { $anon_distinct_id: anon, $set: { email: "u@example.com" } } });
      const person = await personOf(user);
      expect(person).toMatchObject({ is_identified: true, properties: { email: "u@example.com" } });
      expect(person!.distinct_ids).toEqual([anon, user].sort());
      expect((await personIdsOfEvents([user]))[0]!.person_id).toBe(person!.uuid);
    });

    it("attaches the new identified id to the known anonymous person", async () => {
      const user = uid("user");
      const anon = uid("anon");
      await capture({ event: "$pageview", distinct_id: anon, $set: { seen: true } });
      const before = await personOf(anon);
      await capture({ event: "$identify", distinct_id: user, properties: { $anon_distinct_id: anon } });
      const after = await personOf(user);
      expect(after!.id).toBe(before!.id);
      expect(after).toMatchObject({ is_identified: true, properties: { seen: true }, distinct_ids: [anon, user].sort() });
      const events = await personIdsOfEvents([anon, user]);
      expect(new Set(events.map((e) => e.person_id))).toEqual(new Set([before!.uuid]));
    });

    it("attaches a new anonymous id to the known identified person", async () => {
      const user = uid("user");
      const anon = uid("anon");
      await capture({ event: "$identify", distinct_id: user });
      const before = await personOf(user);
      await capture({ event: "$identify", distinct_id: user, properties: { $anon_distinct_id: anon } });
      expect(await personOf(anon)).toMatchObject({ id: before!.id, distinct_ids: [anon, user].sort() });
    });

    it("merges a known anonymous person into a known identified one", async () => {
      const user = uid("user");
      const anon = uid("anon");
      await capture({ event: "anon 1", distinct_id: anon, $set: { shared: "anon", only_anon: 1 }, timestamp: "2025-01-01T00:00:00Z" });
      await capture({ event: "anon 2", distinct_id: anon, timestamp: "2025-01-02T00:00:00Z" });
      await capture({ event: "$identify", distinct_id: user, $set: { shared: "user", only_user: 2 }, timestamp: "2025-01-03T00:00:00Z" });
      const source = (await personOf(anon))!;
      const target = (await personOf(user))!;
      expect(source.id).not.toBe(target.id);
      // The anonymous person is older: its created_at must survive the merge.
      await db.sql.query(`UPDATE persons SET created_at = '2020-05-05T05:05:05Z' WHERE id = $1`, [source.id]);
      await db.sql.query(
        `INSERT INTO feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key) VALUES ($1, $2, 'flag-a', 'anon-hash'), ($1, $2, 'flag-b', 'anon-hash'), ($1, $3, 'flag-b', 'user-hash')`,
        [projectId, source.id, target.id],
      );

      await capture({ event: "$identify", distinct_id: user, properties: { $anon_distinct_id: anon, $set: { after: "merge" } }, timestamp: "2025-01-04T00:00:00Z" });

      const merged = (await personOf(anon))!;
      expect(merged.id).toBe(target.id);
      expect(merged.uuid).toBe(target.uuid);
      expect(merged.distinct_ids).toEqual([anon, user].sort());
      expect(merged.is_identified).toBe(true);
      expect(merged.properties).toEqual({ shared: "user", only_anon: 1, only_user: 2, after: "merge" });
      expect(merged.created_at.toISOString()).toBe("2020-05-05T05:05:05.000Z");
      expect(await personExists(source.id)).toBe(false);
      const events = await personIdsOfEvents([anon, user]);
      expect(events.map((e) => e.event)).toEqual(["anon 1", "anon 2", "$identify", "$identify"]);
      expect(events.every((e) => e.person_id === target.uuid)).toBe(true);
      const overrides = await db.sql.query<{ person_id: number; feature_flag_key: string; hash_key: string }>(
        `SELECT person_id, feature_flag_key, hash_key FROM feature_flag_hash_key_overrides WHERE project_id = $1 AND feature_flag_key IN ('flag-a', 'flag-b') ORDER BY feature_flag_key`,
        [projectId],
      );
      expect(overrides).toEqual([
        { person_id: target.id, feature_flag_key: "flag-a", hash_key: "anon-hash" },
        { person_id: target.id, feature_flag_key: "flag-b", hash_key: "user-hash" },
      ]);

      // Later events of the anonymous id go to the merged person.
      await capture({ event: "anon 3", distinct_id: anon, timestamp: "2025-01-05T00:00:00Z" });
      expect((await personIdsOfEvents([anon])).at(-1)!.person_id).toBe(target.uuid);
    });

    it("gives events of the anonymous id sent in the same batch before the merging $identify the merged person", async () => {
      // posthog-js on a new device: $pageview as anon, then $identify of a user known from before.
      const user = uid("user");
      const anon = uid("anon");
      await capture({ event: "$identify", distinct_id: user });
      const target = (await personOf(user))!;
      const response = await handleBatch(
        new Request("http://burrow.test/batch/", {
          method: "POST",
          body: JSON.stringify({
            api_key: key,
            batch: [
              { event: "$pageview", distinct_id: anon, timestamp: "2025-02-01T00:00:00Z" },
              { event: "$identify", distinct_id: user, properties: { $anon_distinct_id: anon }, timestamp: "2025-02-01T00:00:01Z" },
              { event: "after", distinct_id: anon, timestamp: "2025-02-01T00:00:02Z" },
            ],
          }),
        }),
      );
      expect(response.status).toBe(200);
      const events = await personIdsOfEvents([anon, user]);
      expect(events.map((e) => e.event).sort()).toEqual(["$identify", "$identify", "$pageview", "after"]);
      expect(events.filter((e) => e.person_id !== target.uuid)).toEqual([]);
    });

    it("gives events of the anonymous id that were in flight during the merge the merged person", async () => {
      const pairs = Array.from({ length: 10 }, () => ({ user: uid("fuser"), anon: uid("fanon") }));
      for (const { user, anon } of pairs) {
        await capture({ event: "first", distinct_id: anon });
        await capture({ event: "$identify", distinct_id: user });
      }
      await Promise.all(
        pairs.flatMap(({ user, anon }) => [
          capture({ event: "$identify", distinct_id: user, properties: { $anon_distinct_id: anon } }),
          ...Array.from({ length: 3 }, () => capture({ event: "concurrent", distinct_id: anon })),
        ]),
      );
      const dangling = await db.sql.query<{ distinct_id: string; event: string }>(
        `SELECT distinct_id, event FROM events e WHERE project_id = $1 AND distinct_id = ANY($2::text[])
            AND NOT EXISTS (SELECT 1 FROM persons p WHERE p.uuid = e.person_id)`,
        [projectId, pairs.map((p) => p.anon)],
      );
      expect(dangling).toEqual([]);
    });

    it("keeps the earlier created_at of the identified person when it is older", async () => {
      const user = uid("user");
      const anon = uid("anon");
      await capture({ event: "$identify", distinct_id: user });
      await capture({ event: "x", distinct_id: anon });
      await db.sql.query(`UPDATE persons SET created_at = '2019-01-01T00:00:00Z' WHERE id = $1`, [(await personOf(user))!.id]);
      await capture({ event: "$identify", distinct_id: user, properties: { $anon_distinct_id: anon } });
      expect((await personOf(anon))!.created_at.toISOString()).toBe("2019-01-01T00:00:00.000Z");
    });

    it("does not merge an anonymous id whose person is already identified", async () => {
      const user = uid("user");
      const other = uid("other");
      await capture({ event: "$identify", distinct_id: user, $set: { who: "user" } });
      await capture({ event: "$identify", distinct_id: other, $set: { who: "other" } });
      const a = (await personOf(user))!;
      const b = (await personOf(other))!;
      await capture({ event: "$identify", distinct_id: user, properties: { $anon_distinct_id: other } });
      expect(await personOf(user)).toMatchObject({ id: a.id, properties: { who: "user" }, distinct_ids: [user] });
      expect(await personOf(other)).toMatchObject({ id: b.id, properties: { who: "other" }, distinct_ids: [other] });
      expect((await personIdsOfEvents([user])).at(-1)!.person_id).toBe(a.uuid);
    });

    it("treats $anon_distinct_id equal to distinct_id as a plain identify", async () => {
      const d = uid("same");
      await capture({ event: "$identify", distinct_id: d, properties: { $anon_distinct_id: d } });
      expect(await personOf(d)).toMatchObject({ is_identified: true, distinct_ids: [d] });
    });
  });

  describe("$create_alias and $merge_dangerously", () => {
    it("$create_alias attaches a new alias to the person", async () => {
      const d = uid("main");
      const alias = uid("alias");
      await capture({ event: "x", distinct_id: d });
      await capture({ event: "$create_alias", distinct_id: d, properties: { alias } });
      expect(await personOf(alias)).toMatchObject({ id: (await personOf(d))!.id, distinct_ids: [alias, d].sort() });
    });

    it("$create_alias merges the alias's anonymous person into the distinct id's person", async () => {
      const d = uid("main");
      const alias = uid("alias");
      await capture({ event: "x", distinct_id: d, $set: { k: "main" } });
      await capture({ event: "y", distinct_id: alias, $set: { k: "alias", a: 1 } });
      const source = (await personOf(alias))!;
      const target = (await personOf(d))!;
      await capture({ event: "$create_alias", distinct_id: d, properties: { alias } });
      expect(await personOf(alias)).toMatchObject({ id: target.id, properties: { k: "main", a: 1 }, distinct_ids: [alias, d].sort() });
      expect(await personExists(source.id)).toBe(false);
      expect((await personIdsOfEvents([alias])).every((e) => e.person_id === target.uuid)).toBe(true);
    });

    it("$create_alias does not merge an identified person", async () => {
      const d = uid("main");
      const alias = uid("alias");
      await capture({ event: "x", distinct_id: d });
      await capture({ event: "$identify", distinct_id: alias });
      await capture({ event: "$create_alias", distinct_id: d, properties: { alias } });
      expect((await personOf(alias))!.id).not.toBe((await personOf(d))!.id);
    });

    it("$merge_dangerously merges even an identified person", async () => {
      const d = uid("main");
      const other = uid("other");
      await capture({ event: "$identify", distinct_id: d, $set: { k: "main" } });
      await capture({ event: "$identify", distinct_id: other, $set: { k: "other", o: true } });
      const source = (await personOf(other))!;
      const target = (await personOf(d))!;
      await capture({ event: "$merge_dangerously", distinct_id: d, properties: { alias: other } });
      expect(await personOf(other)).toMatchObject({ id: target.id, is_identified: true, properties: { k: "main", o: true }, distinct_ids: [d, other].sort() });
      expect(await personExists(source.id)).toBe(false);
      expect((await personIdsOfEvents([other])).every((e) => e.person_id === target.uuid)).toBe(true);
    });

    it("$create_alias without an alias property is an ordinary event", async () => {
      const d = uid("noalias");
      await capture({ event: "$create_alias", distinct_id: d, properties: { alias: "" } });
      expect(await personOf(d)).toMatchObject({ distinct_ids: [d] });
    });
  });

  describe("concurrency", () => {
    it("50 concurrent requests for a brand-new distinct id create exactly one person", async () => {
      const d = uid("burst");
      await Promise.all(Array.from({ length: 50 }, (_, i) => capture({ event: `burst ${i}`, distinct_id: d })));
      const [{ n }] = (await db.sql.query<{ n: number }>(
        `SELECT count(DISTINCT person_id)::int AS n FROM person_distinct_ids WHERE project_id = $1 AND distinct_id = $2`,
        [projectId, d],
      )) as [{ n: number }];
      expect(n).toBe(1);
      const person = (await personOf(d))!;
      const events = await personIdsOfEvents([d]);
      expect(events).toHaveLength(50);
      expect(events.every((e) => e.person_id === person.uuid)).toBe(true);
      const orphans = await db.sql.query(`SELECT id FROM persons p WHERE project_id = $1 AND NOT EXISTS (SELECT 1 FROM person_distinct_ids d WHERE d.person_id = p.id)`, [projectId]);
      expect(orphans).toEqual([]);
    });

    it("two services (like two processes) resolving one new id concurrently agree on one person", async () => {
      const d = uid("twoproc");
      const a = new PersonsService(db.sql, db.events);
      const b = new PersonsService(db.sql, db.events);
      const refs = await Promise.all([a.resolve(projectId, d), b.resolve(projectId, d), a.resolve(projectId, d), b.resolve(projectId, d)]);
      expect(new Set(refs.map((r) => r.uuid)).size).toBe(1);
      const rows = await db.sql.query(`SELECT p.id FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.distinct_id = $1`, [d]);
      expect(rows).toHaveLength(1);
    });

    it("two services linking the same new pair concurrently end with one person", async () => {
      const user = uid("pairuser");
      const anon = uid("pairanon");
      const a = new PersonsService(db.sql, db.events);
      const b = new PersonsService(db.sql, db.events);
      const refs = await Promise.all([a.link(projectId, user, anon, { force: false }), b.link(projectId, user, anon, { force: false })]);
      expect(refs[0]!.uuid).toBe(refs[1]!.uuid);
      expect((await personOf(user))!.distinct_ids).toEqual([anon, user].sort());
    });

    it("concurrent $set of different keys on one person all land", async () => {
      const d = uid("sets");
      await capture({ event: "first", distinct_id: d });
      await Promise.all(Array.from({ length: 40 }, (_, i) => capture({ event: "set", distinct_id: d, $set: { [`k${i}`]: i } })));
      const expected = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
      expect((await personOf(d))!.properties).toEqual(expected);
    });

    it("concurrent $set_once of one key keeps exactly one of the values", async () => {
      const d = uid("once");
      await Promise.all(Array.from({ length: 20 }, (_, i) => capture({ event: "once", distinct_id: d, $set_once: { first: i } })));
      const { first } = (await personOf(d))!.properties as { first: number };
      expect(first).toBeGreaterThanOrEqual(0);
      expect(first).toBeLessThan(20);
    });

    it("processes events of different persons concurrently, each with its own person", async () => {
      const ids = Array.from({ length: 20 }, () => uid("many"));
      const requests = ids.flatMap((d) =>
        Array.from({ length: 5 }, (_, i) =>
          handleBatch(new Request("http://burrow.test/batch/", {
            method: "POST",
            body: JSON.stringify({ api_key: key, batch: [{ event: `e${i}`, distinct_id: d, uuid: uuidv7(), $set: { [`p${i}`]: d } }] }),
          })),
        ),
      );
      const responses = await Promise.all(requests);
      expect(responses.every((r) => r.status === 200)).toBe(true);
      const events = await personIdsOfEvents(ids);
      expect(events).toHaveLength(100);
      const byDistinct = new Map<string, Set<string>>();
      for (const e of events) byDistinct.set(e.distinct_id, (byDistinct.get(e.distinct_id) ?? new Set()).add(e.person_id));
      expect([...byDistinct.values()].every((s) => s.size === 1)).toBe(true);
      const personUuids = new Set([...byDistinct.values()].map((s) => [...s][0]));
      expect(personUuids.size).toBe(20);
      for (const d of ids.slice(0, 3)) {
        expect((await personOf(d))!.properties).toEqual({ p0: d, p1: d, p2: d, p3: d, p4: d });
      }
    });
  });
});

describe(`prefetching a batch's persons (${testDbKind})`, () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("reads the persons of ids not in memory with one query; the events then resolve with none, new ids are created", async () => {
    const org = await db.prisma.organization.create({ data: { name: "o" } });
    const project = await db.prisma.project.create({ data: { organizationId: org.id, name: "p", apiToken: `phc_${Math.random()}` } });
    const known = Array.from({ length: 40 }, (_, i) => `known-${i}`);
    const first = new PersonsService(db.sql, db.events);
    const created = await Promise.all(known.map((id) => first.resolve(project.id, id)));
    // A new process (as after a restart): nothing in memory.
    let statements = 0;
    const counting = { ...db.sql, query: (...args: Parameters<typeof db.sql.query>) => (statements++, db.sql.query(...args)) } as typeof db.sql;
    const persons = new PersonsService(counting, db.events);
    await persons.prefetch(project.id, [...known, "brand-new", ...known]);
    expect(statements).toBe(1);
    const resolved = await Promise.all(known.map((id) => persons.resolve(project.id, id)));
    expect(statements).toBe(1);
    expect(resolved).toEqual(created);
    const fresh = await persons.resolve(project.id, "brand-new");
    expect(statements).toBeGreaterThan(1);
    expect(created.map((person) => person.id)).not.toContain(fresh.id);
  });

  /** Persons of the project that no distinct id points to (a creation that lost a race and was not removed). */
  const orphans = async (projectId: number) =>
    (await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM persons p WHERE project_id = $1 AND NOT EXISTS (SELECT 1 FROM person_distinct_ids d WHERE d.person_id = p.id)`, [projectId]))[0]!.n;

  it("creates the persons of a batch's new ids in one transaction, each dated by its first event; their events then resolve with none", async () => {
    const org = await db.prisma.organization.create({ data: { name: "o" } });
    const project = await db.prisma.project.create({ data: { organizationId: org.id, name: "p", apiToken: `phc_${Math.random()}` } });
    const known = await new PersonsService(db.sql, db.events).resolve(project.id, "known");
    // Round trips: a statement, or a transaction (its statements go together).
    let statements = 0;
    const counting = {
      ...db.sql,
      query: (...args: Parameters<typeof db.sql.query>) => (statements++, db.sql.query(...args)),
      transaction: (...args: Parameters<typeof db.sql.transaction>) => (statements++, db.sql.transaction(...args)),
    } as typeof db.sql;
    const persons = new PersonsService(counting, db.events);
    const fresh = Array.from({ length: 30 }, (_, i) => `fresh-${i}`);
    const firstSeen = new Map(fresh.map((id, i) => [id, new Date(Date.UTC(2026, 0, 1, 0, i))]));
    await persons.prefetch(project.id, ["known", ...fresh]);
    // "known" is not absent: only the new ids are created.
    await persons.createAbsent(project.id, new Map([["known", new Date()], ...firstSeen]));
    expect(statements).toBe(2);
    const resolved = await Promise.all(["known", ...fresh].map((id) => persons.resolve(project.id, id)));
    expect(statements).toBe(2);
    expect(resolved[0]).toEqual(known);
    expect(new Set(resolved.map((person) => person.id)).size).toBe(31);
    const stored = await db.sql.query<{ distinct_id: string; uuid: string; created_at: Date; is_identified: boolean; properties: object }>(
      `SELECT d.distinct_id, p.uuid::text AS uuid, p.created_at, p.is_identified, p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
        WHERE d.project_id = $1 AND d.distinct_id LIKE 'fresh-%'`,
      [project.id],
    );
    expect(stored).toHaveLength(30);
    for (const row of stored) {
      expect(row).toMatchObject({ is_identified: false, properties: {}, uuid: resolved[fresh.indexOf(row.distinct_id) + 1]!.uuid });
      expect(row.created_at.toISOString()).toBe(firstSeen.get(row.distinct_id)!.toISOString());
    }
    expect(await orphans(project.id)).toBe(0);
  });

  it("an id another writer registered during the batch's creation resolves to that writer's person, and no person is left without an id", async () => {
    const org = await db.prisma.organization.create({ data: { name: "o" } });
    const project = await db.prisma.project.create({ data: { organizationId: org.id, name: "p", apiToken: `phc_${Math.random()}` } });
    const mine = new PersonsService(db.sql, db.events);
    const other = new PersonsService(db.sql, db.events);
    await mine.prefetch(project.id, ["raced", "calm"]);
    // Another process creates "raced" after this one saw it absent.
    const winner = await other.resolve(project.id, "raced");
    await mine.createAbsent(project.id, new Map([["raced", new Date()], ["calm", new Date()]]));
    expect(await mine.resolve(project.id, "raced")).toEqual(winner);
    expect((await mine.resolve(project.id, "calm")).id).not.toBe(winner.id);
    expect(await orphans(project.id)).toBe(0);
  });
});

describe.skipIf(testEventStoreKind === "clickhouse")(`a batch's new persons through /batch/ (${testDbKind})`, () => {
  it("two concurrent batches naming the same 20 new ids give each id one person, and every event of an id that person", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => uid(`twin-${i}`));
    const batch = (label: string) =>
      handleBatch(
        new Request("http://burrow.test/batch/", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ api_key: key, batch: ids.map((id) => ({ event: label, distinct_id: id, properties: {} })) }),
        }),
      );
    const answers = await Promise.all([batch("left"), batch("right")]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const events = await personIdsOfEvents(ids);
    expect(events).toHaveLength(40);
    for (const id of ids) {
      const person = await personOf(id);
      expect(person!.distinct_ids).toEqual([id]);
      expect(events.filter((event) => event.distinct_id === id).map((event) => event.person_id)).toEqual([person!.uuid, person!.uuid]);
    }
    const [orphaned] = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM persons p WHERE project_id = $1 AND NOT EXISTS (SELECT 1 FROM person_distinct_ids d WHERE d.person_id = p.id)`,
      [projectId],
    );
    expect(orphaned!.n).toBe(0);
  });
});

describe(`placeholder distinct ids are never merged on (${testDbKind})`, () => {
  let db: Database;
  let persons: PersonsService;
  beforeAll(async () => {
    db = await createTestDatabase();
    persons = new PersonsService(db.sql, db.events);
  });
  afterAll(async () => {
    await db?.close();
  });

  it.each(["undefined", "null", "Anonymous", "0", "[object Object]", "  "])("identifying with %j links nothing", async (placeholder) => {
    const org = await db.prisma.organization.create({ data: { name: "o" } });
    const project = await db.prisma.project.create({ data: { organizationId: org.id, name: "p", apiToken: `phc_${Math.random()}` } });
    const a = await persons.link(project.id, "user-a", placeholder, { force: true });
    const b = await persons.link(project.id, "user-b", placeholder, { force: true });
    expect(a.id).not.toBe(b.id);
    expect(await db.prisma.personDistinctId.count({ where: { projectId: project.id, distinctId: placeholder } })).toBe(0);
  });
});

describe(`a property update racing a merge (${testDbKind})`, () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("lands on the surviving person when the cached person was merged away meanwhile", async () => {
    const org = await db.prisma.organization.create({ data: { name: "race" } });
    const project = await db.prisma.project.create({ data: { organizationId: org.id, name: "p", apiToken: "phc_merge_race" } });
    const ingesting = new PersonsService(db.sql, db.events);
    const other = new PersonsService(db.sql, db.events);
    const anon = await ingesting.resolve(project.id, "anon-1");
    await other.resolve(project.id, "user-1");
    const survivor = await other.link(project.id, "user-1", "anon-1", { force: false });
    expect(survivor.id).not.toBe(anon.id);
    // `ingesting` still has anon-1 → the deleted person in its cache.
    const updated = await ingesting.updateProperties(project.id, "anon-1", anon, { set: { plan: "pro" }, setOnce: {}, unset: [] });
    expect(updated.id).toBe(survivor.id);
    const person = await db.prisma.person.findUniqueOrThrow({ where: { id: survivor.id } });
    expect(person.properties).toMatchObject({ plan: "pro" });
  });
});

// Two app nodes on one PostgreSQL server: each has its own distinct-id cache.
if (testDbKind === "postgres") describe("persons across two nodes", () => {
  // The distinct-id cache has no TTL: only the change feed's notification can pass this.
  it("a merge on one node reaches the other node's cache within seconds", async () => {
    const database = await createEmptyPostgresDatabase();
    const nodeA = await openDatabase({ kind: "postgres", url: database.url });
    const nodeB = await openDatabase({ kind: "postgres", url: database.url });
    try {
      await migrate(nodeA.sql);
      const org = await nodeA.prisma.organization.create({ data: { name: "nodes" } });
      const project = await nodeA.prisma.project.create({ data: { organizationId: org.id, name: "p", apiToken: "phc_two_nodes" } });
      const onA = new PersonsService(nodeA.sql, nodeA.events, undefined, nodeA.changes);
      const onB = new PersonsService(nodeB.sql, nodeB.events, undefined, nodeB.changes);
      const anon = await onB.resolve(project.id, "anon-2");
      await onA.resolve(project.id, "user-2");
      const survivor = await onA.link(project.id, "user-2", "anon-2", { force: false });
      expect(survivor.id).not.toBe(anon.id);
      const deadline = Date.now() + 5_000;
      let seen = await onB.resolve(project.id, "anon-2");
      while (seen.id !== survivor.id && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        seen = await onB.resolve(project.id, "anon-2");
      }
      expect(seen).toEqual({ id: survivor.id, uuid: survivor.uuid });
    } finally {
      await nodeA.close();
      await nodeB.close();
      await database.drop();
    }
  });
});
