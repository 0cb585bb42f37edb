/**
 * PathsQuery over small sets of events with answers worked out by hand, one project per
 * case: edges and their order, sessions split at 30 minutes, repeats collapsed, which
 * events count, start and end points, the step limit and "..." middle, groupings and
 * cleaning rules (hostile regexes included), edge limits and weights, reachability from a
 * first step, filters and the date range, the actors behind an edge or drop-off, 400s,
 * and the REST route.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { computeQuery, resolveQuery } from "@/server/query/service";
import { AppError } from "@/server/errors";
import type { QueryEnv } from "@/server/analytics/kind";
import { pathsKind, type PathsEdge } from "./service";
import type { PathsSpec } from "./contract";

let db: Database;
let organizationId: string;
let mainProjectId: number;
let personalKey: string;

const NOW = new Date("2024-03-10T00:00:00Z");
/** Minutes after 2024-03-01 12:00 UTC. */
const at = (minute: number) => new Date(Date.UTC(2024, 2, 1, 12, 0, 0) + minute * 60_000);
const RANGE = { date_from: "2024-03-01", date_to: "2024-03-02" };

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "paths@example.com", password: "pw12345678" });
  organizationId = owner.organization_id;
  mainProjectId = owner.project_id;
  personalKey = owner.personal_api_key;
});

afterAll(() => closeDb());

type Step = [minute: number, item: string, properties?: Record<string, unknown>];

/** A project of its own with one person per entry, each doing `steps` (an item starting with "/" is a page view of that URL; "screen:X" a screen; else an event). */
async function projectWith(people: Record<string, Step[]>): Promise<{ projectId: number; uuids: Record<string, string> }> {
  const project = await db.prisma.project.create({ data: { organizationId, name: "Paths", apiToken: `phc_${randomUUID()}`, timezone: "UTC" } });
  const uuids: Record<string, string> = {};
  for (const [name, steps] of Object.entries(people)) {
    const uuid = randomUUID();
    uuids[name] = uuid;
    await db.sql.query(`INSERT INTO persons (uuid, project_id, properties, updated_at) VALUES ($1::uuid, $2::int, $3::jsonb, now())`, [uuid, project.id, JSON.stringify({ name })]);
    await db.events.insert(
      steps.map(([minute, item, properties]) => {
        const [event, extra] = item.startsWith("/") || item.startsWith("https://")
          ? ["$pageview", { $current_url: item }]
          : item.startsWith("screen:")
            ? ["$screen", { $screen_name: item.slice(7) }]
            : [item, {}];
        return { uuid: randomUUID(), projectId: project.id, event, distinctId: name, personId: uuid, properties: { ...extra, ...properties }, timestamp: at(minute) };
      }),
    );
  }
  return { projectId: project.id, uuids };
}

async function paths(projectId: number, pathsFilter: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<PathsEdge[]> {
  const computed = await computeQuery(db, projectId, { kind: "PathsQuery", dateRange: RANGE, pathsFilter, ...extra }, { refresh: "force", now: NOW });
  return computed.answer!.results as PathsEdge[];
}

const edge = (source: string, target: string, value: number, minutes: number): PathsEdge => ({ source, target, value, average_conversion_time: minutes * 60_000 });

async function actors(projectId: number, selector: Record<string, unknown>, pathsFilter: Record<string, unknown> = {}): Promise<string[]> {
  const { spec } = resolveQuery({ kind: "PathsQuery", dateRange: RANGE, pathsFilter });
  const env: QueryEnv = { db, projectId, zone: "UTC", now: NOW };
  return pathsKind.actors!(env, spec as PathsSpec, selector);
}

async function refusal(query: Record<string, unknown>): Promise<AppError> {
  try {
    await computeQuery(db, mainProjectId, { kind: "PathsQuery", ...query }, { refresh: "force", now: NOW });
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("the query was not refused");
}

describe(`PathsQuery (${testStoresName})`, () => {
  let shop: { projectId: number; uuids: Record<string, string> };
  beforeAll(async () => {
    shop = await projectWith({
      alice: [[0, "https://x.test/home/"], [1, "https://x.test/pricing"], [3, "https://x.test/signup"]],
      bob: [[0, "https://x.test/home"], [2, "https://x.test/pricing/"]],
      carol: [[0, "https://x.test/home"], [1, "https://x.test/about"]],
    });
  });

  it("counts each step as an edge between numbered nodes, most traversed first, then by source and target, with the mean time in ms", async () => {
    // One trailing slash goes, so alice's and bob's /home and /pricing are the same items.
    expect(await paths(shop.projectId)).toEqual([
      edge("1_https://x.test/home", "2_https://x.test/pricing", 2, 1.5),
      edge("1_https://x.test/home", "2_https://x.test/about", 1, 1),
      edge("2_https://x.test/pricing", "3_https://x.test/signup", 1, 2),
    ]);
  });

  it("splits a person's events into sessions at gaps of 30 minutes or more", async () => {
    const { projectId } = await projectWith({
      // 29 minutes is the same session; /b to /c is exactly 30 minutes: a new one.
      dave: [[0, "/a"], [29, "/b"], [59, "/c"], [60, "/d"]],
    });
    expect(await paths(projectId)).toEqual([edge("1_/a", "2_/b", 1, 29), edge("1_/c", "2_/d", 1, 1)]);
  });

  it("collapses consecutive repeats, a run keeping its last event's time", async () => {
    const { projectId } = await projectWith({ erin: [[0, "/a"], [1, "/a"], [2, "/b"], [5, "/b"], [6, "/a"]] });
    // /a (at 1) → /b (at 5) → /a (at 6)
    expect(await paths(projectId)).toEqual([edge("1_/a", "2_/b", 1, 4), edge("2_/b", "3_/a", 1, 1)]);
  });

  describe("which events count", () => {
    let projectId: number;
    beforeAll(async () => {
      ({ projectId } = await projectWith({ fay: [[0, "/a"], [1, "screen:Home"], [2, "clicked"], [3, "$autocapture"], [4, "/b"]] }));
    });

    it("takes every event without includeEventTypes: page views by URL, screens by name, others by event name", async () => {
      expect(await paths(projectId)).toEqual([
        edge("1_/a", "2_Home", 1, 1),
        edge("2_Home", "3_clicked", 1, 1),
        edge("3_clicked", "4_$autocapture", 1, 1),
        edge("4_$autocapture", "5_/b", 1, 1),
      ]);
    });

    it("takes only the kinds named: page views, screens, custom events (names not starting with $)", async () => {
      expect(await paths(projectId, { includeEventTypes: ["$pageview"] })).toEqual([edge("1_/a", "2_/b", 1, 4)]);
      expect(await paths(projectId, { includeEventTypes: ["$pageview", "custom_event"] })).toEqual([edge("1_/a", "2_clicked", 1, 2), edge("2_clicked", "3_/b", 1, 2)]);
      // One screen alone is a path of one step: no edge.
      expect(await paths(projectId, { includeEventTypes: ["$screen"] })).toEqual([]);
    });

    it("leaves out excluded path items", async () => {
      expect(await paths(projectId, { excludeEvents: ["clicked", "Home"] })).toEqual([edge("1_/a", "2_$autocapture", 1, 3), edge("2_$autocapture", "3_/b", 1, 1)]);
    });
  });

  describe("start point, end point and step limit", () => {
    let projectId: number;
    beforeAll(async () => {
      ({ projectId } = await projectWith({
        gus: [[0, "/a"], [1, "/b"], [3, "/c"], [6, "/d"], [10, "/e"], [15, "/f"]],
        hal: [[0, "/x"], [1, "/y"]],
      }));
    });

    it("starts paths at the first start point, leaving out sessions without it", async () => {
      expect(await paths(projectId, { startPoint: "/c/" })).toEqual([edge("1_/c", "2_/d", 1, 3), edge("2_/d", "3_/e", 1, 4), edge("3_/e", "4_/f", 1, 5)]);
    });

    it("ends paths at the first end point", async () => {
      expect(await paths(projectId, { endPoint: "/c" })).toEqual([edge("1_/a", "2_/b", 1, 1), edge("2_/b", "3_/c", 1, 2)]);
    });

    it("keeps the first stepLimit steps (five by default), or with only an end point the last ones", async () => {
      expect(await paths(projectId)).toEqual([
        edge("1_/a", "2_/b", 1, 1),
        edge("1_/x", "2_/y", 1, 1),
        edge("2_/b", "3_/c", 1, 2),
        edge("3_/c", "4_/d", 1, 3),
        edge("4_/d", "5_/e", 1, 4),
      ]);
      expect(await paths(projectId, { stepLimit: 3, startPoint: "/b" })).toEqual([edge("1_/b", "2_/c", 1, 2), edge("2_/c", "3_/d", 1, 3)]);
      expect(await paths(projectId, { stepLimit: 3, endPoint: "/f" })).toEqual([edge("1_/d", "2_/e", 1, 4), edge("2_/e", "3_/f", 1, 5)]);
    });

    it("with both points, replaces the middle of a longer path with '...' at the time of the first step it hides", async () => {
      // /b /c /d /e /f is five steps; a limit of 4 keeps /b /c … /e /f, "..." standing at /d's time (6).
      expect(await paths(projectId, { startPoint: "/b", endPoint: "/f", stepLimit: 4 })).toEqual([
        edge("1_/b", "2_/c", 1, 2),
        edge("2_/c", "3_...", 1, 3),
        edge("3_...", "4_/e", 1, 4),
        edge("4_/e", "5_/f", 1, 5),
      ]);
      // Short enough: nothing hidden.
      expect(await paths(projectId, { startPoint: "/b", endPoint: "/d" })).toEqual([edge("1_/b", "2_/c", 1, 2), edge("2_/c", "3_/d", 1, 3)]);
    });
  });

  it("groups items matching a wildcard grouping under the grouping", async () => {
    const { projectId } = await projectWith({ ida: [[0, "/product/1"], [1, "/product/2"], [2, "/cart"], [3, "/products"]] });
    // The two product pages become one /product/* run (kept at 1); /products does not match "/product/*".
    expect(await paths(projectId, { pathGroupings: ["/product/*"] })).toEqual([edge("1_/product/*", "2_/cart", 1, 1), edge("2_/cart", "3_/products", 1, 1)]);
  });

  it("cleans items with regex rules in order, groups in the alias, and runs hostile patterns in linear time", async () => {
    const evil = `/${"a".repeat(5000)}!`;
    const { projectId } = await projectWith({ jon: [[0, "/user/12?tab=1"], [2, "/user/7"], [3, "/team/5/page"], [4, evil]] });
    const started = performance.now();
    const result = await paths(projectId, {
      localPathCleaningFilters: [
        { regex: "\\?.*$", alias: "" },
        { regex: "/user/\\d+", alias: "/user/:id" },
        { regex: "^/(\\w+)/\\d+/page$", alias: "/\\1/:id" },
        // Catastrophic for a backtracking engine on the long item; linear for RE2.
        { regex: "^/(a+)+$", alias: "/aaa" },
      ],
    });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(result).toEqual([edge("1_/user/:id", "2_/team/:id", 1, 1), edge("2_/team/:id", `3_${evil}`, 1, 1)]);
  });

  describe("edge limit, weights and reachability", () => {
    let projectId: number;
    beforeAll(async () => {
      ({ projectId } = await projectWith({
        kim: [[0, "/a"], [1, "/b"], [2, "/c"]],
        lee: [[0, "/d"], [1, "/b"], [2, "/c"]],
        max: [[0, "/e"], [1, "/b"], [2, "/c"]],
      }));
    });

    it("keeps the edgeLimit most traversed edges, then only those reachable from a first step", async () => {
      expect(await paths(projectId)).toEqual([edge("2_/b", "3_/c", 3, 1), edge("1_/a", "2_/b", 1, 1), edge("1_/d", "2_/b", 1, 1), edge("1_/e", "2_/b", 1, 1)]);
      expect(await paths(projectId, { edgeLimit: 2 })).toEqual([edge("2_/b", "3_/c", 3, 1), edge("1_/a", "2_/b", 1, 1)]);
      // Alone, 2_/b → 3_/c hangs from no first step.
      expect(await paths(projectId, { edgeLimit: 1 })).toEqual([]);
    });

    it("keeps edges within minEdgeWeight and maxEdgeWeight", async () => {
      expect(await paths(projectId, { minEdgeWeight: 2 })).toEqual([]);
      expect(await paths(projectId, { maxEdgeWeight: 1 })).toEqual([edge("1_/a", "2_/b", 1, 1), edge("1_/d", "2_/b", 1, 1), edge("1_/e", "2_/b", 1, 1)]);
    });
  });

  it("reads only events of the date range that pass the property filters", async () => {
    const { projectId } = await projectWith({
      ned: [[0, "/a", { $browser: "Chrome" }], [1, "/b", { $browser: "Safari" }], [2, "/c", { $browser: "Chrome" }], [24 * 60 * 2, "/late", { $browser: "Chrome" }]],
    });
    expect(await paths(projectId, {}, { properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] })).toEqual([edge("1_/a", "2_/c", 1, 2)]);
    expect(await paths(projectId, {}, { properties: [{ key: "name", value: "someone else", operator: "exact", type: "person" }] })).toEqual([]);
  });

  it("lists the actors behind an edge, a node, or a drop-off", async () => {
    const { alice, bob, carol } = shop.uuids as Record<string, string>;
    const byUuid = (...ids: string[]) => [...ids].sort();
    expect(await actors(shop.projectId, { pathStartKey: "1_https://x.test/home", pathEndKey: "2_https://x.test/pricing" })).toEqual(byUuid(alice!, bob!));
    expect(await actors(shop.projectId, { pathEndKey: "3_https://x.test/signup" })).toEqual([alice]);
    // bob's path ends at 2_…/pricing; alice's goes on.
    expect(await actors(shop.projectId, { pathDropoffKey: "2_https://x.test/pricing" })).toEqual([bob]);
    expect(await actors(shop.projectId, { pathDropoffKey: "2_https://x.test/about" })).toEqual([carol]);
    // The keys may come in the source's pathsFilter, as PostHog's InsightActorsQuery sends them.
    expect(await actors(shop.projectId, {}, { pathDropoffKey: "3_https://x.test/signup" })).toEqual([alice]);
    // Alice took three steps, the others two.
    expect((await actors(shop.projectId, {}))[0]).toBe(alice);
  });

  it("refuses fields it cannot honour with a 400 naming them", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ pathsFilter: { stepLimit: "five" } }, /stepLimit/],
      [{ pathsFilter: { stepLimit: 1 } }, /stepLimit must be at least 2/],
      [{ pathsFilter: { edgeLimit: 0 } }, /edgeLimit/],
      [{ pathsFilter: { includeEventTypes: ["hogql"] } }, /includeEventTypes/],
      [{ pathsFilter: { pathsHogQLExpression: "event" } }, /pathsHogQLExpression/],
      [{ pathsFilter: { localPathCleaningFilters: [{ regex: "(?<=a)b", alias: "x" }] } }, /localPathCleaningFilters\.0\.regex: regex is not a valid RE2/],
      [{ pathsFilter: { excludeEvents: "clicked" } }, /excludeEvents/],
      [{ pathsFilter: { minEdgeWeight: -1 } }, /minEdgeWeight/],
      [{ funnelPathsFilter: { funnelStep: 1 } }, /funnelPathsFilter/],
      [{ dateRange: { date_from: "yesterday-ish" } }, /date_from/],
    ];
    for (const [query, message] of cases) {
      const error = await refusal(query);
      expect(error.code).toBe("invalid_input");
      expect(error.message).toMatch(message);
    }
  });

  it("answers POST /api/projects/:id/query/ in PostHog's envelope", async () => {
    const route = restRoute("projects", "query");
    const post = (body: unknown) =>
      route.POST(
        new Request(`http://internal.test/api/projects/${shop.projectId}/query/`, {
          method: "POST",
          headers: { authorization: `Bearer ${personalKey}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        { params: Promise.resolve({ project_id: String(shop.projectId) }) },
      );
    const ok = await post({ query: { kind: "PathsQuery", dateRange: { date_from: "2024-03-01", date_to: "2024-03-02" }, pathsFilter: { includeEventTypes: ["$pageview"], edgeLimit: 1 } }, refresh: "force_blocking" });
    expect(ok.status).toBe(200);
    const body = await ok.json();
    expect(body.results).toEqual([edge("1_https://x.test/home", "2_https://x.test/pricing", 2, 1.5)]);
    expect(body.is_cached).toBe(false);
    expect(body.resolved_date_range.date_from).toMatch(/^2024-03-01T00:00:00/);

    const bad = await post({ query: { kind: "PathsQuery", pathsFilter: { stepLimit: 500 } } });
    expect(bad.status).toBe(400);
    // A field out of its range is malformed: PostHog's parse error, the field named in the detail.
    expect(await bad.json()).toMatchObject({ type: "invalid_request", code: "parse_error", attr: null, detail: expect.stringContaining("pathsFilter.stepLimit") });
  });
});
