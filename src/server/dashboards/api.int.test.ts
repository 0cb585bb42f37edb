/**
 * The dashboards REST API through its real route handlers, with personal API keys of users
 * at every level: create, list, retrieve, update, soft delete and restore, 405 on DELETE,
 * and PostHog's restriction rules (owner, project admin, collaborator, view-only member).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/http/trpc/root";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { callRoute, createWorld, type Person, type World } from "@/test-support/dashboards-api";
import { restRoute } from "@/test-support/rest-routes";

const envItem = restRoute("environments", "dashboards/:id");
const envList = restRoute("environments", "dashboards");
const projectItem = restRoute("projects", "dashboards/:id");
const projectList = restRoute("projects", "dashboards");

const SITE = "https://burrow.example.test";
let db: Database;
let world: World;
let previousSiteUrl: string | undefined;

beforeAll(async () => {
  previousSiteUrl = process.env.SITE_URL;
  process.env.SITE_URL = SITE;
  db = await createTestDatabase();
  registerDb(db);
  world = await createWorld(db);
});

afterAll(async () => {
  if (previousSiteUrl === undefined) delete process.env.SITE_URL;
  else process.env.SITE_URL = previousSiteUrl;
  await closeDb();
});

const base = (project: number | string) => `/api/environments/${project}/dashboards/`;
const list = (who: Person, query = "", project: number = world.projectId) =>
  callRoute(envList, "GET", `${base(project)}${query}`, { project_id: String(project) }, who.key);
const create = (who: Person, body: unknown, project: number = world.projectId) =>
  callRoute(envList, "POST", base(project), { project_id: String(project) }, who.key, body);
const retrieve = (who: Person, id: number | string, project: number = world.projectId) =>
  callRoute(envItem, "GET", `${base(project)}${id}/`, { project_id: String(project), id: String(id) }, who.key);
const patch = (who: Person, id: number | string, body: unknown, project: number = world.projectId) =>
  callRoute(envItem, "PATCH", `${base(project)}${id}/`, { project_id: String(project), id: String(id) }, who.key, body);

async function createOk(who: Person, body: Record<string, unknown>, project: number = world.projectId) {
  const answer = await create(who, body, project);
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { id: number } & Record<string, any>;
}

/** An insight on a new tile of `dashboardId` (the insights API comes later; rows are made directly). */
async function addInsightTile(dashboardId: number, name: string, layouts: object = {}) {
  const insight = await db.prisma.insight.create({
    data: { shortId: `s${Math.random().toString(36).slice(2, 9)}`, projectId: world.projectId, name, createdById: world.owner.id, query: { kind: "TrendsQuery" } },
  });
  const tile = await db.prisma.dashboardTile.create({ data: { dashboardId, insightId: insight.id, layouts } });
  return { insight, tile };
}

const userBasic = (who: Person) => ({
  id: who.id,
  uuid: who.uuid,
  distinct_id: expect.any(String),
  first_name: "",
  last_name: "",
  email: who.email,
  is_email_verified: false,
  hedgehog_config: null,
});

describe(`dashboards REST API (${testDbKind})`, () => {
  describe("create", () => {
    it("answers 201 with the full dashboard, every field filled", async () => {
      const answer = await create(world.member, { name: "Revenue", description: "Money in", pinned: true, tags: ["Finance", " finance ", "kpi"] });
      expect(answer.status).toBe(201);
      expect(answer.headers.get("content-type")).toContain("application/json");
      expect(answer.body).toEqual({
        id: expect.any(Number),
        name: "Revenue",
        description: "Money in",
        pinned: true,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        created_by: userBasic(world.member),
        last_accessed_at: null,
        is_shared: false,
        deleted: false,
        creation_mode: "default",
        tags: ["finance", "kpi"],
        restriction_level: 21,
        effective_restriction_level: 21,
        effective_privilege_level: 37,
        user_access_level: "editor",
        access_control_version: "v2",
        last_refresh: null,
        team_id: world.projectId,
        filters: {},
        variables: {},
        breakdown_colors: null,
        data_color_theme_id: null,
        persisted_filters: null,
        persisted_variables: null,
        tiles: [],
        use_template: "",
        use_dashboard: null,
        delete_insights: false,
      });
      const stored = await db.prisma.dashboard.findUniqueOrThrow({ where: { id: answer.body.id } });
      expect(stored).toMatchObject({ projectId: world.projectId, createdById: world.member.id, name: "Revenue" });
    });

    it("echoes use_template, use_dashboard and delete_insights in single-dashboard responses (the reference's fields), not in lists", async () => {
      const UNSET = { use_template: "", use_dashboard: null, delete_insights: false };
      const fromTemplate = await create(world.member, { use_template: "DEFAULT_APP" });
      expect(fromTemplate.body).toMatchObject({ ...UNSET, use_template: "DEFAULT_APP" });
      const copy = await create(world.member, { name: "Copy", use_dashboard: fromTemplate.body.id, delete_insights: true });
      expect(copy.body).toMatchObject({ use_template: "", use_dashboard: fromTemplate.body.id, delete_insights: true });
      expect((await retrieve(world.member, copy.body.id)).body).toMatchObject(UNSET);
      expect((await patch(world.member, copy.body.id, { name: "Renamed" })).body).toMatchObject(UNSET);
      expect((await patch(world.member, copy.body.id, { deleted: true, delete_insights: true })).body).toMatchObject({ ...UNSET, delete_insights: true });
      const api = createCaller({ db, headers: new Headers(), user: { id: world.member.id, uuid: world.member.uuid, email: world.member.email, firstName: "", currentProjectId: world.projectId } });
      const viaTrpc = await api.dashboards.create({ projectId: world.projectId, name: "tRPC", use_template: "WEB_TRAFFIC" });
      expect(viaTrpc).toMatchObject({ ...UNSET, use_template: "WEB_TRAFFIC" });
      expect(await api.dashboards.get({ projectId: world.projectId, dashboardId: viaTrpc.id })).toMatchObject(UNSET);
      expect(await api.dashboards.update({ projectId: world.projectId, dashboardId: viaTrpc.id, name: "tRPC 2" })).toMatchObject(UNSET);
      const listed = await list(world.member, "?search=tRPC");
      for (const field of Object.keys(UNSET)) expect(listed.body.results[0]).not.toHaveProperty(field);
    });

    it("creates with no body at all: name null, PostHog's defaults", async () => {
      const answer = await create(world.member, "");
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ name: null, description: "", pinned: false, restriction_level: 21, tags: [], filters: {} });
    });

    it("keeps filters and a restriction level given on create, and logs the creation", async () => {
      const body = await createOk(world.member, { name: "Restricted", restriction_level: 37, filters: { date_from: "-7d" } });
      expect(body).toMatchObject({ restriction_level: 37, effective_restriction_level: 37, effective_privilege_level: 37, access_control_version: "v1", filters: { date_from: "-7d" }, persisted_filters: { date_from: "-7d" } });
      const log = await db.prisma.activityLog.findMany({ where: { scope: "Dashboard", itemId: String(body.id) } });
      expect(log).toEqual([expect.objectContaining({ activity: "created", userId: world.member.id, projectId: world.projectId })]);
    });

    it.each([
      [{ name: "x".repeat(401) }, "name", "Ensure this field has no more than 400 characters."],
      [{ name: 5 }, "name", "Not a valid string."],
      [{ description: null }, "description", "Not a valid string."],
      [{ pinned: "maybe" }, "pinned", "Must be a valid boolean."],
      [{ restriction_level: 5 }, "restriction_level", '"5" is not a valid choice.'],
      [{ restriction_level: "high" }, "restriction_level", '"high" is not a valid choice.'],
      [{ tags: "finance" }, "tags", 'Expected a list of items but got type "string".'],
      [{ tags: [1] }, "tags__0", "Not a valid string."],
      [{ filters: ["a"] }, "filters", "Filters must be a dictionary"],
      [{ variables: "x" }, "variables", "Variables must be a dictionary"],
      [{ use_template: "NO_SUCH_TEMPLATE" }, "use_template", "Invalid template provided: NO_SUCH_TEMPLATE"],
      [{ use_dashboard: 999999 }, "use_dashboard", "Invalid value provided"],
      [{ use_dashboard: "one" }, "use_dashboard", "A valid integer is required."],
      [{ use_dashboard: 1, use_template: "DEFAULT_APP" }, null, "`use_dashboard` and `use_template` cannot be used together"],
    ])("refuses %j with a 400 naming %s", async (body, attr, detail) => {
      const before = await db.prisma.dashboard.count();
      const answer = await create(world.member, body);
      expect(answer).toMatchObject({ status: 400, body: { type: "validation_error", code: "invalid_input", attr, detail } });
      expect(await db.prisma.dashboard.count()).toBe(before);
    });

    it("refuses a body that is not JSON", async () => {
      const answer = await create(world.member, "{name:");
      expect(answer).toMatchObject({ status: 400, body: { type: "validation_error", detail: "Malformed JSON request body." } });
    });

    it("accepts PostHog's other spellings of booleans and levels", async () => {
      const body = await createOk(world.member, { name: "Strings", pinned: "true", restriction_level: "37" });
      expect(body).toMatchObject({ pinned: true, restriction_level: 37 });
    });

    it("ignores read-only and unknown fields", async () => {
      const body = await createOk(world.member, { name: "Sneaky", creation_mode: "template", is_shared: true, created_by: 1, team_id: 999 });
      expect(body).toMatchObject({ creation_mode: "default", is_shared: false, created_by: { id: world.member.id }, team_id: world.projectId });
    });

    it("duplicates a dashboard with use_dashboard: the same insights, or copies with duplicate_tiles", async () => {
      const source = await createOk(world.owner, { name: "Source", filters: { date_from: "-30d" } });
      const { insight } = await addInsightTile(source.id, "Signups", { sm: { x: 0, y: 0, w: 6, h: 5 } });
      await db.prisma.dashboardTile.create({ data: { dashboardId: source.id, textId: (await db.prisma.dashboardText.create({ data: { projectId: world.projectId, body: "Hello" } })).id, layouts: { sm: { x: 0, y: 5 } } } });

      const shallow = await createOk(world.member, { name: "Copy", use_dashboard: source.id });
      expect(shallow).toMatchObject({ creation_mode: "duplicate", filters: { date_from: "-30d" } });
      expect(shallow.tiles.map((t: any) => [t.insight?.id ?? null, t.text?.body ?? null, t.order])).toEqual([
        [insight.id, null, 0],
        [null, "Hello", 1],
      ]);

      const deep = await createOk(world.member, { name: "Deep", use_dashboard: source.id, duplicate_tiles: true });
      expect(deep.tiles[0].insight.id).not.toBe(insight.id);
      expect(deep.tiles[0].insight).toMatchObject({ name: "Signups (Copy)", query: { kind: "TrendsQuery" }, created_by: { id: world.member.id } });
      expect(deep.tiles[1].text).toMatchObject({ body: "Hello", created_by: { id: world.member.id }, team: world.projectId });
    });

    it("does not duplicate a dashboard of another project, or a deleted one", async () => {
      const elsewhere = await createOk(world.owner, { name: "Elsewhere" }, world.otherProjectId);
      expect((await create(world.member, { use_dashboard: elsewhere.id })).body).toMatchObject({ attr: "use_dashboard", detail: "Invalid value provided" });
      const gone = await createOk(world.owner, { name: "Gone" });
      expect((await patch(world.owner, gone.id, { deleted: true })).status).toBe(200);
      expect((await create(world.member, { use_dashboard: gone.id })).body).toMatchObject({ attr: "use_dashboard" });
    });

    it("serves the same resource under /api/projects/", async () => {
      const answer = await callRoute(projectList, "POST", `/api/projects/${world.projectId}/dashboards/`, { project_id: String(world.projectId) }, world.member.key, { name: "Via projects" });
      expect(answer.status).toBe(201);
      const read = await callRoute(projectItem, "GET", `/api/projects/${world.projectId}/dashboards/${answer.body.id}/`, { project_id: String(world.projectId), id: String(answer.body.id) }, world.member.key);
      expect(read.body).toMatchObject({ id: answer.body.id, name: "Via projects" });
    });
  });

  describe("list", () => {
    let projectId: number;
    beforeAll(async () => {
      // A project of its own, so the other tests' dashboards do not shift the pages.
      projectId = (await db.prisma.project.create({ data: { organizationId: world.organizationId, name: "Listing", apiToken: "phc_listing" } })).id;
      for (const [name, extra] of [
        ["charlie", {}],
        ["alpha", { tags: ["growth"] }],
        ["delta", { pinned: true }],
        ["bravo", { description: "Weekly revenue review", tags: ["finance", "growth"] }],
        ["echo", { pinned: true, tags: ["finance"] }],
      ] as const) {
        await createOk(world.member, { name, ...extra }, projectId);
      }
      await createOk(world.member, { description: "no name" }, projectId);
      const deleted = await createOk(world.member, { name: "aardvark (deleted)" }, projectId);
      await patch(world.member, deleted.id, { deleted: true }, projectId);
    });

    it("lists pinned first, then by name (unnamed last), without the single-dashboard fields", async () => {
      const answer = await list(world.member, "", projectId);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ count: 6, next: null, previous: null });
      expect(answer.body.results.map((d: any) => d.name)).toEqual(["delta", "echo", "alpha", "bravo", "charlie", null]);
      for (const item of answer.body.results) {
        expect(Object.keys(item).sort()).toEqual(
          [
            "id", "name", "description", "pinned", "created_at", "created_by", "last_accessed_at", "is_shared", "deleted", "creation_mode", "tags",
            "restriction_level", "effective_restriction_level", "effective_privilege_level", "user_access_level", "access_control_version", "last_refresh", "team_id",
          ].sort(),
        );
      }
      expect(answer.body.results[1]).toMatchObject({ name: "echo", tags: ["finance"], created_by: userBasic(world.member), effective_privilege_level: 37 });
    });

    it("pages with limit and offset, next and previous as absolute URLs", async () => {
      const first = await list(world.member, "?limit=2", projectId);
      expect(first.body.results.map((d: any) => d.name)).toEqual(["delta", "echo"]);
      expect(first.body.next).toBe(`${SITE}/api/environments/${projectId}/dashboards/?limit=2&offset=2`);
      expect(first.body.previous).toBeNull();
      const second = await list(world.member, "?limit=2&offset=2", projectId);
      expect(second.body.results.map((d: any) => d.name)).toEqual(["alpha", "bravo"]);
      expect(second.body.previous).toBe(`${SITE}/api/environments/${projectId}/dashboards/?limit=2`);
      const last = await list(world.member, "?limit=2&offset=4", projectId);
      expect(last.body.results.map((d: any) => d.name)).toEqual(["charlie", null]);
      expect(last.body.next).toBeNull();
    });

    it("filters by search text (name or description, any case) and by tags (any of)", async () => {
      const names = async (query: string) => (await list(world.member, query, projectId)).body.results.map((d: any) => d.name);
      expect(await names("?search=ALP")).toEqual(["alpha"]);
      expect(await names("?search=revenue")).toEqual(["bravo"]);
      expect(await names("?tags=finance")).toEqual(["echo", "bravo"]);
      expect(await names("?tags=finance&tags=growth")).toEqual(["echo", "alpha", "bravo"]);
      expect(await names("?tags=nothing")).toEqual([]);
      // LIKE's wildcards and escape match themselves.
      expect(await names("?search=%25")).toEqual([]);
      expect(await names("?search=_")).toEqual([]);
      expect(await names("?search=%5C")).toEqual([]);
    });

    it("finds names holding LIKE's wildcards literally", async () => {
      const project = (await db.prisma.project.create({ data: { organizationId: world.organizationId, name: "Wildcards", apiToken: "phc_wildcards" } })).id;
      for (const name of ["50% off", "500 off", "a_b", "axb", "back\\slash"]) await createOk(world.member, { name }, project);
      const names = async (search: string) => (await list(world.member, `?search=${encodeURIComponent(search)}`, project)).body.results.map((d: any) => d.name);
      expect(await names("0%")).toEqual(["50% off"]);
      expect(await names("a_")).toEqual(["a_b"]);
      expect(await names("k\\s")).toEqual(["back\\slash"]);
    });

    it("lists only the deleted ones with deleted=true", async () => {
      const answer = await list(world.member, "?deleted=true", projectId);
      expect(answer.body.count).toBe(1);
      expect(answer.body.results[0]).toMatchObject({ name: "aardvark (deleted)", deleted: true });
    });

    it("answers 400 for a bad limit or offset", async () => {
      expect((await list(world.member, "?limit=1001", projectId)).body).toMatchObject({ attr: "limit", detail: "limit must be at most 1000." });
      expect((await list(world.member, "?offset=-1", projectId)).body).toMatchObject({ attr: "offset" });
      expect((await list(world.member, "?deleted=perhaps", projectId)).body).toMatchObject({ attr: "deleted", detail: "Must be a valid boolean." });
    });

    it("never lists another project's dashboards", async () => {
      const answer = await list(world.member, "", world.otherProjectId);
      expect(answer.body.results.every((d: any) => d.team_id === world.otherProjectId)).toBe(true);
      expect(answer.body.results.map((d: any) => d.name)).not.toContain("alpha");
    });
  });

  describe("retrieve", () => {
    it("answers the full dashboard with its tiles in layout order, and records the access", async () => {
      const dashboard = await createOk(world.member, { name: "With tiles" });
      const lower = await addInsightTile(dashboard.id, "Lower", { sm: { x: 0, y: 4, w: 6, h: 5 } });
      const upperRight = await addInsightTile(dashboard.id, "Upper right", { sm: { x: 6, y: 0, w: 6, h: 5 } });
      const upperLeft = await addInsightTile(dashboard.id, "Upper left", { sm: { x: 0, y: 0, w: 6, h: 5 } });
      const unplaced = await addInsightTile(dashboard.id, "Unplaced");
      const removed = await addInsightTile(dashboard.id, "Removed tile");
      await db.prisma.dashboardTile.update({ where: { id: removed.tile.id }, data: { deleted: true } });

      const answer = await retrieve(world.viewer, dashboard.id);
      expect(answer.status).toBe(200);
      expect(answer.body.tiles.map((t: any) => [t.id, t.order])).toEqual([
        [upperLeft.tile.id, 0],
        [upperRight.tile.id, 1],
        [lower.tile.id, 2],
        [unplaced.tile.id, 3],
      ]);
      expect(answer.body.tiles[0]).toEqual({
        id: upperLeft.tile.id,
        insight: expect.objectContaining({ id: upperLeft.insight.id, short_id: upperLeft.insight.shortId, name: "Upper left", created_by: userBasic(world.owner), deleted: false }),
        text: null,
        layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } },
        color: null,
        filters_overrides: null,
        order: 0,
        last_refresh: null,
        is_cached: false,
      });
      expect(answer.body.last_accessed_at).not.toBeNull();
      const stored = await db.prisma.dashboard.findUniqueOrThrow({ where: { id: dashboard.id } });
      expect(stored.lastAccessedAt?.toISOString()).toBe(answer.body.last_accessed_at);
    });

    it("answers 404 for an unknown id, a non-numeric id, or another project's dashboard", async () => {
      const notFound = { status: 404, body: { type: "invalid_request", code: "not_found", detail: "Not found.", attr: null } };
      expect(await retrieve(world.member, 999999)).toMatchObject(notFound);
      expect(await retrieve(world.member, "abc")).toMatchObject(notFound);
      const elsewhere = await createOk(world.owner, { name: "Elsewhere" }, world.otherProjectId);
      expect(await retrieve(world.member, elsewhere.id)).toMatchObject(notFound);
    });

    it("answers 403 to a user of another organization (not a member of the project)", async () => {
      const dashboard = await createOk(world.member, { name: "Private to Acme" });
      const answer = await retrieve(world.outsider, dashboard.id);
      expect(answer).toMatchObject({ status: 403, body: { type: "authentication_error", code: "permission_denied" } });
      expect(answer.text).not.toContain("Private to Acme");
    });
  });

  describe("update, soft delete and restore", () => {
    it("changes the fields given, keeps the rest, and logs the changes", async () => {
      const dashboard = await createOk(world.member, { name: "Before", description: "Old", tags: ["a", "b"] });
      const answer = await patch(world.viewer, dashboard.id, { name: "After", pinned: true, tags: ["B", "c"], filters: { date_from: "-1d" } });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ name: "After", description: "Old", pinned: true, tags: ["b", "c"], filters: { date_from: "-1d" }, created_by: { id: world.member.id } });
      expect((await retrieve(world.member, dashboard.id)).body).toMatchObject({ name: "After", tags: ["b", "c"] });
      const [entry] = await db.prisma.activityLog.findMany({ where: { itemId: String(dashboard.id), activity: "updated" } });
      expect(entry).toMatchObject({ userId: world.viewer.id });
      expect((entry!.detail as any).changes).toEqual(
        expect.arrayContaining([
          { field: "name", before: "Before", after: "After" },
          { field: "tags", before: ["a", "b"], after: ["b", "c"] },
        ]),
      );
    });

    it("PUT behaves as PATCH", async () => {
      const dashboard = await createOk(world.member, { name: "Put me" });
      const answer = await callRoute(envItem, "PUT", `${base(world.projectId)}${dashboard.id}/`, { project_id: String(world.projectId), id: String(dashboard.id) }, world.member.key, { description: "via PUT" });
      expect(answer.body).toMatchObject({ name: "Put me", description: "via PUT" });
    });

    it("refuses bad fields with a 400 and changes nothing", async () => {
      const dashboard = await createOk(world.member, { name: "Stable" });
      expect(await patch(world.member, dashboard.id, { name: "Changed", restriction_level: 99 })).toMatchObject({ status: 400, body: { attr: "restriction_level" } });
      expect((await retrieve(world.member, dashboard.id)).body.name).toBe("Stable");
    });

    it("soft-deletes with deleted: true: not listed, 404 after, the row and its tiles kept", async () => {
      const dashboard = await createOk(world.member, { name: "To delete" });
      const { tile } = await addInsightTile(dashboard.id, "Tile of a deleted dashboard");
      const answer = await patch(world.member, dashboard.id, { deleted: true });
      expect(answer).toMatchObject({ status: 200, body: { id: dashboard.id, deleted: true, tiles: [] } });
      expect((await list(world.member, "?limit=1000")).body.results.map((d: any) => d.id)).not.toContain(dashboard.id);
      expect((await retrieve(world.member, dashboard.id)).status).toBe(404);
      expect((await patch(world.member, dashboard.id, { name: "Edited while deleted" })).status).toBe(404);
      expect((await patch(world.member, dashboard.id, { deleted: true })).status).toBe(404);
      expect(await db.prisma.dashboard.findUnique({ where: { id: dashboard.id } })).toMatchObject({ deleted: true, name: "To delete" });
      expect(await db.prisma.dashboardTile.findUnique({ where: { id: tile.id } })).toMatchObject({ deleted: true });
      expect((await list(world.member, "?deleted=true&limit=1000")).body.results.map((d: any) => d.id)).toContain(dashboard.id);
    });

    it("restores with deleted: false, tiles and their insights back", async () => {
      const dashboard = await createOk(world.member, { name: "To restore" });
      const { insight } = await addInsightTile(dashboard.id, "Only here");
      await patch(world.member, dashboard.id, { deleted: true, delete_insights: true });
      expect(await db.prisma.insight.findUnique({ where: { id: insight.id } })).toMatchObject({ deleted: true });

      const answer = await patch(world.member, dashboard.id, { deleted: false });
      expect(answer).toMatchObject({ status: 200, body: { deleted: false, name: "To restore" } });
      expect(answer.body.tiles.map((t: any) => t.insight.id)).toEqual([insight.id]);
      expect(answer.body.tiles[0].insight.deleted).toBe(false);
      expect((await retrieve(world.member, dashboard.id)).status).toBe(200);
      const log = await db.prisma.activityLog.findMany({ where: { itemId: String(dashboard.id) }, orderBy: { createdAt: "asc" } });
      expect(log.map((entry) => entry.activity)).toEqual(["created", "deleted", "restored"]);
    });

    it("with delete_insights, deletes only the insights no other live dashboard shows", async () => {
      const dashboard = await createOk(world.member, { name: "Owner of insights" });
      const other = await createOk(world.member, { name: "Shares one" });
      const { insight: alone } = await addInsightTile(dashboard.id, "Alone");
      const { insight: shared } = await addInsightTile(dashboard.id, "Shared");
      await db.prisma.dashboardTile.create({ data: { dashboardId: other.id, insightId: shared.id } });
      await patch(world.member, dashboard.id, { deleted: true, delete_insights: true });
      expect((await db.prisma.insight.findUniqueOrThrow({ where: { id: alone.id } })).deleted).toBe(true);
      expect((await db.prisma.insight.findUniqueOrThrow({ where: { id: shared.id } })).deleted).toBe(false);
    });

    it("without delete_insights, keeps the insights", async () => {
      const dashboard = await createOk(world.member, { name: "Keeps insights" });
      const { insight } = await addInsightTile(dashboard.id, "Kept");
      await patch(world.member, dashboard.id, { deleted: true });
      expect((await db.prisma.insight.findUniqueOrThrow({ where: { id: insight.id } })).deleted).toBe(false);
    });

    it("DELETE answers 405 with an empty body and keeps the dashboard", async () => {
      const dashboard = await createOk(world.member, { name: "Undeletable" });
      const answer = await callRoute(envItem, "DELETE", `${base(world.projectId)}${dashboard.id}/`, { project_id: String(world.projectId), id: String(dashboard.id) }, world.member.key);
      expect(answer.status).toBe(405);
      expect(answer.text).toBe("");
      expect((await retrieve(world.member, dashboard.id)).body).toMatchObject({ name: "Undeletable", deleted: false });
    });

    it("answers 405 with PostHog's body for methods the resource does not have", async () => {
      const answer = await callRoute(envList, "DELETE", base(world.projectId), { project_id: String(world.projectId) }, world.member.key);
      expect(answer).toMatchObject({ status: 405, body: { type: "invalid_request", code: "method_not_allowed", detail: 'Method "DELETE" not allowed.' } });
      expect((await callRoute(envItem, "POST", `${base(world.projectId)}1/`, { project_id: String(world.projectId), id: "1" }, world.member.key, {})).status).toBe(405);
    });
  });

  describe("restriction", () => {
    const NO_EDIT = { status: 403, body: { type: "authentication_error", code: "permission_denied", detail: "You don't have edit permissions for this dashboard.", attr: null } };
    const NO_RESTRICT = {
      status: 403,
      body: {
        code: "permission_denied",
        detail: "Only the dashboard owner and project admins have the restriction rights required to change the dashboard's restriction level.",
      },
    };

    it("lets everyone in the project edit at level 21", async () => {
      const dashboard = await createOk(world.owner, { name: "Open" });
      expect((await retrieve(world.viewer, dashboard.id)).body).toMatchObject({ effective_restriction_level: 21, effective_privilege_level: 37, user_access_level: "editor" });
      expect((await patch(world.viewer, dashboard.id, { description: "edited by a member" })).status).toBe(200);
    });

    it("at level 37, a member who is not a collaborator may view but not edit, delete or restore", async () => {
      const dashboard = await createOk(world.owner, { name: "Locked", restriction_level: 37 });
      const seen = await retrieve(world.viewer, dashboard.id);
      expect(seen.body).toMatchObject({ restriction_level: 37, effective_restriction_level: 37, effective_privilege_level: 21, user_access_level: "viewer" });
      const listed = (await list(world.viewer, "?limit=1000")).body.results.find((d: any) => d.id === dashboard.id);
      expect(listed).toMatchObject({ effective_privilege_level: 21, user_access_level: "viewer" });

      expect(await patch(world.viewer, dashboard.id, { name: "Hijacked" })).toMatchObject(NO_EDIT);
      expect(await patch(world.viewer, dashboard.id, { deleted: true })).toMatchObject(NO_EDIT);
      expect(await patch(world.viewer, dashboard.id, { restriction_level: 21 })).toMatchObject(NO_EDIT);
      expect((await retrieve(world.owner, dashboard.id)).body).toMatchObject({ name: "Locked", deleted: false, restriction_level: 37 });

      expect((await patch(world.owner, dashboard.id, { deleted: true })).status).toBe(200);
      expect(await patch(world.viewer, dashboard.id, { deleted: false })).toMatchObject(NO_EDIT);
    });

    it("at level 37, the owner and project admins edit and may change the restriction", async () => {
      const dashboard = await createOk(world.member, { name: "Member's", restriction_level: 37 });
      expect((await retrieve(world.member, dashboard.id)).body).toMatchObject({ effective_privilege_level: 37 });
      expect((await retrieve(world.admin, dashboard.id)).body).toMatchObject({ effective_privilege_level: 37 });
      expect((await retrieve(world.owner, dashboard.id)).body).toMatchObject({ effective_privilege_level: 37 });
      expect((await patch(world.admin, dashboard.id, { name: "Edited by admin" })).status).toBe(200);
      expect((await patch(world.admin, dashboard.id, { restriction_level: 21 })).body).toMatchObject({ restriction_level: 21 });
      expect((await patch(world.member, dashboard.id, { restriction_level: 37 })).body).toMatchObject({ restriction_level: 37 });
    });

    it("a collaborator edits a restricted dashboard but may not change its restriction level", async () => {
      const dashboard = await createOk(world.owner, { name: "Team only", restriction_level: 37 });
      await db.prisma.dashboardCollaborator.create({ data: { dashboardId: dashboard.id, userId: world.member.id, level: 37 } });
      expect((await retrieve(world.member, dashboard.id)).body).toMatchObject({ effective_privilege_level: 37, user_access_level: "editor" });
      expect((await patch(world.member, dashboard.id, { name: "Collaborated" })).status).toBe(200);
      expect(await patch(world.member, dashboard.id, { restriction_level: 21 })).toMatchObject(NO_RESTRICT);
      expect((await retrieve(world.owner, dashboard.id)).body).toMatchObject({ name: "Collaborated", restriction_level: 37 });
    });

    it("only the owner and admins may change the level even of an open dashboard", async () => {
      const dashboard = await createOk(world.owner, { name: "Open but owned" });
      expect(await patch(world.viewer, dashboard.id, { restriction_level: 37 })).toMatchObject(NO_RESTRICT);
      expect(await patch(world.viewer, dashboard.id, { restriction_level: 21 })).toMatchObject(NO_RESTRICT);
      expect((await patch(world.admin, dashboard.id, { restriction_level: 37 })).status).toBe(200);
    });

    it("a user of another organization cannot read, edit or create", async () => {
      const dashboard = await createOk(world.owner, { name: "Acme only" });
      expect((await patch(world.outsider, dashboard.id, { name: "x" })).status).toBe(403);
      expect((await create(world.outsider, { name: "x" })).status).toBe(403);
      expect((await list(world.outsider)).status).toBe(403);
      expect((await retrieve(world.owner, dashboard.id)).body.name).toBe("Acme only");
    });
  });
});
