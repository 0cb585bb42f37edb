/**
 * WebStatsTableQuery's orderBy (PostHog's [field, direction]) on a week of seven sessions
 * whose answers are worked out by hand, with ties that only the default order breaks:
 * visitors, then views (both descending), then the value ascending. On whichever stores the
 * run uses; each store's three stats statements (events alone, events with their sessions,
 * the sessions table alone) are reached, and Page by its entry sessions' bounce rate. The
 * refusals through the REST route at the end.
 */
import { randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { webStatsTableKind } from "./service";

let db: Database;
let apiKey: string;
let projectId: number;

const u = (n: number) => `0190c000-0000-7000-8000-0000000001${String(n).padStart(2, "0")}`;
const HOST = "order.example";

interface View {
  person: string;
  at: string;
  session: string;
  path: string;
  event?: "$pageview" | "$screen";
}

/*
 * Sessions (persons): S1 (u1) /a — bounced; S2 (u4) /a /b — not; S3 (u3) /c — bounced;
 * S4 (u4) /c /b /b — not; S5 (u5) /d — bounced; S6 (u6) /e /e — not; S7 (u7) a $screen on /f:
 * no $pageview, so no bounce rate.
 *
 * Page: /a 2 visitors 2 views, /b 1·3, /c 2·2, /d 1·1, /e 1·2, /f 1·1.
 * InitialPage: /a 2 visitors 3 views bounce ½, /c 2·4 ½, /d 1·1 1, /e 1·2 0, /f 1·1 none.
 */
const [s1, s2, s3, s4, s5, s6, s7] = Array.from({ length: 7 }, () => uuidv7()) as [string, string, string, string, string, string, string];
const VIEWS: View[] = [
  { person: u(1), at: "2024-05-02T10:00:00", session: s1, path: "/a" },
  { person: u(4), at: "2024-05-02T11:00:00", session: s2, path: "/a" },
  { person: u(4), at: "2024-05-02T11:01:00", session: s2, path: "/b" },
  { person: u(3), at: "2024-05-02T12:00:00", session: s3, path: "/c" },
  { person: u(4), at: "2024-05-03T13:00:00", session: s4, path: "/c" },
  { person: u(4), at: "2024-05-03T13:01:00", session: s4, path: "/b" },
  { person: u(4), at: "2024-05-03T13:02:00", session: s4, path: "/b" },
  { person: u(5), at: "2024-05-04T09:00:00", session: s5, path: "/d" },
  { person: u(6), at: "2024-05-04T10:00:00", session: s6, path: "/e" },
  { person: u(6), at: "2024-05-04T10:00:30", session: s6, path: "/e" },
  { person: u(7), at: "2024-05-05T10:00:00", session: s7, path: "/f", event: "$screen" },
];

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "order@example.com", password: "pw12345678" });
  apiKey = owner.personal_api_key;
  projectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Order", apiToken: `phc_${randomUUID()}` } })).id;
  await db.events.insert(
    VIEWS.map((view) => ({
      uuid: uuidv7(),
      projectId,
      event: view.event ?? "$pageview",
      distinctId: view.person,
      personId: view.person,
      properties: { $session_id: view.session, $host: HOST, $pathname: view.path, $current_url: `https://${HOST}${view.path}` },
      timestamp: new Date(`${view.at}Z`),
    })),
  );
}, 60_000);

afterAll(() => closeDb());

const week = { date_from: "2024-05-01", date_to: "2024-05-07" };
const byHost = [{ type: "event", key: "$host", value: HOST, operator: "exact" }];

async function table(node: Record<string, unknown>) {
  const spec = webStatsTableKind.spec({ kind: "WebStatsTableQuery", properties: [], dateRange: week, ...node }, null);
  const answer = await webStatsTableKind.compute({ db, projectId, zone: "UTC", now: new Date("2024-06-01T00:00:00Z") }, spec);
  return { rows: answer.results as unknown[][], hasMore: (answer.extra as { hasMore: boolean }).hasMore };
}

/** value → [visitors, views] of each row, in order. */
async function order(node: Record<string, unknown>): Promise<[unknown, number, number][]> {
  return (await table(node)).rows.map((row) => [row[0], (row[1] as number[])[0]!, (row[2] as number[])[0]!]);
}

/** value → bounce rate of each row, in order. */
async function bounces(node: Record<string, unknown>): Promise<[unknown, number | null][]> {
  return (await table({ ...node, includeBounceRate: true })).rows.map((row) => [row[0], (row[3] as (number | null)[])[0]!]);
}

describe(`WebStatsTableQuery's orderBy on ${testStoresName}`, () => {
  it("Page by default, and by Visitors descending (the same): ties go to views, then the value", async () => {
    const expected = [
      ["/a", 2, 2],
      ["/c", 2, 2],
      ["/b", 1, 3],
      ["/e", 1, 2],
      ["/d", 1, 1],
      ["/f", 1, 1],
    ];
    expect(await order({ breakdownBy: "Page" })).toEqual(expected);
    expect(await order({ breakdownBy: "Page", orderBy: ["Visitors", "DESC"] })).toEqual(expected);
  });

  it("Page by Visitors ascending: the fewest first, equal visitors by views descending, then the value", async () => {
    expect((await order({ breakdownBy: "Page", orderBy: ["Visitors", "ASC"] })).map((row) => row[0])).toEqual(["/b", "/e", "/d", "/f", "/a", "/c"]);
  });

  it("Page by Views both ways, filtered or not (each store's other statement), and paged", async () => {
    const desc = ["/b", "/a", "/c", "/e", "/d", "/f"];
    const asc = ["/d", "/f", "/a", "/c", "/e", "/b"];
    expect((await order({ breakdownBy: "Page", orderBy: ["Views", "DESC"] })).map((row) => row[0])).toEqual(desc);
    expect((await order({ breakdownBy: "Page", orderBy: ["Views", "ASC"] })).map((row) => row[0])).toEqual(asc);
    expect((await order({ breakdownBy: "Page", orderBy: ["Views", "DESC"], properties: byHost })).map((row) => row[0])).toEqual(desc);
    const page = await table({ breakdownBy: "Page", orderBy: ["Views", "DESC"], limit: 2, offset: 1 });
    expect(page.rows.map((row) => row[0])).toEqual(["/a", "/c"]);
    expect(page.hasMore).toBe(true);
    const last = await table({ breakdownBy: "Page", orderBy: ["Views", "ASC"], limit: 2, offset: 4 });
    expect(last.rows.map((row) => row[0])).toEqual(["/e", "/b"]);
    expect(last.hasMore).toBe(false);
  });

  it("InitialPage by views and visitors, from the sessions alone", async () => {
    expect(await order({ breakdownBy: "InitialPage" })).toEqual([
      ["/c", 2, 4],
      ["/a", 2, 3],
      ["/e", 1, 2],
      ["/d", 1, 1],
      ["/f", 1, 1],
    ]);
    expect((await order({ breakdownBy: "InitialPage", orderBy: ["Views", "ASC"] })).map((row) => row[0])).toEqual(["/d", "/f", "/e", "/a", "/c"]);
    expect((await order({ breakdownBy: "InitialPage", orderBy: ["Visitors", "ASC"] })).map((row) => row[0])).toEqual(["/e", "/d", "/f", "/c", "/a"]);
  });

  it("InitialPage by BounceRate both ways: equal rates by the default order, no rate last either way", async () => {
    const asc: [string, number | null][] = [
      ["/e", 0],
      ["/c", 0.5],
      ["/a", 0.5],
      ["/d", 1],
      ["/f", null],
    ];
    const desc: [string, number | null][] = [
      ["/d", 1],
      ["/c", 0.5],
      ["/a", 0.5],
      ["/e", 0],
      ["/f", null],
    ];
    // From the sessions alone, then through the events joined with their sessions.
    expect(await bounces({ breakdownBy: "InitialPage", orderBy: ["BounceRate", "ASC"] })).toEqual(asc);
    expect(await bounces({ breakdownBy: "InitialPage", orderBy: ["BounceRate", "DESC"] })).toEqual(desc);
    expect(await bounces({ breakdownBy: "InitialPage", orderBy: ["BounceRate", "ASC"], properties: byHost })).toEqual(asc);
    expect(await bounces({ breakdownBy: "InitialPage", orderBy: ["BounceRate", "DESC"], properties: byHost })).toEqual(desc);
    const page = await table({ breakdownBy: "InitialPage", includeBounceRate: true, orderBy: ["BounceRate", "DESC"], limit: 2, offset: 2 });
    expect(page.rows.map((row) => row[0])).toEqual(["/a", "/e"]);
  });

  it("Page by BounceRate: its entry sessions' rate, read for every path before the page is cut", async () => {
    // /b and /f enter no session with a page view: no rate, last either way, by the default order.
    expect(await bounces({ breakdownBy: "Page", orderBy: ["BounceRate", "ASC"] })).toEqual([
      ["/e", 0],
      ["/a", 0.5],
      ["/c", 0.5],
      ["/d", 1],
      ["/b", null],
      ["/f", null],
    ]);
    expect((await bounces({ breakdownBy: "Page", orderBy: ["BounceRate", "DESC"] })).map((row) => row[0])).toEqual(["/d", "/a", "/c", "/e", "/b", "/f"]);
    expect((await bounces({ breakdownBy: "Page", orderBy: ["BounceRate", "DESC"], properties: byHost })).map((row) => row[0])).toEqual(["/d", "/a", "/c", "/e", "/b", "/f"]);
    // Paged: each page holds the rows of the whole order at its place, with their rates.
    const page = await table({ breakdownBy: "Page", includeBounceRate: true, orderBy: ["BounceRate", "DESC"], limit: 3, offset: 0 });
    expect(page.rows.map((row) => [row[0], (row[3] as number[])[0]])).toEqual([
      ["/d", 1],
      ["/a", 0.5],
      ["/c", 0.5],
    ]);
    const second = await table({ breakdownBy: "Page", includeBounceRate: true, orderBy: ["BounceRate", "ASC"], limit: 2, offset: 2 });
    expect(second.rows.map((row) => [row[0], (row[3] as number[])[0]])).toEqual([
      ["/c", 0.5],
      ["/d", 1],
    ]);
    expect(second.hasMore).toBe(true);
  });

  describe("through POST /api/projects/:id/query/", () => {
    const queryRoute = restRoute("projects", "query");
    async function post(query: Record<string, unknown>) {
      const response = await queryRoute.POST!(
        new Request(`http://internal.test/api/projects/${projectId}/query/`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ query: { kind: "WebStatsTableQuery", properties: [], dateRange: week, breakdownBy: "Page", ...query }, refresh: true }),
        }),
        { params: Promise.resolve({ project_id: String(projectId) }) },
      );
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    }

    it("orders PostHog's way", async () => {
      const answer = await post({ orderBy: ["Views", "ASC"], limit: 2 });
      expect(answer.status).toBe(200);
      expect(answer.body.results.map((row: unknown[]) => row[0])).toEqual(["/d", "/f"]);
    });

    it("refuses, naming the field, what it cannot order by", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ orderBy: ["Planet", "DESC"] }, "orderBy.0: orderBy field 'Planet' is not one of Visitors, Views"],
        [{ orderBy: ["Views", "UP"] }, "orderBy.1: orderBy direction 'UP' must be ASC or DESC"],
        [{ orderBy: ["Views", "desc"] }, "orderBy direction 'desc' must be ASC or DESC"],
        [{ orderBy: "Views" }, "orderBy must be a [field, direction] pair"],
        [{ orderBy: ["Views"] }, "orderBy"],
        [{ orderBy: ["Views", "DESC", "extra"] }, "orderBy"],
        [{ orderBy: ["Clicks", "DESC"] }, "orderBy field Clicks is not supported: the table has no such column"],
        [{ orderBy: ["BounceRate", "DESC"], breakdownBy: "InitialPage" }, "orderBy field BounceRate needs includeBounceRate"],
      ];
      for (const [query, message] of cases) {
        const answer = await post(query);
        expect(answer.status, JSON.stringify(query)).toBe(400);
        expect(answer.body.detail, JSON.stringify(query)).toContain(message);
      }
    });
  });
});
