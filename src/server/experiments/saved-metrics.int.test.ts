/**
 * Shared metrics end to end on a real database (PostHog's experiment_saved_metrics API and an
 * experiment's `saved_metrics_ids`): CRUD, the query checked as an ExperimentMetric, links
 * written and replaced, shown with the metric's current query, and unlinked on delete.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";
import { testContext } from "@/test-support/context";
import { experimentMetrics } from "./present";
import { savedMetricUsage } from "./saved-metrics";
import type { ExperimentResource } from "./contract";

let db: Database;
let projectId: number;
let apiKey: string;
const experiments = restRoute("projects", "experiments");
const experiment = restRoute("projects", "experiments/:id");
const metrics = restRoute("projects", "experiment_saved_metrics");
const metric = restRoute("projects", "experiment_saved_metrics/:id");

const call = projectApiCaller(() => ({ projectId, apiKey }));

const FUNNEL = { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "EventsNode", event: "purchase" }] };
const MEAN = { kind: "ExperimentMetric", metric_type: "mean", source: { kind: "EventsNode", event: "purchase", math: "sum", math_property: "amount" } };

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "saved-metrics@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
});
afterAll(() => closeDb());

describe(`experiment_saved_metrics (${testStoresName})`, () => {
  it("creates, lists, retrieves, updates and deletes, in PostHog's shape", async () => {
    const created = await call(metrics.POST, "POST", "experiment_saved_metrics/", {}, { name: "Purchases", description: "Did they buy?", query: FUNNEL, tags: ["checkout"] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Purchases", description: "Did they buy?", query: FUNNEL, tags: ["checkout"], user_access_level: "editor", created_by: { email: "saved-metrics@example.com" } });
    const id = created.body.id as number;
    const listed = await call(metrics.GET, "GET", "experiment_saved_metrics/");
    expect(listed.body).toMatchObject({ count: 1, results: [{ id, name: "Purchases" }] });
    const updated = await call(metric.PATCH, "PATCH", `experiment_saved_metrics/${id}/`, { id: String(id) }, { name: "Revenue", query: MEAN });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, name: "Revenue", description: "Did they buy?", query: MEAN, tags: ["checkout"] });
    expect((await call(metric.GET, "GET", `experiment_saved_metrics/${id}/`, { id: String(id) })).body.name).toBe("Revenue");
    expect((await call(metric.DELETE, "DELETE", `experiment_saved_metrics/${id}/`, { id: String(id) })).status).toBe(204);
    expect((await call(metric.GET, "GET", `experiment_saved_metrics/${id}/`, { id: String(id) })).status).toBe(404);
  });

  it("refuses a missing query, and one that is no ExperimentMetric, naming the field", async () => {
    const missing = await call(metrics.POST, "POST", "experiment_saved_metrics/", {}, { name: "No query" });
    expect(missing).toMatchObject({ status: 400, body: { attr: "query", detail: "Query is required to create a saved metric" } });
    const wrong = await call(metrics.POST, "POST", "experiment_saved_metrics/", {}, { name: "Wrong", query: { kind: "ExperimentMetric", metric_type: "mean", source: { kind: "DataWarehouseNode" } } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.attr).toMatch(/^query__source__kind/);
  });

  it("links shared metrics to an experiment as primary or secondary, shows their current query, and unlinks a deleted one", async () => {
    const purchases = (await call(metrics.POST, "POST", "experiment_saved_metrics/", {}, { name: "Purchases", query: FUNNEL })).body.id as number;
    const revenue = (await call(metrics.POST, "POST", "experiment_saved_metrics/", {}, { name: "Revenue", query: MEAN })).body.id as number;
    const created = await call(experiments.POST, "POST", "experiments/", {}, {
      name: "Checkout",
      feature_flag_key: "checkout",
      metrics: [FUNNEL],
      saved_metrics_ids: [{ id: revenue, metadata: { type: "secondary" } }, { id: purchases }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect(created.body.saved_metrics_ids).toEqual([
      { id: revenue, metadata: { type: "secondary" } },
      { id: purchases, metadata: { type: "primary" } },
    ]);
    expect(created.body.saved_metrics[0]).toMatchObject({ experiment: id, saved_metric: revenue, metadata: { type: "secondary" }, name: "Revenue", query: MEAN });
    // The experiment's own metrics first, then its shared ones, marked as PostHog's frontend marks them
    const body = created.body as ExperimentResource;
    const primary = experimentMetrics(body, false);
    expect(primary).toHaveLength(2);
    expect(primary[0]).toMatchObject(FUNNEL);
    expect(primary[1]).toEqual({ ...FUNNEL, name: "Purchases", isSharedMetric: true, sharedMetricId: purchases });
    expect(experimentMetrics(body, true)).toEqual([{ ...MEAN, name: "Revenue", isSharedMetric: true, sharedMetricId: revenue }]);

    // An edit of the shared metric is what the experiment reads
    await call(metric.PATCH, "PATCH", `experiment_saved_metrics/${revenue}/`, { id: String(revenue) }, { query: { ...MEAN, goal: "decrease" } });
    const read = await call(experiment.GET, "GET", `experiments/${id}/`, { id: String(id) });
    expect(read.body.saved_metrics[0].query.goal).toBe("decrease");

    // A PATCH naming links replaces them; one without leaves them
    const replaced = await call(experiment.PATCH, "PATCH", `experiments/${id}/`, { id: String(id) }, { saved_metrics_ids: [{ id: revenue, metadata: { type: "primary" } }] });
    expect(replaced.body.saved_metrics_ids).toEqual([{ id: revenue, metadata: { type: "primary" } }]);
    const renamed = await call(experiment.PATCH, "PATCH", `experiments/${id}/`, { id: String(id) }, { name: "Checkout 2" });
    expect(renamed.body.saved_metrics_ids).toEqual([{ id: revenue, metadata: { type: "primary" } }]);

    await call(metric.DELETE, "DELETE", `experiment_saved_metrics/${revenue}/`, { id: String(revenue) });
    expect((await call(experiment.GET, "GET", `experiments/${id}/`, { id: String(id) })).body.saved_metrics).toEqual([]);
  });

  it("deletes a shared metric as PostHog does: gone from every experiment's links, their own metrics and other links kept", async () => {
    const doomed = (await call(metrics.POST, "POST", "experiment_saved_metrics/", {}, { name: "Doomed", query: FUNNEL })).body.id as number;
    const kept = (await call(metrics.POST, "POST", "experiment_saved_metrics/", {}, { name: "Kept", query: MEAN })).body.id as number;
    const both = (await call(experiments.POST, "POST", "experiments/", {}, { name: "Both", feature_flag_key: "both-metrics", metrics: [MEAN], saved_metrics_ids: [{ id: doomed }, { id: kept, metadata: { type: "secondary" } }] })).body.id as number;
    const onlyDoomed = (await call(experiments.POST, "POST", "experiments/", {}, { name: "Only doomed", feature_flag_key: "only-doomed", saved_metrics_ids: [{ id: doomed, metadata: { type: "secondary" } }] })).body.id as number;
    const trashed = (await call(experiments.POST, "POST", "experiments/", {}, { name: "Trashed", feature_flag_key: "trashed", saved_metrics_ids: [{ id: doomed }] })).body.id as number;
    await call(experiment.PATCH, "PATCH", `experiments/${trashed}/`, { id: String(trashed) }, { deleted: true });

    // What the page's confirmation names: the live experiments reading it, not a deleted one
    const ctx = await testContext(db, (await db.prisma.user.findUniqueOrThrow({ where: { email: "saved-metrics@example.com" } })).id, projectId);
    expect(await savedMetricUsage(ctx, doomed)).toEqual({ experiments: [{ id: both, name: "Both" }, { id: onlyDoomed, name: "Only doomed" }] });
    expect(await savedMetricUsage(ctx, kept)).toEqual({ experiments: [{ id: both, name: "Both" }] });

    expect((await call(metric.DELETE, "DELETE", `experiment_saved_metrics/${doomed}/`, { id: String(doomed) })).status).toBe(204);
    const after = (await call(experiment.GET, "GET", `experiments/${both}/`, { id: String(both) })).body;
    expect(after.saved_metrics_ids).toEqual([{ id: kept, metadata: { type: "secondary" } }]);
    expect(after.saved_metrics.map((link: { name: string }) => link.name)).toEqual(["Kept"]);
    expect(after.metrics).toMatchObject([MEAN]);
    const alone = (await call(experiment.GET, "GET", `experiments/${onlyDoomed}/`, { id: String(onlyDoomed) })).body;
    expect([alone.saved_metrics_ids, alone.saved_metrics, alone.deleted]).toEqual([[], [], false]);
    expect(await savedMetricUsage(ctx, kept)).toEqual({ experiments: [{ id: both, name: "Both" }] });
    await expect(savedMetricUsage(ctx, doomed)).rejects.toMatchObject({ code: "not_found" });
    // Gone: a second delete, and a link to it, are refused
    expect((await call(metric.DELETE, "DELETE", `experiment_saved_metrics/${doomed}/`, { id: String(doomed) })).status).toBe(404);
    const relink = await call(experiment.PATCH, "PATCH", `experiments/${both}/`, { id: String(both) }, { saved_metrics_ids: [{ id: doomed }] });
    expect(relink).toMatchObject({ status: 400, body: { attr: "saved_metrics_ids" } });
    const activity = await db.prisma.activityLog.findMany({ where: { projectId, scope: "ExperimentSavedMetric", itemId: String(doomed) }, select: { activity: true } });
    expect(activity.map((row) => row.activity).sort()).toEqual(["created", "deleted"]);
  });

  it("refuses links to unknown metrics, twice the same one, or a bad type, before creating anything", async () => {
    const purchases = (await call(metrics.POST, "POST", "experiment_saved_metrics/", {}, { name: "Purchases again", query: FUNNEL })).body.id as number;
    const unknown = await call(experiments.POST, "POST", "experiments/", {}, { name: "Bad", feature_flag_key: "bad-links", saved_metrics_ids: [{ id: 987654 }] });
    expect(unknown).toMatchObject({ status: 400, body: { attr: "saved_metrics_ids", detail: "Saved metric does not exist or does not belong to this project" } });
    // The refusal came before the flag: the key is still free
    expect((await call(experiments.POST, "POST", "experiments/", {}, { name: "Good", feature_flag_key: "bad-links" })).status).toBe(201);
    const twice = await call(experiments.POST, "POST", "experiments/", {}, { name: "Twice", feature_flag_key: "twice", saved_metrics_ids: [{ id: purchases }, { id: purchases }] });
    expect(twice).toMatchObject({ status: 400, body: { attr: "saved_metrics_ids" } });
    const badType = await call(experiments.POST, "POST", "experiments/", {}, { name: "Type", feature_flag_key: "type", saved_metrics_ids: [{ id: purchases, metadata: { type: "tertiary" } }] });
    expect(badType.status).toBe(400);
    expect(badType.body.attr).toMatch(/^saved_metrics_ids/);
  });

  it("refuses, as PostHog does at save, a metric or exposure naming an action that does not exist or is deleted", async () => {
    const message = "Action(s) with ID 987654 not found or deleted. Each ActionsNode must reference an existing action belonging to this project.";
    const byAction = { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "ActionsNode", id: 987654 }] };
    expect(await call(metrics.POST, "POST", "experiment_saved_metrics/", {}, { name: "By action", query: byAction })).toMatchObject({ status: 400, body: { attr: "query", detail: message } });
    const refused = await call(experiments.POST, "POST", "experiments/", {}, { name: "By action", feature_flag_key: "by-action", metrics_secondary: [byAction] });
    expect(refused).toMatchObject({ status: 400, body: { attr: "metrics", detail: message } });
    const exposure = await call(experiments.POST, "POST", "experiments/", {}, { name: "By action", feature_flag_key: "by-action", exposure_criteria: { exposure_config: { kind: "ActionsNode", id: 987654 } } });
    expect(exposure).toMatchObject({ status: 400, body: { attr: "exposure_criteria", detail: message } });
    // Every unknown or deleted action is named at once, in id order, from one read of the live ones
    const live = (await call(restRoute("projects", "actions").POST, "POST", "actions/", {}, { name: "Signed up", steps: [{ event: "signup" }] })).body.id as number;
    const gone = (await call(restRoute("projects", "actions").POST, "POST", "actions/", {}, { name: "Gone", steps: [{ event: "gone" }] })).body.id as number;
    await call(restRoute("projects", "actions/:id").PATCH, "PATCH", `actions/${gone}/`, { id: String(gone) }, { deleted: true });
    const several = { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "ActionsNode", id: 987655 }, { kind: "ActionsNode", id: live }, { kind: "ActionsNode", id: gone }, { kind: "ActionsNode", id: 987654 }, { kind: "ActionsNode", id: 987655 }] };
    expect(await call(metrics.POST, "POST", "experiment_saved_metrics/", {}, { name: "Several", query: several })).toMatchObject({
      status: 400,
      body: { attr: "query", detail: `Action(s) with ID ${gone}, 987654, 987655 not found or deleted. Each ActionsNode must reference an existing action belonging to this project.` },
    });
    // A live action is accepted
    const action = (await call(restRoute("projects", "actions").POST, "POST", "actions/", {}, { name: "Bought", steps: [{ event: "purchase" }] })).body.id as number;
    const accepted = await call(experiments.POST, "POST", "experiments/", {}, { name: "By action", feature_flag_key: "by-action", metrics: [{ ...byAction, series: [{ kind: "ActionsNode", id: action }] }] });
    expect(accepted.status).toBe(201);
  });
});
