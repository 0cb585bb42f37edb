/**
 * The PostgreSQL sessions table as the event store's insert keeps it: a session's row is the
 * same whichever order and batches its events arrive in, a retried batch changes nothing,
 * and the migration's backfill builds the same rows from stored events. (ClickHouse keeps its
 * sessions with a materialised view; web-analytics.int.test.ts reads them on every store.)
 */
import fs from "node:fs";
import path from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testEventStoreKind } from "@/server/db/testing";
import type { StoredEventInput } from "@/server/db/events";

let db: Database;
let projectId: number;

const person = "0190c000-0000-7000-8000-0000000000aa";
const at = (time: string) => new Date(`2024-05-01T${time}Z`);

function event(name: string, time: string, session: unknown, properties: Record<string, unknown> = {}): StoredEventInput {
  return { uuid: uuidv7(), projectId, event: name, distinctId: "visitor", personId: person, timestamp: at(time), properties: { $session_id: session, ...properties } };
}

const sessionRows = () =>
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
