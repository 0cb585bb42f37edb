/**
 * WebTopClicksQuery (PostHog's top_clicks.py) on a week of autocaptured events whose answer
 * is worked out by hand, on whichever stores the run uses: only `$autocapture` clicks with an
 * element text count, in the range and through the filters; ties by visitors, then the text.
 */
import { randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { webTopClicksKind } from "./service";

let db: Database;
let apiKey: string;
let projectId: number;

const [u1, u2, u3] = ["0190c000-0000-7000-8000-000000000201", "0190c000-0000-7000-8000-000000000202", "0190c000-0000-7000-8000-000000000203"];

interface Sent {
  person: string | null;
  distinctId?: string;
  event?: string;
  at: string;
  properties: Record<string, unknown>;
}

const click = (person: string | null, at: string, text: unknown, extra: Record<string, unknown> = {}): Sent => ({
  person,
  at,
  properties: { $event_type: "click", $el_text: text, $host: "shop.example", ...extra },
});

/*
 * In the week: "Buy" 3 clicks by u1, u2 (twice) → 3 clicks, 2 visitors; "Add to cart" 3 by u1
 * (three times) → 3, 1; "Sign up" 1 by u3 and 1 by an anonymous distinct id → 2, 2;
 * "Docs" 1 on docs.example by u3 → 1, 1; "Zebra" and "Apple" 1 each by u1 (ties: by text).
 * Not counted: a submit, a click without text or with empty text, a $pageview with
 * $el_text, a click the week before.
 */
const EVENTS: Sent[] = [
  click(u1, "2024-07-01T10:00:00", "Buy"),
  click(u2, "2024-07-01T11:00:00", "Buy"),
  click(u2, "2024-07-02T11:00:00", "Buy"),
  click(u1, "2024-07-02T10:00:00", "Add to cart"),
  click(u1, "2024-07-02T10:00:05", "Add to cart"),
  click(u1, "2024-07-03T10:00:00", "Add to cart"),
  click(u3, "2024-07-03T12:00:00", "Sign up"),
  { ...click(null, "2024-07-03T12:30:00", "Sign up"), distinctId: "anon-1" },
  click(u3, "2024-07-04T12:00:00", "Docs", { $host: "docs.example" }),
  click(u1, "2024-07-05T09:00:00", "Zebra"),
  click(u1, "2024-07-05T09:00:01", "Apple"),
  click(u1, "2024-07-05T09:00:02", "Buy", { $event_type: "submit" }),
  click(u1, "2024-07-05T09:00:03", ""),
  click(u1, "2024-07-05T09:00:04", null),
  { ...click(u1, "2024-07-05T09:00:05", "Buy"), event: "$pageview" },
  click(u2, "2024-06-25T09:00:00", "Docs"),
  click(u2, "2024-06-26T09:00:00", "Docs"),
];

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "clicks@example.com", password: "pw12345678" });
  apiKey = owner.personal_api_key;
  projectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Clicks", apiToken: `phc_${randomUUID()}` } })).id;
  await db.events.insert(
    EVENTS.map((e) => ({
      uuid: uuidv7(),
      projectId,
      event: e.event ?? "$autocapture",
      distinctId: e.distinctId ?? e.person ?? "anon",
      personId: e.person,
      properties: e.properties,
      timestamp: new Date(`${e.at}Z`),
    })),
  );
}, 60_000);

afterAll(() => closeDb());

const week = { date_from: "2024-07-01", date_to: "2024-07-07" };

async function topClicks(node: Record<string, unknown>) {
  const spec = webTopClicksKind.spec({ kind: "WebTopClicksQuery", properties: [], dateRange: week, ...node }, null);
  const answer = await webTopClicksKind.compute({ db, projectId, zone: "UTC", now: new Date("2024-08-01T00:00:00Z") }, spec);
  return { rows: answer.results as unknown[][], columns: (answer.extra as { columns: string[] }).columns };
}

describe(`WebTopClicksQuery on ${testStoresName}`, () => {
  it("counts autocaptured clicks by element text: most clicks, then most visitors, then the text", async () => {
    const { rows, columns } = await topClicks({});
    expect(columns).toEqual(["el_text", "total_clicks", "unique_visitors"]);
    expect(rows).toEqual([
      ["Buy", 3, 2],
      ["Add to cart", 3, 1],
      ["Sign up", 2, 2],
      ["Apple", 1, 1],
      ["Docs", 1, 1],
      ["Zebra", 1, 1],
    ]);
  });

  it("reads the range and the filters; a comparison changes nothing", async () => {
    expect((await topClicks({ dateRange: { date_from: "2024-06-24", date_to: "2024-06-30" } })).rows).toEqual([["Docs", 2, 1]]);
    expect((await topClicks({ properties: [{ type: "event", key: "$host", value: "docs.example", operator: "exact" }] })).rows).toEqual([["Docs", 1, 1]]);
    expect((await topClicks({ compareFilter: { compare: true } })).rows).toHaveLength(6);
  });

  it("answers through POST /api/projects/:id/query/, and refuses what it does not support", async () => {
    const queryRoute = restRoute("projects", "query");
    const post = async (query: Record<string, unknown>) => {
      const response = await queryRoute.POST!(
        new Request(`http://internal.test/api/projects/${projectId}/query/`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ query: { kind: "WebTopClicksQuery", properties: [], dateRange: week, ...query }, refresh: true }),
        }),
        { params: Promise.resolve({ project_id: String(projectId) }) },
      );
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };
    const answer = await post({});
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ columns: ["el_text", "total_clicks", "unique_visitors"], is_cached: false });
    expect(answer.body.results[0]).toEqual(["Buy", 3, 2]);
    const goal = await post({ conversionGoal: { customEventName: "signup" } });
    expect(goal.status).toBe(400);
    expect(goal.body.detail).toContain("conversionGoal");
  });
});
