/**
 * Actions end to end: the REST API (PostHog's fields, unique names, refused selectors and
 * patterns, 405 on DELETE, soft delete) and `ActionsNode` in every query kind, on a fixed set
 * of events whose answers are worked out by hand below — the same on PGlite, PostgreSQL and
 * the ClickHouse event store.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";
import { clearQueryCache, computeQuery } from "@/server/query/service";

let db: Database;
let projectId: number;
let apiKey: string;
const list = restRoute("projects", "actions");
const one = restRoute("projects", "actions/:id");

const a = "0190c000-0000-7000-8000-0000000000a1";
const b = "0190c000-0000-7000-8000-0000000000b1";
const c = "0190c000-0000-7000-8000-0000000000c1";

const SHOP = "https://shop.test";
const BUY_NOW = 'button.btn.primary:attr__data-attr="buy"nth-child="2"nth-of-type="1"text="Buy now";div.card:nth-child="1"nth-of-type="1";body:nth-child="1"nth-of-type="1"';
const SIGN_UP = 'a.link:href="/signup"nth-child="1"nth-of-type="1"text="Sign up";nav:nth-child="1"nth-of-type="1"';
const BUY_LATER = 'button.btn:nth-child="1"nth-of-type="1"text="Buy \\"later\\"";form:nth-child="1"nth-of-type="1";div.card:nth-child="1"nth-of-type="1"';

/** [#, person, event, day of March 2024 and time, $current_url, elements chain, properties] */
type Sent = [number, string, string, string, string | null, string, Record<string, unknown>];
const EVENTS: Sent[] = [
  [1, a, "$pageview", "01T10:00", `${SHOP}/pricing?x=1`, "", {}],
  [2, a, "$autocapture", "01T10:01", `${SHOP}/pricing`, BUY_NOW, {}],
  [3, b, "$autocapture", "02T09:00", `${SHOP}/home`, SIGN_UP, {}],
  [4, b, "$pageview", "02T09:01", `${SHOP}/PRICING`, "", {}],
  [5, c, "signed_up", "03T09:00", null, "", { plan: "pro" }],
  [6, c, "$pageview", "04T09:00", `${SHOP}/pricing`, "", {}],
  [7, a, "$pageview", "04T10:00", `${SHOP}/blog`, "", {}],
  [8, c, "$autocapture", "05T09:00", `${SHOP}/cart`, BUY_LATER, {}],
];

const call = projectApiCaller(() => ({ projectId, apiKey }));

const create = (body: unknown) => call(list.POST, "POST", "actions/", {}, body);

/** The actions below by name → id. */
const ids = new Map<string, number>();
const STEPS: Record<string, unknown[]> = {
  // 1 and 6; not 4 (URLs compare case-sensitively).
  "Viewed pricing": [{ event: "$pageview", url: "/pricing" }],
  // 2 and 8 (a descendant of div.card), and 5 by its second step.
  "Clicked buy": [{ event: "$autocapture", selector: "div.card button.btn" }, { event: "signed_up", properties: [{ key: "plan", value: "pro", type: "event" }] }],
  // 2 and 8: case-insensitive substring.
  "Buy text": [{ event: "$autocapture", text: "buy", text_matching: "contains" }],
  // 3.
  "Signup link": [{ event: "$autocapture", href: "/signup", href_matching: "exact" }],
  // 1, 2, 6 and 8: any event.
  "Pricing or cart": [{ url: "^https://shop\\.test/(pricing|cart)", url_matching: "regex" }],
  // 2 and 6 (1 has a query string).
  "Exact pricing": [{ url: `${SHOP}/pricing`, url_matching: "exact" }],
  // 2 only: 8's button is in a form.
  "Direct child": [{ event: "$autocapture", selector: "div.card > button.primary" }],
  // 3.
  "Links": [{ event: "$autocapture", tag_name: "a" }],
  // 8: quotes in the text as the chain escapes them.
  "Later": [{ event: "$autocapture", text: 'Buy "later"', text_matching: "exact" }],
};
const COUNTS: Record<string, number> = { "Viewed pricing": 2, "Clicked buy": 3, "Buy text": 2, "Signup link": 1, "Pricing or cart": 4, "Exact pricing": 2, "Direct child": 1, Links: 1, Later: 1 };

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "actions@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  for (const uuid of [a, b, c]) await db.sql.query(`INSERT INTO persons (uuid, project_id, properties, created_at, updated_at) VALUES ($1::uuid, $2::int, '{}', '2024-01-01', now())`, [uuid, projectId]);
  await db.events.insert(
    // 8 comes as posthog-js sends it: the chain in the `$elements_chain` property, the column empty.
    EVENTS.map(([n, personId, event, at, url, elementsChain, properties]) => ({
      uuid: uuidv7(),
      projectId,
      event,
      distinctId: personId.slice(-2),
      personId,
      properties: { ...properties, ...(url ? { $current_url: url } : {}), ...(n === 8 ? { $elements_chain: elementsChain } : {}) },
      elementsChain: n === 8 ? "" : elementsChain,
      timestamp: new Date(`2024-03-${at}:00Z`),
    })),
  );
  for (const [name, steps] of Object.entries(STEPS)) {
    const response = await create({ name, steps });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    ids.set(name, response.body.id);
  }
});

afterAll(() => closeDb());

const week = { date_from: "2024-03-01", date_to: "2024-03-07" };
const node = (name: string) => ({ kind: "ActionsNode", id: ids.get(name) });
const run = async (query: Record<string, unknown>) => {
  clearQueryCache(db);
  return (await computeQuery(db, projectId, query, { now: new Date("2024-06-01T00:00:00Z") })).answer!.results as Record<string, unknown>[];
};

describe(`actions API (${testStoresName})`, () => {
  it("shows PostHog's fields, with the selector's regex", async () => {
    const { status, body } = await call(one.GET, "GET", `actions/${ids.get("Direct child")}/`, { id: String(ids.get("Direct child")) });
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: "Direct child", is_action: true, is_calculating: false, deleted: false, team_id: projectId, tags: [], post_to_slack: false });
    expect(body.steps[0]).toMatchObject({ event: "$autocapture", selector: "div.card > button.primary", url: null, url_matching: null, properties: null });
    expect(typeof body.steps[0].selector_regex).toBe("string");
    const listed = await call(list.GET, "GET", "actions/", {});
    expect(listed.body.count).toBe(Object.keys(STEPS).length);
  });

  it.each([
    [{ name: "Viewed pricing", steps: [] }, "name", /already has an action with this name/],
    [{ name: " ", steps: [] }, "name", /blank/],
    [{ name: "bad selector", steps: [{ event: "$autocapture", selector: "div::before" }] }, "steps__0__selector", /Invalid selector/],
    [{ name: "bad regex", steps: [{ url: "(a", url_matching: "regex" }] }, "steps__0__url", /Invalid regular expression/],
    [{ name: "backreference", steps: [{ url: "(a)\\1", url_matching: "regex" }] }, "steps__0__url", /Invalid regular expression/],
    [{ name: "bad matching", steps: [{ url: "x", url_matching: "startswith" }] }, "steps__0__url_matching", /contains, regex, exact/],
    [{ name: "bad property", steps: [{ event: "x", properties: [{ key: "a", operator: "nope", value: 1 }] }] }, "steps__0__properties__0__operator", /Unknown operator/],
    [{ name: "too many", steps: Array.from({ length: 21 }, () => ({ event: "x" })) }, "steps", /at most 20 steps/],
  ])("refuses %j with a 400 naming the field", async (body, attr, message) => {
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(response.body.attr).toBe(attr);
    expect(response.body.detail).toMatch(message);
  });

  it("answers DELETE with 405 and soft-deletes by PATCH; a deleted action's name is free again", async () => {
    const made = await create({ name: "temporary", steps: [{ event: "x" }] });
    const id = String(made.body.id);
    expect((await call(one.DELETE, "DELETE", `actions/${id}/`, { id })).status).toBe(405);
    const deleted = await call(one.PATCH, "PATCH", `actions/${id}/`, { id }, { deleted: true });
    expect(deleted.body.deleted).toBe(true);
    expect((await call(list.GET, "GET", "actions/", {})).body.results.map((action: { name: string }) => action.name)).not.toContain("temporary");
    expect((await create({ name: "temporary", steps: [] })).status).toBe(201);
    // Restoring would clash with the new one.
    expect((await call(one.PATCH, "PATCH", `actions/${id}/`, { id }, { deleted: false })).status).toBe(400);
  });

  it("answers an unknown action in a query with a 400", async () => {
    await expect(run({ kind: "TrendsQuery", series: [{ kind: "ActionsNode", id: 999999 }], dateRange: week })).rejects.toThrow(/Action 999999 does not exist/);
  });
});

describe(`ActionsNode in queries (${testStoresName})`, () => {
  it("the events list's action_id gives the events each action matches, narrowed by the list's other filters; an unknown action is a 400", async () => {
    const events = restRoute("projects", "events");
    const listed = async (query: Record<string, string>) => (await call(events.GET, "GET", `events/?${new URLSearchParams(query)}`, {})).body;
    for (const [name, count] of Object.entries(COUNTS)) {
      expect((await listed({ action_id: String(ids.get(name)), after: "2024-02-01", before: "2024-04-01" })).results, name).toHaveLength(count);
    }
    const pro = await listed({ action_id: String(ids.get("Clicked buy")), after: "2024-02-01", properties: JSON.stringify([{ key: "plan", value: "pro", type: "event" }]) });
    expect(pro.results.map((event: { event: string }) => event.event)).toEqual(["signed_up"]);
    expect(await listed({ action_id: "999999" })).toMatchObject({ type: "validation_error", attr: "action_id", detail: "Action 999999 does not exist." });
    expect(await listed({ action_id: "x" })).toMatchObject({ type: "validation_error", attr: "action_id" });
  });

  it("trends: each action counts the events its steps match, labelled by its name", async () => {
    const names = Object.keys(STEPS);
    const results = await run({ kind: "TrendsQuery", series: names.map(node), dateRange: week, interval: "day" });
    expect(Object.fromEntries(results.map((series) => [series.label, series.count]))).toEqual(COUNTS);
    const first = results[0]!;
    expect(first.action).toMatchObject({ id: ids.get("Viewed pricing"), type: "actions", name: "Viewed pricing" });
    expect(first.data).toEqual([1, 0, 0, 1, 0, 0, 0]);
  });

  it("trends: the node's own properties narrow the action", async () => {
    const results = await run({ kind: "TrendsQuery", series: [{ ...node("Clicked buy"), properties: [{ key: "plan", value: "pro", type: "event" }] }], dateRange: week });
    expect(results[0]!.count).toBe(1);
  });

  it("funnels: viewed pricing then clicked buy — a and c convert, b never saw pricing", async () => {
    const results = await run({ kind: "FunnelsQuery", series: [node("Viewed pricing"), node("Clicked buy")], dateRange: week, funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: "day" } });
    expect(results.map((step) => [step.name, step.count, step.action_id])).toEqual([
      ["Viewed pricing", 2, ids.get("Viewed pricing")],
      ["Clicked buy", 2, ids.get("Clicked buy")],
    ]);
  });

  it("stickiness: a and c each viewed pricing on one day", async () => {
    const results = await run({ kind: "StickinessQuery", series: [node("Viewed pricing")], dateRange: week });
    expect(results[0]!.label).toBe("Viewed pricing");
    expect(results[0]!.data).toEqual([2, 0, 0, 0, 0, 0, 0]);
  });

  it("lifecycle: the persons active by the action each day", async () => {
    const results = await run({ kind: "LifecycleQuery", series: [node("Viewed pricing")], dateRange: week, interval: "day" });
    const active = [0, 0, 0, 0, 0, 0, 0];
    for (const status of results.filter((row) => row.status !== "dormant")) (status.data as number[]).forEach((n, i) => (active[i]! += n));
    expect(active).toEqual([1, 0, 0, 1, 0, 0, 0]);
    expect(results[0]!.action).toMatchObject({ id: ids.get("Viewed pricing"), type: "actions", name: "Viewed pricing" });
  });

  it("retention: actions as target and returning entities", async () => {
    const results = await run({
      kind: "RetentionQuery",
      dateRange: week,
      retentionFilter: { period: "Day", totalIntervals: 3, targetEntity: { id: ids.get("Viewed pricing"), type: "actions" }, returningEntity: { id: ids.get("Pricing or cart"), type: "actions" } },
    });
    const sizes = results.map((row) => (row.values as { count: number }[]).map((cell) => cell.count));
    // 1 March: a (returns by nothing later); 4 March: c, back on the 5th at the cart.
    expect(sizes[0]).toEqual([1, 0, 0]);
    expect(sizes[3]).toEqual([1, 1, 0]);
  });
});
