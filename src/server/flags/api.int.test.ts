/**
 * The feature-flags REST resource end to end: the real route handlers with a personal API
 * key on a real database — every operation, status code and validation rule, the activity
 * log, and the definitions cache /decide reads being refreshed by every write.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { loadFlagDefinitions } from "./definitions";
import { restRoute } from "@/test-support/rest-routes";

const itemRoute = restRoute("projects", "feature_flags/:id");
const experimentsRoute = restRoute("projects", "experiments");
const surveysRoute = restRoute("projects", "surveys");
const featuresRoute = restRoute("projects", "early_access_features");
const listRoute = restRoute("projects", "feature_flags");

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

let db: Database;
let projectId: number;
let otherProjectId: number;
let key: string;
let readOnlyKey: string;
let userId: number;

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function call(handler: Handler, method: Method, path: string, params: Record<string, string>, body?: unknown, token = key): Promise<Answer> {
  const request = new Request(`http://internal.test${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const response = await handler(request, { params: Promise.resolve(params) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, text };
}

const collection = (method: Method, query = "", body?: unknown, project = projectId, token?: string) =>
  call(listRoute[method] as Handler, method, `/api/projects/${project}/feature_flags/${query}`, { project_id: String(project) }, body, token);
const item = (method: Method, id: number | string, body?: unknown, project = projectId) =>
  call(itemRoute[method] as Handler, method, `/api/projects/${project}/feature_flags/${id}/`, { project_id: String(project), id: String(id) }, body);

const create = async (body: Record<string, unknown>, project = projectId) => {
  const answer = await collection("POST", "", body, project);
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
};
const validation = (detail: string, attr: string | null, code = "invalid_input") => ({ status: 400, body: { type: "validation_error", code, detail, attr } });
const strip = ({ status, body }: Answer) => ({ status, body });

const ROLLOUT_50 = { groups: [{ properties: [], rollout_percentage: 50 }] };

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "flags@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  key = owner.personal_api_key;
  userId = owner.user.id;
  readOnlyKey = (await createPersonalApiKey(db.prisma, owner.user.id, { scopes: ["feature_flag:read"] })).key;
  otherProjectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Other", apiToken: "phc_other_flags" } })).id;
});

afterAll(async () => {
  await closeDb();
});

describe(`feature flags REST (${testDbKind})`, () => {
  describe("create", () => {
    it("answers 201 with PostHog's fields, the creator and version 1, and logs the creation", async () => {
      const flag = await create({
        key: "new-checkout",
        name: "New checkout",
        filters: {
          groups: [{ properties: [{ key: "email", type: "person", operator: "icontains", value: "@example.com" }], rollout_percentage: 30 }],
          payloads: { true: { color: "green" } },
        },
        tags: ["Checkout", "q3"],
      });
      expect(flag).toEqual({
        id: expect.any(Number),
        name: "New checkout",
        key: "new-checkout",
        filters: {
          groups: [{ properties: [{ key: "email", type: "person", operator: "icontains", value: "@example.com" }], rollout_percentage: 30, variant: null }],
          multivariate: null,
          aggregation_group_type_index: null,
          payloads: { true: '{"color":"green"}' },
        },
        deleted: false,
        active: true,
        created_by: expect.objectContaining({ id: userId, email: "flags@example.com", uuid: expect.any(String), distinct_id: expect.any(String) }),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        version: 1,
        last_modified_by: expect.objectContaining({ id: userId }),
        ensure_experience_continuity: false,
        is_simple_flag: false,
        rollout_percentage: null,
        tags: ["checkout", "q3"],
        experiment_set: [],
        surveys: [],
        features: [],
        can_edit: true,
      });
      const activity = await db.prisma.activityLog.findMany({ where: { scope: "FeatureFlag", itemId: String(flag.id) } });
      expect(activity.map((entry) => [entry.activity, entry.userId, entry.projectId])).toEqual([["created", userId, projectId]]);
    });

    it("without filters makes PostHog's default: one condition set for everyone, a simple flag", async () => {
      const flag = await create({ key: "everyone" });
      expect(flag.filters).toEqual({ groups: [{ properties: [], rollout_percentage: null, variant: null }], multivariate: null, aggregation_group_type_index: null, payloads: {} });
      expect([flag.is_simple_flag, flag.rollout_percentage]).toEqual([true, null]);
      const rolled = await create({ key: "half", filters: ROLLOUT_50 });
      expect([rolled.is_simple_flag, rolled.rollout_percentage]).toEqual([true, 50]);
    });

    it("refuses a key already used by a live flag of the project, with PostHog's message", async () => {
      await create({ key: "taken" });
      expect(strip(await collection("POST", "", { key: "taken" }))).toEqual(validation("There is already a feature flag with this key.", "key", "unique"));
      // Other projects have their own keys.
      expect((await collection("POST", "", { key: "taken" }, otherProjectId)).status).toBe(201);
    });

    it.each([
      [{ name: "no key" }, "This field is required.", "key"],
      [{ key: "has space" }, "Only letters, numbers, hyphens (-) & underscores (_) are allowed.", "key"],
      [{ key: "k", filters: { groups: [] } }, "Feature flags must have at least one condition set (group).", "filters__groups"],
      [{ key: "k", filters: { groups: [{ properties: [{ key: "p", type: "person", operator: "like", value: "x" }] }] } }, "Unknown operator 'like'.", "filters__groups__0__properties__0__operator"],
      [
        { key: "k", filters: { groups: [{}], multivariate: { variants: [{ key: "a", rollout_percentage: 50 }, { key: "b", rollout_percentage: 30 }] } } },
        "Invalid variant definitions: Variant rollout percentages must sum to 100.",
        "filters__multivariate__variants",
      ],
      [{ key: "k", filters: { groups: [{ variant: "x" }] } }, "Filters are not valid (variant override does not exist)", "filters__groups__0__variant"],
      [{ key: "k", filters: { groups: [{}], payloads: { blue: "1" } } }, "Payload keys must be 'true' for boolean flags", "filters__payloads__blue"],
      [{ key: "k", filters: { groups: [{ rollout_percentage: 150 }] } }, "rollout_percentage must be a number between 0 and 100.", "filters__groups__0__rollout_percentage"],
      [{ key: "k", active: "yes" }, "Must be a valid boolean.", "active"],
      // Patterns RE2 cannot run in linear time (flags evaluate for anonymous callers of /flags).
      [
        { key: "k", filters: { groups: [{ properties: [{ key: "p", type: "person", operator: "regex", value: "(a)\\1" }] }] } },
        "Invalid regular expression: (a)\\1 (invalid escape sequence: `\\1`)",
        "filters__groups__0__properties__0__value",
      ],
      [
        { key: "k", filters: { groups: [{}, { properties: [{ key: "p", type: "person", operator: "not_regex", value: "(?=x)" }] }] } },
        "Invalid regular expression: (?=x) (invalid or unsupported Perl syntax: `(?=`)",
        "filters__groups__1__properties__0__value",
      ],
    ])("answers 400 for %j", async (body, detail, attr) => {
      expect(strip(await collection("POST", "", body))).toEqual(validation(detail, attr));
      expect(await db.prisma.featureFlag.count({ where: { key: "k" } })).toBe(0);
    });

    it("answers 400 for a body that is not JSON, 403 for a read-only key", async () => {
      expect(strip(await collection("POST", "", "{nope"))).toEqual(validation("Malformed JSON request body.", null));
      expect((await collection("POST", "", { key: "read-only" }, projectId, readOnlyKey)).body).toMatchObject({ code: "permission_denied", detail: "API key missing required scope 'feature_flag:write'" });
    });
  });

  describe("retrieve", () => {
    it("answers the flag, 404 for another project's flag or a bad id", async () => {
      const flag = await create({ key: "retrievable" });
      expect(strip(await item("GET", flag.id))).toEqual({ status: 200, body: flag });
      const elsewhere = await create({ key: "elsewhere" }, otherProjectId);
      const notFound = { status: 404, body: { type: "invalid_request", code: "not_found", detail: "Not found.", attr: null } };
      expect(strip(await item("GET", elsewhere.id))).toEqual(notFound);
      expect(strip(await item("GET", "abc"))).toEqual(notFound);
      expect(strip(await item("GET", 999_999))).toEqual(notFound);
    });
  });

  describe("update", () => {
    it("changes the given fields, bumps the version and logs the changes", async () => {
      const flag = await create({ key: "editable", name: "Before", filters: ROLLOUT_50 });
      const answer = await item("PATCH", flag.id, { name: "After", filters: { groups: [{ properties: [], rollout_percentage: 80 }] }, tags: ["x"] });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ key: "editable", name: "After", version: 2, rollout_percentage: 80, tags: ["x"], active: true });
      const entries = await db.prisma.activityLog.findMany({ where: { itemId: String(flag.id), activity: "updated" } });
      expect(entries).toHaveLength(1);
      expect((entries[0]!.detail as { changes: { field: string }[] }).changes.map((change) => change.field).sort()).toEqual(["filters", "name", "tags"]);
    });

    it("writes nothing and keeps the version when nothing changes", async () => {
      const flag = await create({ key: "same", name: "Same" });
      expect((await item("PATCH", flag.id, { name: "Same", key: "same" })).body.version).toBe(1);
      expect(await db.prisma.activityLog.count({ where: { itemId: String(flag.id) } })).toBe(1);
    });

    it("merges filters sent without groups into the current ones", async () => {
      const flag = await create({ key: "payloaded", filters: ROLLOUT_50 });
      const answer = await item("PATCH", flag.id, { filters: { payloads: { true: "42" } } });
      expect(answer.body.filters).toMatchObject({ groups: [{ rollout_percentage: 50 }], payloads: { true: "42" } });
    });

    it("validates filters as create does, with the same attr", async () => {
      const flag = await create({ key: "strict" });
      expect(strip(await item("PATCH", flag.id, { filters: { groups: [{ properties: [{ key: "p", type: "person", operator: "nope", value: 1 }] }] } }))).toEqual(
        validation("Unknown operator 'nope'.", "filters__groups__0__properties__0__operator"),
      );
      expect(strip(await item("PATCH", flag.id, { filters: { multivariate: { variants: [{ key: "a", rollout_percentage: 99 }] } } }))).toEqual(
        validation("Invalid variant definitions: Variant rollout percentages must sum to 100.", "filters__multivariate__variants"),
      );
      expect(strip(await item("PATCH", flag.id, { filters: { groups: [{ properties: [{ key: "p", type: "person", operator: "regex", value: "(?=x)" }] }] } }))).toEqual(
        validation("Invalid regular expression: (?=x) (invalid or unsupported Perl syntax: `(?=`)", "filters__groups__0__properties__0__value"),
      );
    });

    it("refuses renaming to a live flag's key", async () => {
      await create({ key: "first-key" });
      const second = await create({ key: "second-key" });
      expect(strip(await item("PATCH", second.id, { key: "first-key" }))).toEqual(validation("There is already a feature flag with this key.", "key", "unique"));
    });

    it("toggles active, and PUT takes the same body as PATCH", async () => {
      const flag = await create({ key: "toggle" });
      expect((await item("PATCH", flag.id, { active: false })).body).toMatchObject({ active: false, version: 2 });
      expect((await item("PUT", flag.id, { active: true })).body).toMatchObject({ active: true, version: 3 });
    });

    it("answers 404 for another project's flag", async () => {
      const elsewhere = await create({ key: "patch-elsewhere" }, otherProjectId);
      expect((await item("PATCH", elsewhere.id, { name: "x" })).status).toBe(404);
      expect((await db.prisma.featureFlag.findUniqueOrThrow({ where: { id: elsewhere.id } })).name).toBe("");
    });
  });

  describe("soft delete", () => {
    it("PATCH deleted: true hides the flag from the list, frees its key and logs a deletion", async () => {
      const flag = await create({ key: "doomed" });
      const answer = await item("PATCH", flag.id, { deleted: true });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ deleted: true, version: 2 });
      expect((await collection("GET", "?search=doomed")).body.results).toEqual([]);
      expect((await item("GET", flag.id)).body.deleted).toBe(true);
      expect((await db.prisma.activityLog.findMany({ where: { itemId: String(flag.id) } })).map((e) => e.activity).sort()).toEqual(["created", "deleted"]);
      const again = await create({ key: "doomed" });
      expect(again.id).not.toBe(flag.id);
      // Restoring the old one would clash with the new live flag.
      expect(strip(await item("PATCH", flag.id, { deleted: false }))).toEqual(validation("There is already a feature flag with this key.", "key", "unique"));
      await item("PATCH", again.id, { deleted: true });
      expect((await item("PATCH", flag.id, { deleted: false })).body).toMatchObject({ deleted: false, version: 3 });
    });

    it("DELETE answers 405 with no body and keeps the flag", async () => {
      const flag = await create({ key: "undeletable" });
      const answer = await item("DELETE", flag.id);
      expect([answer.status, answer.text]).toEqual([405, ""]);
      expect((await item("GET", flag.id)).body.deleted).toBe(false);
      expect((await item("DELETE", 999_999)).status).toBe(404);
    });

    it("other methods on the collection answer 405 with PostHog's body", async () => {
      for (const method of ["PATCH", "PUT", "DELETE"] as const) {
        expect(strip(await collection(method))).toEqual({ status: 405, body: { type: "invalid_request", code: "method_not_allowed", detail: `Method "${method}" not allowed.`, attr: null } });
      }
      expect((await item("POST", 1)).status).toBe(405);
    });
  });

  describe("flag dependencies", () => {
    const dependsOn = (id: number | string, value: unknown = true) => ({ groups: [{ properties: [{ key: String(id), type: "flag", operator: "flag_evaluates_to", value }] }] });

    it("accept a live, active flag of the project by id and refuse anything else", async () => {
      const base = await create({ key: "dep-base" });
      expect((await collection("POST", "", { key: "dep-child", filters: dependsOn(base.id) })).status).toBe(201);
      const attr = "filters__groups__0__properties__0__key";
      expect(strip(await collection("POST", "", { key: "dep-bad", filters: dependsOn("dep-base") }))).toEqual(
        validation("Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: 'dep-base'", attr),
      );
      expect(strip(await collection("POST", "", { key: "dep-bad", filters: dependsOn(999_999) }))).toEqual(validation("Flag dependency references non-existent flag with ID 999999", attr));
      const off = await create({ key: "dep-off", active: false });
      expect(strip(await collection("POST", "", { key: "dep-bad", filters: dependsOn(off.id) }))).toEqual(
        validation(`Cannot create dependency on disabled flag 'dep-off' (ID: ${off.id}). Flag dependencies must reference active flags only.`, attr),
      );
      const elsewhere = await create({ key: "dep-elsewhere" }, otherProjectId);
      expect((await collection("POST", "", { key: "dep-bad", filters: dependsOn(elsewhere.id) })).status).toBe(400);
    });

    it("refuse self-dependencies and cycles", async () => {
      const a = await create({ key: "cycle-a" });
      const b = await create({ key: "cycle-b", filters: dependsOn(a.id) });
      const c = await create({ key: "cycle-c", filters: dependsOn(b.id) });
      expect((await item("PATCH", a.id, { filters: dependsOn(a.id) })).body.detail).toBe("Feature flag 'cycle-a' cannot depend on itself");
      expect((await item("PATCH", a.id, { filters: dependsOn(c.id) })).body.detail).toBe("Circular dependency detected: cycle-a → cycle-c → cycle-b → cycle-a");
    });

    it("keep a flag others depend on from being disabled or deleted", async () => {
      const base = await create({ key: "needed" });
      const child = await create({ key: "needs-it", filters: dependsOn(base.id) });
      expect(strip(await item("PATCH", base.id, { active: false }))).toEqual(
        validation(`Cannot disable this feature flag because other flags depend on it: needs-it (ID: ${child.id}). Please update or disable the dependent flags first.`, "active"),
      );
      expect((await item("PATCH", base.id, { deleted: true })).body.detail).toMatch(/^Cannot delete this feature flag because other flags depend on it: needs-it/);
      await item("PATCH", child.id, { deleted: true });
      expect((await item("PATCH", base.id, { active: false })).status).toBe(200);
    });
  });

  describe("list", () => {
    let listProject: number;
    const list = (query = "") => collection("GET", query, undefined, listProject);

    beforeAll(async () => {
      listProject = (await db.prisma.project.create({ data: { organizationId: (await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).organizationId, name: "Lists", apiToken: "phc_lists" } })).id;
      const variants = { variants: [{ key: "a", rollout_percentage: 50 }, { key: "b", rollout_percentage: 50 }] };
      await create({ key: "alpha", name: "First 100% flag", tags: ["core"] }, listProject);
      await create({ key: "beta_multi", filters: { groups: [{}], multivariate: variants } }, listProject);
      await create({ key: "gamma", active: false, tags: ["core", "ops"] }, listProject);
      const gone = await create({ key: "deleted-one" }, listProject);
      await item("PATCH", gone.id, { deleted: true }, listProject);
    });

    it("lists live flags newest first in PostHog's envelope", async () => {
      const answer = await list();
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ count: 3, next: null, previous: null });
      expect(answer.body.results.map((flag: { key: string }) => flag.key)).toEqual(["gamma", "beta_multi", "alpha"]);
    });

    it("pages with limit and offset", async () => {
      const first = await list("?limit=2");
      expect(first.body.results.map((flag: { key: string }) => flag.key)).toEqual(["gamma", "beta_multi"]);
      expect(first.body.next).toMatch(/limit=2&offset=2$/);
      const second = await list("?limit=2&offset=2");
      expect(second.body).toMatchObject({ count: 3, next: null, previous: expect.stringMatching(/limit=2$/) });
      expect(second.body.results.map((flag: { key: string }) => flag.key)).toEqual(["alpha"]);
    });

    it.each([
      ["?search=ALPH", ["alpha"]],
      ["?search=100%25", ["alpha"]],
      ["?search=_multi", ["beta_multi"]],
      ["?search=alph_", []],
      ["?search=", ["gamma", "beta_multi", "alpha"]],
      ["?active=false", ["gamma"]],
      ["?active=true", ["beta_multi", "alpha"]],
      ["?type=boolean", ["gamma", "alpha"]],
      ["?type=multivariant", ["beta_multi"]],
      ["?type=experiment", []],
      [`?tags=${encodeURIComponent('["ops"]')}`, ["gamma"]],
      [`?tags=${encodeURIComponent('["core","nope"]')}`, ["gamma", "alpha"]],
      [`?excluded_properties=${encodeURIComponent('["alpha","gamma"]')}`, ["beta_multi"]],
      ["?order=key", ["alpha", "beta_multi", "gamma"]],
      ["?order=-key", ["gamma", "beta_multi", "alpha"]],
    ])("filters %s", async (query, keys) => {
      const answer = await list(query);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.results.map((flag: { key: string }) => flag.key)).toEqual(keys);
      expect(answer.body.count).toBe(keys.length);
    });

    it.each([
      ["?active=maybe", "active"],
      ["?type=fancy", "type"],
      ["?tags=core", "tags"],
      ["?limit=5000", "limit"],
      ["?order=filters", "order"],
    ])("answers 400 for %s", async (query, attr) => {
      const answer = await list(query);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ type: "validation_error", attr });
    });

    it("is readable with feature_flag:read", async () => {
      expect((await collection("GET", "", undefined, listProject, readOnlyKey)).status).toBe(200);
    });
  });

  describe("the flag definitions /decide serves", () => {
    it("follow every write at once", async () => {
      const project = (await db.prisma.project.create({ data: { organizationId: (await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).organizationId, name: "Cache", apiToken: "phc_cache" } })).id;
      const keys = async () => (await loadFlagDefinitions(db, project)).flags.map((flag) => `${flag.key}:${flag.active}:${flag.version}`);
      expect(await keys()).toEqual([]);
      const flag = await create({ key: "cached" }, project);
      expect(await keys()).toEqual(["cached:true:1"]);
      await item("PATCH", flag.id, { active: false }, project);
      expect(await keys()).toEqual(["cached:false:2"]);
      await item("PATCH", flag.id, { deleted: true }, project);
      expect(await keys()).toEqual([]);
    });
  });

  describe("what uses a flag", () => {
    const post = async (route: Record<string, unknown>, path: string, body: unknown) => {
      const answer = await call(route.POST as Handler, "POST", `/api/projects/${projectId}/${path}/`, { project_id: String(projectId) }, body);
      expect(answer.status, answer.text).toBe(201);
      return answer.body;
    };

    it("names its experiments, linked surveys and early-access features, and the list leaves out surveys' targeting flags", async () => {
      const experiment = await post(experimentsRoute, "experiments", { name: "Uses: checkout", feature_flag_key: "uses-checkout" });
      const feature = await post(featuresRoute, "early_access_features", { name: "Uses: dark mode", stage: "beta" });
      const linked = await create({ key: "uses-linked", filters: ROLLOUT_50 });
      const survey = await post(surveysRoute, "surveys", {
        name: "Uses: NPS",
        type: "popover",
        questions: [{ type: "open", question: "Why?" }],
        linked_flag_id: linked.id,
        conditions: { url: "/pricing" },
      });

      const experimentFlag = (await item("GET", experiment.feature_flag.id)).body;
      expect(experimentFlag.experiment_set).toEqual([experiment.id]);
      const featureFlag = (await item("GET", feature.feature_flag.id)).body;
      expect(featureFlag.features).toEqual([expect.objectContaining({ id: feature.id, name: "Uses: dark mode", stage: "beta", flagKey: feature.feature_flag.key })]);
      const linkedFlag = (await item("GET", linked.id)).body;
      expect(linkedFlag.surveys).toEqual([expect.objectContaining({ id: survey.id, name: "Uses: NPS", type: "popover", linked_flag_key: "uses-linked" })]);
      expect(linkedFlag.experiment_set).toEqual([]);

      const listed = (await collection("GET", "?search=uses-&limit=100")).body.results as { key: string; experiment_set: number[] }[];
      expect(listed.map((flag) => flag.key).sort()).toEqual(["uses-checkout", "uses-dark-mode", "uses-linked"]);
      expect(listed.find((flag) => flag.key === "uses-checkout")!.experiment_set).toEqual([experiment.id]);
      expect(survey.targeting_flag ?? survey.internal_targeting_flag).toBeTruthy();
      const all = (await collection("GET", "?limit=1000")).body.results as { id: number }[];
      const surveyFlagIds = [survey.targeting_flag?.id, survey.internal_targeting_flag?.id].filter((id) => id !== undefined);
      expect(all.filter((flag) => surveyFlagIds.includes(flag.id))).toEqual([]);

      const experiments = (await collection("GET", "?type=experiment&limit=1000")).body.results as { key: string }[];
      expect(experiments.map((flag) => flag.key)).toEqual(["uses-checkout"]);
    });
  });
});
