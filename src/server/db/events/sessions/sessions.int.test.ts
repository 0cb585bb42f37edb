/**
 * The PostgreSQL sessions table as the event store keeps it, from the deltas its inserts write:
 * a session's row is the same whichever order and batches its events arrive in, a retried
 * batch changes nothing, deltas left unmerged (a crash) are merged by the next store, and the
 * migration's backfill — a recount from every stored event — builds the same rows. (ClickHouse
 * keeps its sessions with a materialised view; web-analytics.int.test.ts reads them on every
 * store.)
 */
import fs from "node:fs";
import path from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testEventStoreKind } from "@/test-support/db";
import { PostgresEventStore, type StoredEventInput } from "@/server/db/events";

let db: Database;
let projectId: number;

const person = "0190c000-0000-7000-8000-0000000000aa";
const at = (time: string) => new Date(`2024-05-01T${time}Z`);

function event(name: string, time: string, session: unknown, properties: Record<string, unknown> = {}): StoredEventInput {
  return { uuid: uuidv7(), projectId, event: name, distinctId: "visitor", personId: person, timestamp: at(time), properties: { $session_id: session, ...properties } };
}

const sessionRows = async () => {
  await (db.events as PostgresEventStore).mergeSessionDeltas();
  return readSessionRows();
};

const readSessionRows = () =>
  db.sql.query<Record<string, unknown>>(
    `SELECT session_id, distinct_id, person_id::text, start_timestamp, end_timestamp, last_view_timestamp, pageview_count, screen_count, autocapture_count,
            entry_timestamp, entry_url, entry_pathname, entry_referring_domain, entry_utm_source, entry_utm_medium, entry_utm_campaign, entry_utm_term, entry_utm_content,
            exit_timestamp, exit_url, exit_pathname
       FROM sessions WHERE project_id = $1::int ORDER BY session_id`,
    [projectId],
  );

describe.skipIf(testEventStoreKind === "clickhouse")("the sessions table", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    projectId = (await bootstrap(db.prisma, { email: "sessions@example.com", password: "pw12345678" })).project_id;
  }, 60_000);
  afterAll(() => db?.close());

  it("merges a session's events whatever the order and batches they arrive in; a retried batch changes nothing", async () => {
    const landing = event("$pageview", "10:00:00", "s1", {
      $current_url: "https://a.example/landing?utm_source=news",
      $pathname: "/landing",
      $referring_domain: "news.example",
      utm_source: "news",
      utm_medium: "email",
    });
    const click = event("$autocapture", "10:00:05", "s1", { $current_url: "https://a.example/landing" });
    const pricing = event("$pageview", "10:01:00", "s1", { $current_url: "https://a.example/pricing#plans" });
    const leave = event("$pageleave", "10:02:00", "s1", { $current_url: "https://a.example/pricing" });
    const other = event("$screen", "11:00:00", "0190c000-0000-7000-8000-0000000000bb");
    const ignored = [event("$pageview", "09:00:00", ""), event("$pageview", "09:00:00", 42), event("$pageview", "09:00:00", "x".repeat(201))];
    // The last events first, the first one last.
    await db.events.insert([leave, other, ...ignored]);
    await db.events.insert([pricing]);
    const retried = [landing, click];
    await db.events.insert(retried);
    const once = await sessionRows();
    await db.events.insert(retried);
    expect(await sessionRows()).toEqual(once);
    expect(once).toEqual([
      expect.objectContaining({ session_id: "0190c000-0000-7000-8000-0000000000bb", screen_count: 1, pageview_count: 0, entry_url: null, exit_url: null }),
      expect.objectContaining({
        session_id: "s1",
        distinct_id: "visitor",
        person_id: person,
        start_timestamp: at("10:00:00"),
        end_timestamp: at("10:02:00"),
        last_view_timestamp: at("10:01:00"),
        pageview_count: 2,
        autocapture_count: 1,
        entry_url: "https://a.example/landing?utm_source=news",
        entry_pathname: "/landing",
        entry_referring_domain: "news.example",
        entry_utm_source: "news",
        entry_utm_medium: "email",
        entry_utm_campaign: null,
        exit_timestamp: at("10:02:00"),
        exit_url: "https://a.example/pricing",
        // No $pathname: the URL's path.
        exit_pathname: "/pricing",
      }),
    ]);
  });

  it("counts a batch that repeats stored events, and events repeated within it, once", async () => {
    const a = event("$pageview", "12:00:00", "s2", { $current_url: "https://a.example/a" });
    const b = event("$pageview", "12:01:00", "s2", { $current_url: "https://a.example/b" });
    await db.events.insert([a]);
    // `a` is stored already and `b` comes twice: the insert takes the careful way.
    expect(await db.events.insert([a, b, b])).toBe(1);
    const [row] = (await sessionRows()).filter((r) => r.session_id === "s2");
    expect(row).toMatchObject({ pageview_count: 2, entry_url: "https://a.example/a", exit_url: "https://a.example/b", end_timestamp: at("12:01:00") });
  });

  it("merges the deltas a stopped process left with the next store's first insert", async () => {
    // Merges the earlier tests' inserts asked for are done by now.
    await new Promise((resolve) => setTimeout(resolve, 400));
    // A store that stops right after its insert (as a process killed after the acknowledgement):
    // the delta is there, the session not yet.
    const stopped = new PostgresEventStore(db.sql, 1);
    await stopped.insert([event("$pageview", "13:00:00", "s3", { $current_url: "https://a.example/left" })]);
    await stopped.close();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await readSessionRows()).some((r) => r.session_id === "s3")).toBe(false);
    const next = new PostgresEventStore(db.sql, 1);
    try {
      await next.insert([event("$pageview", "13:05:00", "s4")]);
      await expect.poll(async () => (await readSessionRows()).find((r) => r.session_id === "s3")?.entry_url, { timeout: 10_000 }).toBe("https://a.example/left");
    } finally {
      await next.close();
    }
  });

  it("gives the rows a recount of all events gives, for random events in random batches and orders", async () => {
    const sessions = ["r1", "r2", "r3", "r4"];
    const names = ["$pageview", "$screen", "$autocapture", "$pageleave", "custom"];
    let second = 0;
    const random = (n: number) => Math.floor(Math.random() * n);
    const events = Array.from({ length: 120 }, () => {
      second += 1 + random(30);
      const time = new Date(at("14:00:00").getTime() + second * 1000).toISOString().slice(11, 19);
      const url = random(3) === 0 ? {} : { $current_url: `https://r.example/p${random(5)}?utm_source=u${random(3)}`, ...(random(2) ? { $pathname: `/p${random(5)}` } : {}) };
      return event(names[random(names.length)]!, time, sessions[random(sessions.length)], { ...url, ...(random(4) === 0 ? { utm_campaign: `c${random(2)}` } : {}) });
    });
    const shuffled = [...events].sort(() => Math.random() - 0.5);
    for (let start = 0; start < shuffled.length; ) {
      const size = 1 + random(20);
      await db.events.insert(shuffled.slice(start, start + size));
      // Now and then a retry of what went before.
      if (random(4) === 0) await db.events.insert(shuffled.slice(Math.max(0, start - 5), start + size));
      start += size;
    }
    const merged = (await sessionRows()).filter((r) => sessions.includes(r.session_id as string));
    const dir = path.join(process.cwd(), "prisma/migrations");
    const migration = fs.readdirSync(dir).find((name) => name.endsWith("_sessions_enrichment"))!;
    const text = fs.readFileSync(path.join(dir, migration, "migration.sql"), "utf8");
    await db.sql.query(`DELETE FROM sessions WHERE project_id = $1::int AND session_id = ANY($2::text[])`, [projectId, sessions]);
    await db.sql.exec(text.slice(text.indexOf("INSERT INTO sessions")).replace(/ON CONFLICT[\s\S]*$/, "ON CONFLICT DO NOTHING"));
    expect((await readSessionRows()).filter((r) => sessions.includes(r.session_id as string))).toEqual(merged);
  });

  it("the migration's backfill builds the same rows from the stored events", async () => {
    const before = await sessionRows();
    const dir = path.join(process.cwd(), "prisma/migrations");
    const migration = fs.readdirSync(dir).find((name) => name.endsWith("_sessions_enrichment"))!;
    const text = fs.readFileSync(path.join(dir, migration, "migration.sql"), "utf8");
    const backfill = text.slice(text.indexOf("INSERT INTO sessions"));
    await db.sql.query(`DELETE FROM sessions WHERE project_id = $1::int`, [projectId]);
    await db.sql.exec(backfill);
    expect(await sessionRows()).toEqual(before);
  });
});
