/**
 * The OpenAPI document against real answers: on a seeded project (events through /batch/,
 * persons, a dashboard with tiles and a collaborator, an insight, a flag with variants and
 * payloads, cohorts, a transformation with activity), every GET the document lists is called
 * through the real handlers — the route table's catch-all, the route files, the server's fast
 * path — and its answer is validated with ajv (JSON Schema 2020-12) against the schema the
 * document names for it. A documented GET without a request here fails the test, so the
 * document cannot drift from what the API answers.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { bootstrap, createUser } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { matchFastRoute } from "@/server/http/fast-routes";
import { asRouteHandler } from "@/server/http/raw";
import { restRouteHandlers } from "@/server/http/rest/next-routes";
import { projectRoute } from "@/server/http/rest/route";
import { apiRouteHandlers } from "@/test-support/rest-routes";
import { ingestionServices } from "@/server/ingestion/service";
import { handleSnapshotsRoute } from "@/server/http/sdk/recordings";
import { pageItems, snapshotEvent } from "@/test-support/recordings";
import { openApiDocument } from "./document";

type Json = Record<string, any>;

let db: Database;
let key: string;
const ids: Record<string, string> = {};

/** Calls `path` as the server would route it: fast path, a management catch-all, or a route file under src/app/api. */
async function call(method: string, path: string, body?: unknown): Promise<Response> {
  const url = new URL(path, "http://burrow.test");
  const init: RequestInit = {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
  const request = new Request(url, init);
  const fast = matchFastRoute(url.pathname);
  if (fast) return asRouteHandler(fast)(request);
  const managed = /^\/api\/(projects|environments)\/([^/]+)\/(.*)$/.exec(url.pathname);
  if (managed) {
    const handler = restRouteHandlers(managed[1] as "projects" | "environments")[method as "GET"];
    return handler(request, { params: Promise.resolve({ project_id: managed[2]!, path: managed[3]!.split("/").filter(Boolean) }) });
  }
  const user = /^\/api\/users\/([^/]+)\/$/.exec(url.pathname);
  const pattern = user ? "users/:user_id" : url.pathname.replace(/^\/api\/|\/$/g, "");
  const handler = (await apiRouteHandlers(pattern))[method]!;
  return handler(request, { params: Promise.resolve(user ? { user_id: user[1]! } : {}) });
}

async function json(method: string, path: string, body?: unknown): Promise<Json> {
  const response = await call(method, path, body);
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : {};
}

/**
 * The requests for each documented GET, by the document's path under `/api/projects/` or
 * outside the projects (the `/api/environments/` paths reuse these with the prefix swapped).
 */
const P = "/api/projects/{project_id}";
const FIXTURES: Record<string, () => string[]> = {
  "/api/projects/": () => ["/api/projects/"],
  "/api/users/{user_id}/": () => ["/api/users/@me/"],
  "/api/plugins/": () => ["/api/plugins/"],
  [`${P}/`]: () => [`${P}/`, "/api/projects/@current/"],
  [`${P}/dashboards/`]: () => [`${P}/dashboards/`, `${P}/dashboards/?deleted=true`],
  [`${P}/dashboards/{id}/`]: () => [`${P}/dashboards/${ids.dashboard}/`],
  [`${P}/dashboards/{id}/collaborators/`]: () => [`${P}/dashboards/${ids.dashboard}/collaborators/`],
  [`${P}/dashboards/{id}/sharing/`]: () => [`${P}/dashboards/${ids.dashboard}/sharing/`],
  [`${P}/insights/`]: () => [`${P}/insights/`],
  [`${P}/insights/{id}/`]: () => [`${P}/insights/${ids.insight}/`, `${P}/insights/${ids.insight}/?refresh=force_cache`],
  [`${P}/events/`]: () => [`${P}/events/?limit=2`, `${P}/events/?select=${encodeURIComponent('["event","count()"]')}`],
  [`${P}/events/values/`]: () => [`${P}/events/values/?key=$browser`],
  [`${P}/events/{id}/`]: () => [`${P}/events/${ids.event}/`],
  [`${P}/event_definitions/`]: () => [`${P}/event_definitions/`],
  [`${P}/event_definitions/{id}/`]: () => [`${P}/event_definitions/${ids.eventDefinition}/`],
  [`${P}/property_definitions/`]: () => [`${P}/property_definitions/`, `${P}/property_definitions/?type=person`, `${P}/property_definitions/?event_names=${encodeURIComponent('["$pageview"]')}`],
  [`${P}/property_definitions/{id}/`]: () => [`${P}/property_definitions/${ids.propertyDefinition}/`],
  [`${P}/feature_flags/`]: () => [`${P}/feature_flags/`],
  [`${P}/feature_flags/{id}/`]: () => [`${P}/feature_flags/${ids.flag}/`],
  [`${P}/feature_flags/{id}/remote_config/`]: () => [`${P}/feature_flags/${ids.flagWithPayload}/remote_config/`, `${P}/feature_flags/${ids.flagWithoutPayload}/remote_config/`],
  [`${P}/actions/`]: () => [`${P}/actions/`],
  [`${P}/actions/{id}/`]: () => [`${P}/actions/${ids.action}/`],
  [`${P}/experiments/`]: () => [`${P}/experiments/`],
  [`${P}/experiments/{id}/`]: () => [`${P}/experiments/${ids.experiment}/`],
  [`${P}/experiment_holdouts/`]: () => [`${P}/experiment_holdouts/`],
  [`${P}/experiment_holdouts/{id}/`]: () => [`${P}/experiment_holdouts/${ids.holdout}/`],
  [`${P}/experiment_saved_metrics/`]: () => [`${P}/experiment_saved_metrics/`],
  [`${P}/experiment_saved_metrics/{id}/`]: () => [`${P}/experiment_saved_metrics/${ids.savedMetric}/`],
  [`${P}/early_access_features/`]: () => [`${P}/early_access_features/`, `${P}/early_access_features/?stage=beta`],
  [`${P}/early_access_features/{id}/`]: () => [`${P}/early_access_features/${ids.feature}/`],
  [`${P}/surveys/`]: () => [`${P}/surveys/`, `${P}/surveys/?archived=false`],
  [`${P}/surveys/{id}/`]: () => [`${P}/surveys/${ids.survey}/`],
  [`${P}/surveys/{id}/stats/`]: () => [`${P}/surveys/${ids.survey}/stats/`, `${P}/surveys/${ids.survey}/stats/?date_from=2026-11-01`],
  [`${P}/early_access_features/{id}/enrolled/`]: () => [`${P}/early_access_features/${ids.feature}/enrolled/`],
  [`${P}/hog_functions/`]: () => [`${P}/hog_functions/`, `${P}/hog_functions/?type=destination&enabled=true`],
  [`${P}/hog_functions/{id}/`]: () => [`${P}/hog_functions/${ids.hogFunction}/`],
  [`${P}/subscriptions/`]: () => [`${P}/subscriptions/`, `${P}/subscriptions/?insight=${ids.insight}&target_type=webhook`],
  [`${P}/subscriptions/{id}/`]: () => [`${P}/subscriptions/${ids.subscription}/`],
  [`${P}/alerts/`]: () => [`${P}/alerts/`, `${P}/alerts/?insight=${ids.insight}`],
  [`${P}/alerts/{id}/`]: () => [`${P}/alerts/${ids.alert}/`, `${P}/alerts/${ids.alert}/?checks_limit=10`],
  [`${P}/hog_functions/{id}/logs/`]: () => [`${P}/hog_functions/${ids.hogFunction}/logs/`, `${P}/hog_functions/${ids.hogFunction}/logs/?level=ERROR`],
  [`${P}/hog_functions/{id}/deliveries/`]: () => [`${P}/hog_functions/${ids.hogFunction}/deliveries/`],
  [`${P}/hog_functions/{id}/metrics/`]: () => [`${P}/hog_functions/${ids.hogFunction}/metrics/`, `${P}/hog_functions/${ids.hogFunction}/metrics/?interval=hour&after=-1d`],
  [`${P}/hog_functions/{id}/metrics/totals/`]: () => [`${P}/hog_functions/${ids.hogFunction}/metrics/totals/`],
  [`${P}/batch_exports/`]: () => [`${P}/batch_exports/`, `${P}/batch_exports/?limit=1`],
  [`${P}/batch_exports/{id}/`]: () => [`${P}/batch_exports/${ids.batchExport}/`],
  [`${P}/batch_exports/{id}/runs/`]: () => [`${P}/batch_exports/${ids.batchExport}/runs/`],
  [`${P}/batch_exports/{id}/runs/{run_id}/`]: () => [`${P}/batch_exports/${ids.batchExport}/runs/${ids.batchExportRun}/`],
  [`${P}/batch_exports/{id}/backfills/`]: () => [`${P}/batch_exports/${ids.batchExport}/backfills/`],
  [`${P}/batch_exports/{id}/backfills/{backfill_id}/`]: () => [`${P}/batch_exports/${ids.batchExport}/backfills/${ids.batchExportBackfill}/`],
  [`${P}/session_recordings/`]: () => [`${P}/session_recordings/`, `${P}/session_recordings/?date_from=2020-01-01`],
  [`${P}/session_recordings/{id}/`]: () => [`${P}/session_recordings/doc-session/`],
  [`${P}/session_recordings/{id}/snapshots/`]: () => [`${P}/session_recordings/doc-session/snapshots/`],
  [`${P}/cohorts/`]: () => [`${P}/cohorts/`],
  [`${P}/cohorts/{id}/`]: () => [`${P}/cohorts/${ids.staticCohort}/`, `${P}/cohorts/${ids.dynamicCohort}/`],
  [`${P}/cohorts/{id}/persons/`]: () => [`${P}/cohorts/${ids.staticCohort}/persons/`],
  [`${P}/persons/`]: () => [`${P}/persons/`, `${P}/persons/?limit=1`],
  [`${P}/persons/{id}/`]: () => [`${P}/persons/${ids.person}/`],
  [`${P}/persons/{id}/cohorts/`]: () => [`${P}/persons/${ids.person}/cohorts/`],
  [`${P}/pipeline_transformation_configs/`]: () => [`${P}/pipeline_transformation_configs/`],
  [`${P}/pipeline_transformation_configs/{id}/`]: () => [`${P}/pipeline_transformation_configs/${ids.config}/`],
  [`${P}/pipeline_transformation_configs/{id}/activity/`]: () => [`${P}/pipeline_transformation_configs/${ids.config}/activity/?limit=1`],
  // Answers JavaScript: the document names no JSON schema for it, only its media type.
  [`${P}/pipeline_transformation_configs/{id}/frontend/`]: () => [`${P}/pipeline_transformation_configs/${ids.config}/frontend/`],
  "/decide/": () => ["/decide/?v=3"],
  "/flags/definitions": () => [`/flags/definitions?token=${ids.token}`],
  "/api/feature_flag/local_evaluation/": () => [`/api/feature_flag/local_evaluation/?token=${ids.token}`, `/api/feature_flag/local_evaluation/?token=${ids.token}&send_cohorts`],
  "/array/{token}/config": () => [`/array/${ids.token}/config`],
  "/api/surveys/": () => [`/api/surveys/?token=${ids.token}`],
  "/api/early_access_features/": () => [`/api/early_access_features/?token=${ids.token}`],
  "/_health": () => ["/_health"],
  "/_ready": () => ["/_ready"],
};

function fixtureFor(path: string): (() => string[]) | undefined {
  if (FIXTURES[path]) return FIXTURES[path];
  if (!path.startsWith("/api/environments/")) return undefined;
  const same = FIXTURES[path.replace("/api/environments/", "/api/projects/")];
  return same && (() => same().map((url) => url.replace("/api/projects/", "/api/environments/")));
}

const document = openApiDocument().document as Json;
const documentedGets = Object.entries(document.paths as Record<string, Json>)
  .filter(([, methods]) => methods.get)
  .map(([path, methods]) => ({ path, operation: methods.get as Json }));

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: "burrow:openapi", components: document.components }, undefined, undefined, false);
/** A response schema's validator: a named one compiled once (ajv keeps it), an inline one on its own. */
function validatorFor(schema: Json): ValidateFunction {
  if (typeof schema.$ref === "string") return ajv.getSchema(`burrow:openapi${schema.$ref}`)!;
  return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"burrow:openapi#/components/')));
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const alice = await bootstrap(db.prisma, { email: "alice@example.com", password: "pw12345678" });
  key = alice.personal_api_key;
  ids.token = alice.project_api_key;
  const project = `/api/projects/${alice.project_id}`;
  const carol = await createUser(db.prisma, { email: "carol@example.com", password: "pw12345678", organizationId: alice.organization_id });

  const at = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  await json("POST", "/batch/", {
    api_key: ids.token,
    batch: [
      { event: "$identify", distinct_id: "ann", timestamp: at(30), properties: { $anon_distinct_id: "anon-1", $set: { email: "ann@example.com", plan: "pro" } } },
      { event: "$pageview", distinct_id: "ann", timestamp: at(20), properties: { $browser: "Firefox", $current_url: "https://a.test/" } },
      { event: "$pageview", distinct_id: "bob", timestamp: at(10), properties: { $browser: "Chrome", load_ms: 120 } },
      { event: "signed_up", distinct_id: "ann", timestamp: at(5), properties: { plan: "pro" } },
    ],
  });
  await ingestionServices(db).definitions.flush();
  ids.event = (await json("GET", `${project}/events/?limit=1`)).results[0].id;
  ids.eventDefinition = (await json("GET", `${project}/event_definitions/`)).results[0].id;
  ids.propertyDefinition = (await json("GET", `${project}/property_definitions/`)).results[0].id;
  const persons = (await json("GET", `${project}/persons/`)).results as Json[];
  ids.person = persons.find((person) => person.distinct_ids.includes("ann"))!.uuid;

  const dashboard = await json("POST", `${project}/dashboards/`, { name: "Overview", description: "Seeded", tags: ["kpi"], restriction_level: 37 });
  ids.dashboard = String(dashboard.id);
  await json("POST", `${project}/dashboards/${ids.dashboard}/collaborators/`, { user_uuid: carol.uuid, level: 37 });
  const insight = await json("POST", `${project}/insights/`, {
    name: "Page views",
    query: { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "-7d" } } },
    dashboards: [dashboard.id],
  });
  ids.insight = String(insight.id);
  await json("PATCH", `${project}/dashboards/${ids.dashboard}/`, { tiles: [{ text: { body: "Notes" } }] });
  await json("PATCH", `${project}/dashboards/${ids.dashboard}/sharing/`, { enabled: true });
  await json("POST", `${project}/dashboards/`, { name: "Old" }).then((old) => json("PATCH", `${project}/dashboards/${old.id}/`, { deleted: true }));

  const flag = await json("POST", `${project}/feature_flags/`, {
    key: "checkout",
    name: "New checkout",
    filters: {
      groups: [{ properties: [{ key: "email", value: "example.com", operator: "icontains", type: "person" }], rollout_percentage: 50 }],
      multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] },
      payloads: { test: { color: "blue" } },
    },
  });
  ids.flag = String(flag.id);
  const simple = await json("POST", `${project}/feature_flags/`, { key: "banner", filters: { groups: [{ properties: [], rollout_percentage: null }], payloads: { true: "\"on\"" } } });
  ids.flagWithPayload = String(simple.id);
  ids.flagWithoutPayload = String((await json("POST", `${project}/feature_flags/`, { key: "plain", filters: { groups: [{ rollout_percentage: 100 }] } })).id);
  expect(simple.is_simple_flag).toBe(true);

  const staticCohort = await json("POST", `${project}/cohorts/`, { name: "Beta testers", is_static: true });
  ids.staticCohort = String(staticCohort.id);
  await json("PATCH", `${project}/cohorts/${ids.staticCohort}/add_persons_to_static_cohort/`, { person_ids: [ids.person] });
  const dynamic = await json("POST", `${project}/cohorts/`, {
    name: "Example staff",
    filters: { properties: { type: "AND", values: [{ type: "AND", values: [{ key: "email", value: "example.com", operator: "icontains", type: "person" }] }] } },
  });
  ids.dynamicCohort = String(dynamic.id);
  // A recording, sent as posthog-js sends one once the project records.
  await json("PATCH", `/api/projects/${alice.project_id}/`, { session_recording_opt_in: true });
  const snapshots = snapshotEvent({ token: ids.token, sessionId: "doc-session", windowId: "doc-window", distinctId: "doc-visitor", items: pageItems() });
  const sent = await handleSnapshotsRoute(new Request("http://burrow.test/s/", { method: "POST", headers: { "content-type": "text/plain" }, body: JSON.stringify([snapshots]) }));
  expect(sent.status).toBe(200);
  ids.survey = String((await json("POST", `${project}/surveys/`, { name: "NPS", type: "popover", questions: [{ type: "rating", question: "How likely?", scale: 10 }], start_date: "2026-11-01T00:00:00Z" })).id);
  ids.feature = String((await json("POST", `${project}/early_access_features/`, { name: "Dark mode", description: "Night", stage: "beta" })).id);
  const hook = await json("POST", `${project}/hog_functions/`, {
    type: "destination",
    name: "CRM",
    template_id: "template-webhook",
    inputs: { url: { value: "https://hooks.example.com/crm" }, headers: { value: { Authorization: "Bearer doc-secret-value-1234" } } },
    filters: { events: [{ id: "signed_up", type: "events" }] },
  });
  ids.hogFunction = String(hook.id);
  // An alert with a check in its history.
  ids.alert = (await json("POST", `${project}/alerts/`, { insight: Number(ids.insight), name: "Spike", threshold: { configuration: { bounds: { upper: 1 } } }, subscribed_users: [alice.user.id] })).id;
  await json("POST", `${project}/alerts/${ids.alert}/check_now/`, {});
  // A batch export with a backfill of two hours (its runs wait: no worker runs in this test).
  ids.batchExport = String(
    (await json("POST", `${project}/batch_exports/`, { name: "Lake", interval: "hour", destination: { type: "S3", config: { bucket_name: "lake", aws_access_key_id: "AKIA", aws_secret_access_key: "doc-secret-key-1234567" } } })).id,
  );
  ids.batchExportBackfill = String((await json("POST", `${project}/batch_exports/${ids.batchExport}/backfills/`, { start_at: "2026-01-01T00:00:00Z", end_at: "2026-01-01T02:00:00Z" })).id);
  ids.batchExportRun = String((await json("GET", `${project}/batch_exports/${ids.batchExport}/runs/`)).results[0].id);
  // Two attempts in its log, as the worker records them.
  await db.sql.query(
    `INSERT INTO hog_function_deliveries (hog_function_id, project_id, event_uuid, attempt, status, response_code, duration_ms, error)
     VALUES ($1::uuid, $2, '0190c000-0000-7000-8000-0000000000e1', 1, 'retrying', 500, 12, 'Webhook failed with status 500'), ($1::uuid, $2, '0190c000-0000-7000-8000-0000000000e1', 2, 'delivered', 200, 9, NULL)`,
    [ids.hogFunction, alice.project_id],
  );
  const subscription = await json("POST", `${project}/subscriptions/`, {
    insight: Number(ids.insight),
    target_type: "webhook",
    target_value: "https://hooks.example.com/report",
    frequency: "weekly",
    byweekday: ["monday"],
    start_date: "2026-11-02T09:00:00Z",
    title: "Weekly views",
  });
  ids.subscription = String(subscription.id);
  ids.action = String((await json("POST", `${project}/actions/`, { name: "Clicked buy", steps: [{ event: "$autocapture", selector: "div > button.buy" }, { event: "$pageview", url: "/pricing" }] })).id);

  ids.holdout = String((await json("POST", `${project}/experiment_holdouts/`, { name: "Ten", filters: [{ properties: [], rollout_percentage: 10 }] })).id);
  ids.savedMetric = String((await json("POST", `${project}/experiment_saved_metrics/`, { name: "Purchases", query: { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "EventsNode", event: "purchase" }] }, tags: ["checkout"] })).id);
  ids.experiment = String(
    (
      await json("POST", `${project}/experiments/`, {
        name: "Checkout",
        feature_flag_key: "doc-experiment",
        holdout_id: Number(ids.holdout),
        saved_metrics_ids: [{ id: Number(ids.savedMetric), metadata: { type: "secondary" } }],
        start_date: "2026-01-01T00:00:00Z",
        metrics: [{ kind: "ExperimentMetric", uuid: "m1", metric_type: "mean", source: { kind: "EventsNode", event: "purchase", math: "sum", math_property: "amount" } }],
      })
    ).id,
  );

  const plugins = (await json("GET", "/api/plugins/")).results as Json[];
  const config = await json("POST", `${project}/pipeline_transformation_configs/`, { plugin: plugins.find((plugin) => plugin.key === "flatten")!.id, enabled: true });
  ids.config = String(config.id);
  await json("POST", `${project}/pipeline_transformation_configs/${ids.config}/job/`, { job: { type: "dry_run", payload: { events: [{ event: "nested", properties: { a: { b: 1 } } }] } } });
  await json("PATCH", `${project}/pipeline_transformation_configs/${ids.config}/`, { name: "Flatten" });
  ids.project = String(alice.project_id);
});

afterAll(async () => {
  await closeDb();
});

describe(`the OpenAPI document against real answers (${testDbKind})`, () => {
  it("has a request here for every GET it documents", () => {
    expect(documentedGets.filter(({ path }) => !fixtureFor(path)).map(({ path }) => path)).toEqual([]);
    expect(documentedGets.length).toBeGreaterThan(60);
  });

  it("has validators that refuse an answer that does not fit", () => {
    const dashboard = validatorFor({ $ref: "#/components/schemas/Dashboard" });
    expect(dashboard({ id: 1 })).toBe(false);
    expect(dashboard({})).toBe(false);
    const page = validatorFor({ $ref: "#/components/schemas/PaginatedFeatureFlagList" });
    expect(page({ count: 1, next: null, previous: null, results: [{ id: "1" }] })).toBe(false);
  });

  it("answers every documented GET with what its schema says", async () => {
    const failures: string[] = [];
    for (const { path, operation } of documentedGets) {
      const success = Object.entries(operation.responses as Json).find(([status]) => status.startsWith("2"))!;
      const schema = success[1].content?.["application/json"]?.schema as Json | undefined;
      const validate = schema && validatorFor(schema);
      for (const url of fixtureFor(path)!().map((url) => url.replace("{project_id}", ids.project!))) {
        const response = await call("GET", url);
        const text = await response.text();
        if (String(response.status) !== success[0]) {
          failures.push(`${url}: ${response.status} (documented ${success[0]}) ${text.slice(0, 200)}`);
          continue;
        }
        const type = response.headers.get("content-type") ?? "";
        if (!validate) {
          if (!Object.keys(success[1].content ?? {}).some((media) => type.startsWith(media))) failures.push(`${url}: ${type} is not a documented media type`);
          continue;
        }
        if (!type.startsWith("application/json")) failures.push(`${url}: ${type}, not JSON`);
        else if (!validate(JSON.parse(text))) failures.push(`${url}: ${ajv.errorsText(validate.errors, { separator: "\n  " })}`);
      }
    }
    expect(failures, failures.join("\n")).toEqual([]);
  });

  it("fails a route that reads its input with another schema than its documentation names", async () => {
    const documented = z.object({ a: z.string().optional() });
    const route = projectRoute("project", async ({ query }) => query(z.object({ b: z.string().optional() })), { doc: { summary: "Drifted", query: documented } });
    const response = await route(new Request(`http://burrow.test/api/projects/${ids.project}/x/`, { headers: { authorization: `Bearer ${key}` } }), {
      params: Promise.resolve({ project_id: ids.project! }),
    });
    expect(response.status).toBe(500);
    const honest = projectRoute("project", async ({ query }) => query(documented), { doc: { summary: "Honest", query: documented } });
    const answer = await honest(new Request(`http://burrow.test/api/projects/${ids.project}/x/?a=1`, { headers: { authorization: `Bearer ${key}` } }), {
      params: Promise.resolve({ project_id: ids.project! }),
    });
    expect(await answer.json()).toEqual({ a: "1" });
  });
});
