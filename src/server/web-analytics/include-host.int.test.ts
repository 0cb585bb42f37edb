/**
 * WebStatsTableQuery's includeHost (PostHog's stats_table.py _prepend_host): Page's value is
 * the event's `$host` and `$pathname` joined, InitialPage's and ExitPage's the host of the
 * session's entry (exit) URL and its path, a missing part as empty text and nothing at all
 * as no value; Page's bounce rate is looked up by entry host and path. On whichever stores
 * the run uses, through each store's three stats statements (events alone, events with their
 * sessions, the sessions table alone). PostHog's own examples (test_web_stats_table.py
 * test_include_host_*) first, then a week of two hosts sharing their paths worked out by hand.
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
let organizationId: string;
/** The week of two hosts below. */
let hostsProject: number;

const u = (n: number) => `0190c000-0000-7000-8000-0000000002${String(n).padStart(2, "0")}`;

interface View {
  person: string;
  at: string;
  /** Null: a page view without a session. */
  session: string | null;
  properties: Record<string, unknown>;
}

/** A page view as PostHog's test helper sends it: `$pathname`, `$host` and the `$current_url` of both. */
const page = (person: string, at: string, session: string, host: string, path: string, more: Record<string, unknown> = {}): View => ({
  person,
  at,
  session,
  properties: { $host: host, $pathname: path, $current_url: `https://${host}${path}`, ...more },
});

async function project(name: string, views: View[]): Promise<number> {
  const id = (await db.prisma.project.create({ data: { organizationId, name, apiToken: `phc_${randomUUID()}` } })).id;
  await db.events.insert(
    views.map((view) => ({
      uuid: uuidv7(),
      projectId: id,
      event: "$pageview",
      distinctId: view.person,
      personId: view.person,
      properties: view.session === null ? view.properties : { $session_id: view.session, ...view.properties },
      timestamp: new Date(`${view.at}Z`),
    })),
  );
  return id;
}

/*
 * The week, 1–7 Feb 2024: shop.example and docs.example share "/" and "/pricing".
 *   S1 (u1) shop /, shop /pricing — two views, not bounced;
 *   S2 (u2) docs / — bounced;
 *   S3 (u3) docs /pricing, then shop /pricing — enters on one host and leaves on the other;
 *   S4 (u4) dev.example:8080 / — bounced; `$host` keeps the port, the URL's host does not;
 *   S5 (u5) https://shop.example with no `$pathname` — no path: the host alone;
 *   S6 (u2) shop / — bounced;
 *   and u5's page view of /pricing without a session, `$host` or URL: the path alone.
 */
const [s1, s2, s3, s4, s5, s6] = Array.from({ length: 6 }, () => uuidv7()) as [string, string, string, string, string, string];
const HOSTS_WEEK: View[] = [
  page(u(1), "2024-02-01T10:00:00", s1, "shop.example", "/", { $browser: "Chrome" }),
  page(u(1), "2024-02-01T10:00:30", s1, "shop.example", "/pricing", { $browser: "Chrome" }),
  page(u(2), "2024-02-02T10:00:00", s2, "docs.example", "/", { $browser: "Firefox", utm_source: "news" }),
  page(u(3), "2024-02-03T10:00:00", s3, "docs.example", "/pricing", { $browser: "Chrome" }),
  page(u(3), "2024-02-03T10:01:00", s3, "shop.example", "/pricing", { $browser: "Chrome" }),
  { person: u(4), at: "2024-02-04T10:00:00", session: s4, properties: { $host: "dev.example:8080", $pathname: "/", $current_url: "http://dev.example:8080/" } },
  { person: u(5), at: "2024-02-05T10:00:00", session: s5, properties: { $host: "shop.example", $current_url: "https://shop.example" } },
  page(u(2), "2024-02-06T11:00:00", s6, "shop.example", "/", { $browser: "Firefox" }),
  { person: u(5), at: "2024-02-06T10:00:00", session: null, properties: { $pathname: "/pricing" } },
];

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "host@example.com", password: "pw12345678" });
  apiKey = owner.personal_api_key;
  organizationId = owner.organization_id;
  hostsProject = await project("Two hosts", HOSTS_WEEK);
}, 60_000);

afterAll(() => closeDb());

const week = { date_from: "2024-02-01", date_to: "2024-02-07" };
const byHost = (host: string) => [{ type: "event", key: "$host", value: host, operator: "exact" }];

async function table(projectId: number, node: Record<string, unknown>) {
  const spec = webStatsTableKind.spec({ kind: "WebStatsTableQuery", properties: [], dateRange: week, ...node }, null);
  const answer = await webStatsTableKind.compute({ db, projectId, zone: "UTC", now: new Date("2024-06-01T00:00:00Z") }, spec);
  return answer.results as unknown[][];
}

/** value → [visitors, views] of the current period, in order. */
async function counts(projectId: number, node: Record<string, unknown>): Promise<[unknown, number, number][]> {
  return (await table(projectId, node)).map((row) => [row[0], (row[1] as number[])[0]!, (row[2] as number[])[0]!]);
}

/** value → bounce rate of the current period, in order. */
async function bounces(projectId: number, node: Record<string, unknown>): Promise<[unknown, number | null][]> {
  return (await table(projectId, { ...node, includeBounceRate: true })).map((row) => [row[0], (row[3] as (number | null)[])[0]!]);
}

describe(`WebStatsTableQuery's includeHost on ${testStoresName}`, () => {
  describe("PostHog's examples (test_web_stats_table.py)", () => {
    const december = { date_from: "all", date_to: "2023-12-15" };

    it("test_include_host_concatenates_host_and_path: Page, InitialPage and ExitPage", async () => {
      const [a, b, c] = [uuidv7(), uuidv7(), uuidv7()];
      const id = await project("Concatenates", [
        page(u(11), "2023-12-02T10:00:00", a, "example.com", "/landing"),
        page(u(11), "2023-12-02T10:01:00", a, "example.com", "/features"),
        page(u(12), "2023-12-03T10:00:00", b, "subdomain.example.com", "/landing"),
        page(u(12), "2023-12-03T10:01:00", b, "subdomain.example.com", "/pricing"),
        page(u(13), "2023-12-04T10:00:00", c, "example.com", "/pricing"),
      ]);
      expect(await counts(id, { breakdownBy: "Page", dateRange: december, includeHost: true })).toEqual([
        ["example.com/features", 1, 1],
        ["example.com/landing", 1, 1],
        ["example.com/pricing", 1, 1],
        ["subdomain.example.com/landing", 1, 1],
        ["subdomain.example.com/pricing", 1, 1],
      ]);
      expect(await counts(id, { breakdownBy: "InitialPage", dateRange: december, includeHost: true })).toEqual([
        ["example.com/landing", 1, 2],
        ["subdomain.example.com/landing", 1, 2],
        ["example.com/pricing", 1, 1],
      ]);
      expect(await counts(id, { breakdownBy: "ExitPage", dateRange: december, includeHost: true })).toEqual([
        ["example.com/features", 1, 2],
        ["subdomain.example.com/pricing", 1, 2],
        ["example.com/pricing", 1, 1],
      ]);
      // test_include_host_false_returns_path_only: false is the paths alone, as without it.
      for (const breakdownBy of ["Page", "InitialPage", "ExitPage"]) {
        const paths = await counts(id, { breakdownBy, dateRange: december, includeHost: false });
        expect(paths.some(([value]) => String(value).includes("example.com")), breakdownBy).toBe(false);
        expect(paths, breakdownBy).toEqual(await counts(id, { breakdownBy, dateRange: december }));
      }
      expect((await counts(id, { breakdownBy: "Page", dateRange: december, includeHost: false })).map((row) => row[0])).toEqual(["/landing", "/pricing", "/features"]);
    });

    it("test_include_host_page_breakdown_groups_same_paths_on_different_hosts_separately", async () => {
      const first = uuidv7();
      const id = await project("Same paths", [
        page(u(21), "2023-12-02T00:00:00", first, "example.com", "/landing"),
        page(u(21), "2023-12-02T00:00:00", first, "example.com", "/features"),
        page(u(22), "2023-12-03T00:00:00", uuidv7(), "subdomain.example.com", "/landing"),
        page(u(23), "2023-12-04T00:00:00", uuidv7(), "example.com", "/landing"),
      ]);
      expect(await counts(id, { breakdownBy: "Page", dateRange: december, includeHost: true })).toEqual([
        ["example.com/landing", 2, 2],
        ["example.com/features", 1, 1],
        ["subdomain.example.com/landing", 1, 1],
      ]);
      expect(await counts(id, { breakdownBy: "Page", dateRange: december })).toEqual([
        ["/landing", 3, 3],
        ["/features", 1, 1],
      ]);
    });

    it("test_include_host_exit_page_breakdown_counts_correctly", async () => {
      const [a, b, c] = [uuidv7(), uuidv7(), uuidv7()];
      const id = await project("Exit pages", [
        page(u(31), "2023-12-02T10:00:00", a, "example.com", "/landing"),
        page(u(31), "2023-12-02T10:01:00", a, "example.com", "/features"),
        page(u(32), "2023-12-03T10:00:00", b, "subdomain.example.com", "/pricing"),
        page(u(32), "2023-12-03T10:01:00", b, "subdomain.example.com", "/features"),
        page(u(33), "2023-12-04T10:00:00", c, "example.com", "/landing"),
        page(u(33), "2023-12-04T10:01:00", c, "example.com", "/features"),
      ]);
      expect(await counts(id, { breakdownBy: "ExitPage", dateRange: december, includeHost: true })).toEqual([
        ["example.com/features", 2, 4],
        ["subdomain.example.com/features", 1, 2],
      ]);
    });

    it("test_include_host_initial_page_breakdown_with_bounce_rate", async () => {
      const first = uuidv7();
      const id = await project("Entry bounce", [
        page(u(41), "2023-12-02T00:00:00", first, "example.com", "/landing"),
        // (PostHog's example gives both views the same time; a second apart, the entry is not left to a tie.)
        page(u(41), "2023-12-02T00:00:01", first, "example.com", "/features"),
        page(u(42), "2023-12-03T00:00:00", uuidv7(), "subdomain.example.com", "/pricing"),
      ]);
      // The first session has two page views, the second one only: it bounced.
      expect(await bounces(id, { breakdownBy: "InitialPage", dateRange: december, includeHost: true })).toEqual([
        ["example.com/landing", 0],
        ["subdomain.example.com/pricing", 1],
      ]);
    });
  });

  describe("two hosts sharing their paths", () => {
    it("Page: `$host` then `$pathname`; the host alone without a path, the path alone without a host", async () => {
      const expected: [unknown, number, number][] = [
        ["shop.example/", 2, 2],
        ["shop.example/pricing", 2, 2],
        ["/pricing", 1, 1],
        ["dev.example:8080/", 1, 1],
        ["docs.example/", 1, 1],
        ["docs.example/pricing", 1, 1],
        ["shop.example", 1, 1],
      ];
      expect(await counts(hostsProject, { breakdownBy: "Page", includeHost: true })).toEqual(expected);
      const rows = await table(hostsProject, { breakdownBy: "Page", includeHost: true });
      expect(rows[0]).toEqual(["shop.example/", [2, null], [2, null], 2 / 9, ""]);
      // Without it, the paths alone; the view without a path is no row.
      const paths: [unknown, number, number][] = [
        ["/", 3, 4],
        ["/pricing", 3, 4],
      ];
      expect(await counts(hostsProject, { breakdownBy: "Page" })).toEqual(paths);
      expect(await counts(hostsProject, { breakdownBy: "Page", includeHost: false })).toEqual(paths);
      // Filtered: the events' statement with a property filter.
      expect(await counts(hostsProject, { breakdownBy: "Page", includeHost: true, properties: byHost("docs.example") })).toEqual([
        ["docs.example/", 1, 1],
        ["docs.example/pricing", 1, 1],
      ]);
    });

    it("InitialPage and ExitPage from the sessions alone: the entry (exit) URL's host, without its port", async () => {
      expect(await counts(hostsProject, { breakdownBy: "InitialPage", includeHost: true })).toEqual([
        ["shop.example/", 2, 3],
        ["docs.example/pricing", 1, 2],
        ["dev.example/", 1, 1],
        ["docs.example/", 1, 1],
        ["shop.example", 1, 1],
      ]);
      expect(await counts(hostsProject, { breakdownBy: "ExitPage", includeHost: true })).toEqual([
        ["shop.example/pricing", 2, 4],
        ["dev.example/", 1, 1],
        ["docs.example/", 1, 1],
        ["shop.example", 1, 1],
        ["shop.example/", 1, 1],
      ]);
      // Without it: S5 enters on no path and is no row.
      expect(await counts(hostsProject, { breakdownBy: "InitialPage" })).toEqual([
        ["/", 3, 5],
        ["/pricing", 1, 2],
      ]);
      expect(await counts(hostsProject, { breakdownBy: "ExitPage" })).toEqual([
        ["/pricing", 2, 4],
        ["/", 2, 3],
      ]);
    });

    it("InitialPage and ExitPage through the filtered events: the session's entry (exit) host, whichever host the counted view had", async () => {
      // shop.example's views: S1's two, S3's second (S3 entered on docs), S5's, S6's.
      expect(await counts(hostsProject, { breakdownBy: "InitialPage", includeHost: true, properties: byHost("shop.example") })).toEqual([
        ["shop.example/", 2, 3],
        ["docs.example/pricing", 1, 1],
        ["shop.example", 1, 1],
      ]);
      // docs.example's views: S2's, and S3's first (S3 left on shop).
      expect(await counts(hostsProject, { breakdownBy: "ExitPage", includeHost: true, properties: byHost("docs.example") })).toEqual([
        ["docs.example/", 1, 1],
        ["shop.example/pricing", 1, 1],
      ]);
    });

    it("InitialPage compared with the period before, from the sessions alone", async () => {
      const rows = await table(hostsProject, { breakdownBy: "InitialPage", includeHost: true, dateRange: { date_from: "2024-02-04", date_to: "2024-02-07" }, compareFilter: { compare: true } });
      expect(rows).toEqual([
        ["dev.example/", [1, 0], [1, 0], 1 / 3, ""],
        ["shop.example", [1, 0], [1, 0], 1 / 3, ""],
        ["shop.example/", [1, 1], [1, 2], 1 / 3, ""],
        ["docs.example/", [0, 1], [0, 1], 0, ""],
        ["docs.example/pricing", [0, 1], [0, 2], 0, ""],
      ]);
    });

    it("bounce rates: InitialPage's by entry host and path; Page's looked up by entry host and path (PostHog's PATH_BOUNCE_QUERY)", async () => {
      const entries: [unknown, number | null][] = [
        ["shop.example/", 0.5],
        ["docs.example/pricing", 0],
        ["dev.example/", 1],
        ["docs.example/", 1],
        ["shop.example", 1],
      ];
      expect(await bounces(hostsProject, { breakdownBy: "InitialPage", includeHost: true })).toEqual(entries);
      // Through the events (a filter every view with a session passes).
      expect(await bounces(hostsProject, { breakdownBy: "InitialPage", includeHost: true, properties: [{ type: "event", key: "$host", operator: "is_set" }] })).toEqual(entries);
      // Counted by sessions starting in the range (the view without a session drops out). No session enters on
      // shop.example/pricing; dev.example:8080/ is `$host` with its port, the entry host is without: no rate either, as PostHog's.
      expect(await bounces(hostsProject, { breakdownBy: "Page", includeHost: true })).toEqual([
        ["shop.example/", 0.5],
        ["shop.example/pricing", null],
        ["dev.example:8080/", null],
        ["docs.example/", 1],
        ["docs.example/pricing", 0],
        ["shop.example", 1],
      ]);
      expect(await bounces(hostsProject, { breakdownBy: "Page", includeHost: true, properties: byHost("shop.example") })).toEqual([
        ["shop.example/", 0.5],
        ["shop.example/pricing", null],
        ["shop.example", 1],
      ]);
      // Ordered by it: every path's rate is read before the page is cut.
      expect(await bounces(hostsProject, { breakdownBy: "Page", includeHost: true, orderBy: ["BounceRate", "DESC"], limit: 3 })).toEqual([
        ["docs.example/", 1],
        ["shop.example", 1],
        ["shop.example/", 0.5],
      ]);
    });

    it("leaves the other breakdowns as they are", async () => {
      for (const breakdownBy of ["Browser", "InitialUTMSource", "InitialReferringDomain", "Country"]) {
        const without = await table(hostsProject, { breakdownBy });
        expect(without.length, breakdownBy).toBeGreaterThan(0);
        expect(await table(hostsProject, { breakdownBy, includeHost: true }), breakdownBy).toEqual(without);
        expect(await table(hostsProject, { breakdownBy, includeHost: true, properties: byHost("shop.example") }), breakdownBy).toEqual(
          await table(hostsProject, { breakdownBy, properties: byHost("shop.example") }),
        );
      }
      expect(await counts(hostsProject, { breakdownBy: "Browser", includeHost: true })).toEqual([
        ["Chrome", 2, 4],
        [null, 2, 3],
        ["Firefox", 1, 2],
      ]);
    });
  });

  describe("through POST /api/projects/:id/query/", () => {
    const queryRoute = restRoute("projects", "query");
    async function post(query: Record<string, unknown>) {
      const response = await queryRoute.POST!(
        new Request(`http://internal.test/api/projects/${hostsProject}/query/`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ query: { kind: "WebStatsTableQuery", properties: [], dateRange: week, breakdownBy: "Page", ...query }, refresh: true }),
        }),
        { params: Promise.resolve({ project_id: String(hostsProject) }) },
      );
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    }

    it("answers includeHost PostHog's way, and refuses one that is not a boolean", async () => {
      const answer = await post({ includeHost: true, limit: 2 });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ results: [["shop.example/", [2, null], [2, null], 2 / 9, ""], ["shop.example/pricing", [2, null], [2, null], 2 / 9, ""]], hasMore: true });
      const bad = await post({ includeHost: "yes" });
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toContain("includeHost must be a boolean");
      // What Burrow does not support stays a 400 naming it.
      const time = await post({ includeHost: true, includeAvgTimeOnPage: true });
      expect(time.status).toBe(400);
      expect(time.body.detail).toContain("includeAvgTimeOnPage");
    });
  });
});
