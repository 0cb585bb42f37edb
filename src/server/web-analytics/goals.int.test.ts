/**
 * Conversion goals on /web (PostHog's `conversionGoal` on WebOverviewQuery and
 * WebStatsTableQuery, and Burrow's pathname and URL goals) on two weeks of events whose answers are
 * worked out by hand, on whichever stores the run uses (PGlite, PostgreSQL, or ClickHouse).
 */
import { randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { webOverviewKind, webStatsTableKind } from "./service";

let db: Database;
let apiKey: string;
let projectId: number;
let actionId: number;
let deletedActionId: number;

const [u1, u2, u3] = ["0190c000-0000-7000-8000-000000000301", "0190c000-0000-7000-8000-000000000302", "0190c000-0000-7000-8000-000000000303"];
const [s1, s2, s3, s4, s5, s6] = Array.from({ length: 6 }, () => uuidv7()) as [string, string, string, string, string, string];
const BROWSER: Record<string, string> = { [u1]: "Chrome", [u2]: "Firefox", [u3]: "Chrome", "anon-1": "Safari" };

interface Sent {
  who: string;
  event: string;
  at: string;
  session: string;
  path: string;
  extra?: Record<string, unknown>;
}
const ev = (who: string, event: string, at: string, session: string, path: string, extra: Record<string, unknown> = {}): Sent => ({ who, event, at, session, path, extra });

/*
 * The week (2024-07-01 … 07-07):
 *   u1 (Chrome)  s1: view /pricing, view /signup, signup on /signup; s2: view /signup (URL ?plan=pro), signup on /signup, purchase (plan free)
 *   u2 (Firefox) s3: view /pricing, view /thanks (URL ?order=42); the test event on /thanks
 *   u3 (Chrome)  s4: view /, purchase (plan pro) on /checkout, an autocapture on /
 *   anon-1 (Safari, no person) s5: view /pricing, signup on /pricing
 * The week before: u2 s6: view /pricing, signup on /pricing.
 *
 * Goal "signup": visitors u1 u2 u3 anon = 4, conversions 3, unique 2 (u1, anon), rate 50 %.
 *   Page: /signup 1 visitor, 2 conversions, 1 unique, rate 1; /pricing 3, 1, 1, 1/3; / and /thanks 1, 0, 0, 0.
 *   InitialPage (the session's entry): /pricing (s1 s3 s5) 3, 2, 2, 2/3; /signup (s2) 1, 1, 1, 1; / (s4) 1, 0, 0, 0.
 *   Browser: Chrome (u1 u3) 2, 2, 1, 1/2; Safari 1, 1, 1, 1; Firefox 1, 0, 0, 0.
 *   The week before: 1 visitor, 1 conversion, 1 unique, rate 100 %.
 * Action "Bought pro or thanked" (purchase with plan pro, or any event on a URL containing /thanks):
 *   u3's purchase and u2's view of /thanks (not the test event): 4 visitors, 2 conversions, 2 unique, 50 %;
 *   by Page, each conversion in its event's own path: /checkout (the purchase) and /thanks.
 * Pathname goal "/sign*": u1's two views of /signup: 4 visitors, 2 conversions, 1 unique, 25 %.
 * Every view's URL is https://shop.example + its path, but for the two with a query string.
 * URL goals (a view whose $current_url contains the text, case-sensitive):
 *   "https://shop.example/signup?plan=pro": u1's s2 view: 1 conversion, 1 unique, 25 %.
 *   "https://shop.example/": all 7 views of the week: 7 conversions, 4 unique, 100 %
 *     (the pathname goal "/" is u3's view alone: 1, 1, 25 %).
 *   "/thanks?order=": u2's view: 1, 1, 25 %. "https://shop.example/SIGNUP": none.
 *   "https://shop.example/*?*" (a query string): u1's s2 view and u2's /thanks: 2, 2, 50 %;
 *     by Page /signup and /thanks 1 visitor, 1, 1, rate 1 each (half the fill), /pricing 3 and / 1 with none.
 */
const EVENTS: Sent[] = [
  ev(u1, "$pageview", "2024-07-01T10:00:00", s1, "/pricing"),
  ev(u1, "$pageview", "2024-07-01T10:01:00", s1, "/signup"),
  ev(u1, "signup", "2024-07-01T10:02:00", s1, "/signup"),
  ev(u1, "$pageview", "2024-07-02T08:59:00", s2, "/signup", { $current_url: "https://shop.example/signup?plan=pro" }),
  ev(u1, "signup", "2024-07-02T09:00:00", s2, "/signup"),
  ev(u1, "purchase", "2024-07-02T09:01:00", s2, "/checkout", { plan: "free" }),
  ev(u2, "$pageview", "2024-07-01T11:00:00", s3, "/pricing"),
  ev(u2, "$pageview", "2024-07-01T11:05:00", s3, "/thanks", { $current_url: "https://shop.example/thanks?order=42" }),
  ev(u2, "$test_event", "2024-07-01T11:06:00", s3, "/thanks"),
  ev(u3, "$pageview", "2024-07-03T12:00:00", s4, "/"),
  ev(u3, "purchase", "2024-07-03T12:01:00", s4, "/checkout", { plan: "pro" }),
  ev(u3, "$autocapture", "2024-07-03T12:02:00", s4, "/"),
  ev("anon-1", "$pageview", "2024-07-04T09:00:00", s5, "/pricing"),
  ev("anon-1", "signup", "2024-07-04T09:01:00", s5, "/pricing"),
  ev(u2, "$pageview", "2024-06-26T09:00:00", s6, "/pricing"),
  ev(u2, "signup", "2024-06-26T09:01:00", s6, "/pricing"),
];

const step = (fields: Record<string, unknown>) => ({
  event: null, url: null, url_matching: null, selector: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null, properties: null, ...fields,
});

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "goals@example.com", password: "pw12345678" });
  apiKey = owner.personal_api_key;
  projectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Goals", apiToken: `phc_${randomUUID()}` } })).id;
  actionId = (
    await db.prisma.action.create({
      data: {
        projectId,
        name: "Bought pro or thanked",
        steps: [step({ event: "purchase", properties: [{ type: "event", key: "plan", value: "pro", operator: "exact" }] }), step({ url: "/thanks", url_matching: "contains" })],
      },
    })
  ).id;
  deletedActionId = (await db.prisma.action.create({ data: { projectId, name: "Gone", deleted: true, steps: [step({ event: "signup" })] } })).id;
  await db.events.insert(
    EVENTS.map((e) => ({
      uuid: uuidv7(),
      projectId,
      event: e.event,
      distinctId: e.who,
      personId: e.who === "anon-1" ? null : e.who,
      properties: { $session_id: e.session, $pathname: e.path, $current_url: `https://shop.example${e.path}`, $host: "shop.example", $browser: BROWSER[e.who], ...e.extra },
      timestamp: new Date(`${e.at}Z`),
    })),
  );
}, 60_000);

afterAll(() => closeDb());

const week = { date_from: "2024-07-01", date_to: "2024-07-07" };
const env = () => ({ db, projectId, zone: "UTC", now: new Date("2024-08-01T00:00:00Z") });
const signup = { customEventName: "signup" };

async function overview(node: Record<string, unknown>) {
  const spec = webOverviewKind.spec({ kind: "WebOverviewQuery", properties: [], dateRange: week, ...node }, null);
  await webOverviewKind.check(env(), spec);
  return (await webOverviewKind.compute(env(), spec)).results as { key: string; kind: string; value: number | null; previous: number | null; changeFromPreviousPct: number | null }[];
}

async function table(node: Record<string, unknown>) {
  const spec = webStatsTableKind.spec({ kind: "WebStatsTableQuery", properties: [], dateRange: week, ...node }, null);
  const answer = await webStatsTableKind.compute(env(), spec);
  return { rows: answer.results as unknown[][], columns: (answer.extra as { columns: string[] }).columns };
}

const values = (items: Awaited<ReturnType<typeof overview>>) => items.map((item) => [item.key, item.value]);
const n = (value: number) => [value, null];

describe(`Conversion goals on ${testStoresName}`, () => {
  it("the overview with an event goal: visitors, total and unique conversions, conversion rate", async () => {
    expect(values(await overview({ conversionGoal: signup }))).toEqual([
      ["visitors", 4],
      ["total conversions", 3],
      ["unique conversions", 2],
      ["conversion rate", 50],
    ]);
    const compared = await overview({ conversionGoal: signup, compareFilter: { compare: true } });
    expect(compared.map((item) => [item.key, item.value, item.previous, item.changeFromPreviousPct])).toEqual([
      ["visitors", 4, 1, 300],
      ["total conversions", 3, 1, 200],
      ["unique conversions", 2, 1, 100],
      ["conversion rate", 50, 100, -50],
    ]);
    const chrome = [{ type: "event", key: "$browser", value: "Chrome", operator: "exact" }];
    expect(values(await overview({ conversionGoal: signup, properties: chrome }))).toEqual([
      ["visitors", 2],
      ["total conversions", 2],
      ["unique conversions", 1],
      ["conversion rate", 50],
    ]);
  });

  it("an action goal (its steps ORed, never the test event) and a pathname goal with a wildcard", async () => {
    expect(values(await overview({ conversionGoal: { actionId } }))).toEqual([
      ["visitors", 4],
      ["total conversions", 2],
      ["unique conversions", 2],
      ["conversion rate", 50],
    ]);
    expect(values(await overview({ conversionGoal: { pathname: "/sign*" } }))).toEqual([
      ["visitors", 4],
      ["total conversions", 2],
      ["unique conversions", 1],
      ["conversion rate", 25],
    ]);
    expect(values(await overview({ conversionGoal: { pathname: "/sign" } }))).toEqual([
      ["visitors", 4],
      ["total conversions", 0],
      ["unique conversions", 0],
      ["conversion rate", 0],
    ]);
  });

  it("a URL goal matches the views whose full URL contains it ($current_url, * for any characters), where a path matches $pathname whole", async () => {
    const figures = async (conversionGoal: Record<string, string>) => (await overview({ conversionGoal })).map((item) => item.value);
    expect(await figures({ url: "https://shop.example/signup?plan=pro" })).toEqual([4, 1, 1, 25]);
    expect(await figures({ url: "https://shop.example/" })).toEqual([4, 7, 4, 100]);
    expect(await figures({ pathname: "/" })).toEqual([4, 1, 1, 25]);
    expect(await figures({ url: "/thanks?order=" })).toEqual([4, 1, 1, 25]);
    expect(await figures({ url: "https://shop.example/SIGNUP" })).toEqual([4, 0, 0, 0]);
    expect(await figures({ url: "https://shop.example/*?*" })).toEqual([4, 2, 2, 50]);
    // Each conversion on its view's own path.
    expect((await table({ breakdownBy: "Page", conversionGoal: { url: "https://shop.example/*?*" } })).rows).toEqual([
      ["/signup", n(1), n(1), n(1), n(1), 0.5, ""],
      ["/thanks", n(1), n(1), n(1), n(1), 0.5, ""],
      ["/pricing", n(3), n(0), n(0), n(0), 0, ""],
      ["/", n(1), n(0), n(0), n(0), 0, ""],
    ]);
  });

  it("every table carries conversions and conversion rate per row, ordered by unique conversions", async () => {
    const page = await table({ breakdownBy: "Page", conversionGoal: signup });
    expect(page.columns).toEqual([
      "context.columns.breakdown_value",
      "context.columns.visitors",
      "context.columns.total_conversions",
      "context.columns.unique_conversions",
      "context.columns.conversion_rate",
      "context.columns.ui_fill_fraction",
      "context.columns.cross_sell",
    ]);
    expect(page.rows).toEqual([
      ["/signup", n(1), n(2), n(1), n(1), 0.5, ""],
      ["/pricing", n(3), n(1), n(1), n(1 / 3), 0.5, ""],
      ["/", n(1), n(0), n(0), n(0), 0, ""],
      ["/thanks", n(1), n(0), n(0), n(0), 0, ""],
    ]);
    expect((await table({ breakdownBy: "InitialPage", conversionGoal: signup })).rows).toEqual([
      ["/pricing", n(3), n(2), n(2), n(2 / 3), 2 / 3, ""],
      ["/signup", n(1), n(1), n(1), n(1), 1 / 3, ""],
      ["/", n(1), n(0), n(0), n(0), 0, ""],
    ]);
    expect((await table({ breakdownBy: "Browser", conversionGoal: signup })).rows).toEqual([
      ["Chrome", n(2), n(2), n(1), n(0.5), 0.5, ""],
      ["Safari", n(1), n(1), n(1), n(1), 0.5, ""],
      ["Firefox", n(1), n(0), n(0), n(0), 0, ""],
    ]);
    const action = await table({ breakdownBy: "Page", conversionGoal: { actionId } });
    expect(action.rows.map((row) => [row[0], row[2], row[3]])).toEqual([
      ["/checkout", n(1), n(1)],
      ["/thanks", n(1), n(1)],
      ["/pricing", n(0), n(0)],
      ["/", n(0), n(0)],
      ["/signup", n(0), n(0)],
    ]);
  });

  it("orders by a goal figure, compares with the week before, and pages", async () => {
    const byRate = await table({ breakdownBy: "Page", conversionGoal: signup, orderBy: ["ConversionRate", "ASC"] });
    expect(byRate.rows.map((row) => row[0])).toEqual(["/", "/thanks", "/pricing", "/signup"]);
    const compared = await table({ breakdownBy: "Page", conversionGoal: signup, compareFilter: { compare: true } });
    expect(compared.rows).toEqual([
      ["/signup", [1, 0], [2, 0], [1, 0], [1, null], 0.5, ""],
      ["/pricing", [3, 1], [1, 1], [1, 1], [1 / 3, 1], 0.5, ""],
      ["/", [1, 0], [0, 0], [0, 0], [0, null], 0, ""],
      ["/thanks", [1, 0], [0, 0], [0, 0], [0, null], 0, ""],
    ]);
    expect((await table({ breakdownBy: "Page", conversionGoal: signup, limit: 1, offset: 1 })).rows.map((row) => row[0])).toEqual(["/pricing"]);
  });

  it("answers through POST /api/projects/:id/query/; a missing or deleted action, a bad goal or order is a 400", async () => {
    const queryRoute = restRoute("projects", "query");
    const post = async (query: Record<string, unknown>) => {
      const response = await queryRoute.POST!(
        new Request(`http://internal.test/api/projects/${projectId}/query/`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ query: { properties: [], dateRange: week, ...query }, refresh: true }),
        }),
        { params: Promise.resolve({ project_id: String(projectId) }) },
      );
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };
    const answer = await post({ kind: "WebStatsTableQuery", breakdownBy: "Page", conversionGoal: signup, limit: 1 });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ results: [["/signup", [1, null], [2, null], [1, null], [1, null], 0.5, ""]], hasMore: true });
    for (const [query, text] of [
      [{ kind: "WebOverviewQuery", conversionGoal: { actionId: 999_999 } }, "Action 999999 does not exist"],
      [{ kind: "WebOverviewQuery", conversionGoal: { actionId: deletedActionId } }, `Action ${deletedActionId} does not exist`],
      [{ kind: "WebOverviewQuery", conversionGoal: { pathname: "pricing" } }, "conversionGoal"],
      [{ kind: "WebOverviewQuery", conversionGoal: { pathname: "/signup?plan=pro" } }, 'to match the full URL give {"url"'],
      [{ kind: "WebOverviewQuery", conversionGoal: { url: "" } }, "url must not be empty"],
      [{ kind: "WebOverviewQuery", conversionGoal: { url: "x".repeat(2001) } }, "url must be at most 2000 characters"],
      [{ kind: "WebStatsTableQuery", breakdownBy: "Page", conversionGoal: signup, orderBy: ["Views", "DESC"] }, "orderBy"],
    ] as const) {
      const refused = await post(query);
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toContain(text);
    }
  });
});
