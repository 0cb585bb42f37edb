/**
 * Hostile input at both edges, table-driven (hostile-input-rest.int.test.ts,
 * hostile-input-trpc.int.test.ts): every REST management route and every tRPC procedure that
 * takes text or ids gets, in turn, U+0000 in each of its string fields and query filters, and
 * ids of 2³¹, 2⁵³, 1e308 and −1 in each id (path, body, input). Each must be a 400 (a 404 for
 * an id in a REST path), never a 500, and nothing stored may change. This fixture: the world
 * both tables name (ids, keys, bodies), the setup that creates it, and the helpers that
 * plant NULs and read back everything stored.
 */
import { bootstrap, createUser } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase } from "@/test-support/db";
import { pageItems, snapshotEvent } from "@/test-support/recordings";
import { mergeChunk, parseSnapshotRequest } from "@/server/recordings/ingest";
import { recordingStore } from "@/server/recordings/service";

export type Path = (string | number)[];

export const HUGE_IDS = [2 ** 31, 2 ** 40, 2 ** 53, 1e308, -1];

/** What the tests created: ids and keys the cases' inputs name. */
export const w = {
  projectId: 0,
  projectApiKey: "",
  organizationId: "",
  key: "",
  dashboardId: 0,
  tileId: 0,
  insightId: 0,
  flagId: 0,
  configId: 0,
  pluginId: 0,
  carolUuid: "",
  cohortId: 0,
  actionId: 0,
  experimentId: 0,
  holdoutId: 0,
  /** A holdout of its own for DELETE (the others keep theirs). */
  spareHoldoutId: 0,
  savedMetricId: 0,
  /** A shared metric of its own for DELETE. */
  spareSavedMetricId: 0,
  hogFunctionId: "0190f1c2-0000-7000-8000-0000000000f1",
  subscriptionId: 0,
  alertId: "0190f1c2-0000-4000-8000-0000000a1e47",
  batchExportId: "0190f1c2-0000-7000-8000-0000000000b1",
  /** A batch export of its own for DELETE. */
  spareBatchExportId: "0190f1c2-0000-7000-8000-0000000000b2",
  batchExportRunId: "0190f1c2-0000-7000-8000-0000000000b3",
  batchExportBackfillId: "0190f1c2-0000-7000-8000-0000000000b4",
  eafId: "",
  surveyId: "",
  staticCohortId: 0,
  personUuid: "0190f1c2-0000-7000-8000-00000000c0c0",
  /** A session recording of the project (its id is the session id). */
  recordingId: "hostile-recording",
  /** A project of another organization, which the cases' user and key cannot reach. */
  otherProjectId: 0,
  user: { id: 0, uuid: "", email: "" },
};

export const QUERY = () => ({
  kind: "TrendsQuery",
  series: [{ kind: "EventsNode", event: "$pageview", custom_name: "Views" }],
  properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }],
  breakdownFilter: { breakdown: "$browser", breakdown_type: "event" },
});
export const INSIGHT_BODY = () => ({ name: "Views", derived_name: "Pageviews", description: "Daily", query: QUERY(), tags: ["growth"], dashboards: [w.dashboardId] });
export const FLAG_BODY = () => ({
  key: "hostile-flag",
  name: "Hostile",
  filters: { groups: [{ properties: [{ key: "email", value: "a@example.com", operator: "icontains", type: "person" }], rollout_percentage: 50 }] },
  tags: ["beta"],
});
export const CONFIG_BODY = () => ({ plugin: w.pluginId, name: "Flatten", description: "Nested", config: { separator: "__" } });
export const dashboard = () => ({ id: String(w.dashboardId) });
export const cohort = () => ({ id: String(w.cohortId) });
export const action = () => ({ id: String(w.actionId) });
export const recording = () => ({ id: w.recordingId });
export const experiment = () => ({ id: String(w.experimentId) });
export const EXPERIMENT_BODY = () => ({
  name: "Hostile experiment",
  description: "Checkout",
  feature_flag_key: "hostile-exp",
  parameters: { feature_flag_variants: [{ key: "control", name: "Control", rollout_percentage: 50 }, { key: "test", name: "Test", rollout_percentage: 50 }] },
  metrics: [{ kind: "ExperimentMetric", metric_type: "funnel", name: "Bought", series: [{ kind: "EventsNode", event: "purchase", properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }] }] }],
  exposure_criteria: { exposure_config: { kind: "ExperimentEventExposureConfig", event: "$pageview", properties: [] }, multiple_variant_handling: "exclude" },
  stats_config: { method: "frequentist" },
});
export const SAVED_METRIC_BODY = () => ({
  name: "Hostile metric",
  description: "Revenue",
  query: { kind: "ExperimentMetric", metric_type: "mean", source: { kind: "EventsNode", event: "purchase", math: "sum", math_property: "amount", properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }] } },
  tags: ["checkout"],
});
export const savedMetric = () => ({ id: String(w.savedMetricId) });
export const HOLDOUT_BODY = () => ({ name: "Hostile holdout", description: "Ten percent", filters: [{ properties: [], rollout_percentage: 10 }] });
export const hogFunction = () => ({ id: w.hogFunctionId });
export const batchExport = () => ({ id: w.batchExportId });
export const BATCH_EXPORT_BODY = () => ({ name: "Hostile export", interval: "hour", destination: { type: "HTTP", config: { url: "https://hooks.example.com/batch", token: "phc_hostile_token" } } });
export const BACKFILL_BODY = () => ({ start_at: "2026-01-01T00:00:00Z", end_at: "2026-01-01T02:00:00Z" });
export const HOG_FUNCTION_BODY = () => ({
  type: "destination",
  name: "Hostile hook",
  description: "Sends signups",
  template_id: "template-webhook",
  inputs: {
    url: { value: "https://hooks.example.com/in" },
    method: { value: "POST" },
    headers: { value: { "X-Api-Key": "k-123", "Content-Type": "application/json" } },
    body: { value: { event: "{event.event}", email: "{person.properties.email}" } },
  },
  filters: { events: [{ id: "signed_up", type: "events" }], properties: [{ key: "plan", value: ["pro"], operator: "exact", type: "event" }] },
});
export const subscription = () => ({ id: String(w.subscriptionId) });
export const alert = () => ({ id: w.alertId });
export const ALERT_BODY = () => ({
  insight: w.insightId,
  name: "Spike",
  threshold: { name: "Spike", configuration: { type: "absolute", bounds: { upper: 100 } } },
  webhook_url: "https://hooks.example.com/alerts",
});
export const SUBSCRIPTION_BODY = () => ({
  insight: w.insightId,
  target_type: "email",
  target_value: "a@example.com,b@example.com",
  frequency: "weekly",
  interval: 2,
  byweekday: ["monday"],
  start_date: "2026-01-05T09:00:00Z",
  title: "Weekly views",
  invite_message: "Hello",
});
export const eaf = () => ({ id: w.eafId });
export const survey = () => ({ id: w.surveyId });
export const SURVEY_BODY = () => ({
  name: "Hostile survey",
  description: "Quarterly",
  type: "popover",
  questions: [
    { type: "rating", question: "How likely?", display: "number", scale: 10, lowerBoundLabel: "No", upperBoundLabel: "Yes" },
    { type: "single_choice", question: "Which plan?", choices: ["Free", "Pro"] },
    { type: "link", question: "Book", link: "https://cal.example/me" },
  ],
  conditions: { url: "/pricing", urlMatchType: "icontains", events: { values: [{ name: "clicked" }] } },
  appearance: { backgroundColor: "#fff", submitButtonText: "Send", position: "right" },
  targeting_flag_filters: { groups: [{ properties: [{ key: "plan", value: ["pro"], operator: "exact", type: "person" }], rollout_percentage: 50 }] },
});
export const EAF_BODY = () => ({ name: "Hostile feature", description: "Night", stage: "beta", documentation_url: "https://docs.example/a", payload: { colour: "dark" } });
export const ACTION_BODY = () => ({
  name: "Hostile action",
  description: "Clicks",
  tags: ["growth"],
  steps: [
    { event: "$autocapture", selector: "div.card > button", text: "Buy", text_matching: "contains", href: "/buy", href_matching: "exact", url: "/pricing", url_matching: "contains" },
    { event: "signed_up", properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }] },
  ],
});
export const COHORT_BODY = () => ({
  name: "Hostile",
  description: "Cohort",
  filters: {
    properties: {
      type: "OR",
      values: [
        {
          type: "AND",
          values: [
            { type: "person", key: "email", operator: "icontains", value: "@acme.com" },
            { type: "cohort", key: "id", value: w.staticCohortId },
            { type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events", time_value: 30, time_interval: "day" },
          ],
        },
      ],
    },
  },
});

/** Every path to a string in `value` (object keys are checked by the edge too, values here). */
export function stringPaths(value: unknown, at: Path = []): Path[] {
  if (typeof value === "string") return [at];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringPaths(item, [...at, index]));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([key, item]) => stringPaths(item, [...at, key]));
  return [];
}

/** A deep copy of `value` with what is at `at` replaced by `replace(old)`. */
export function replaced(value: unknown, at: Path, replace: (old: unknown) => unknown): unknown {
  if (at.length === 0) return replace(value);
  const [head, ...rest] = at;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head!] = replaced(copy[head!], rest, replace);
  return copy;
}

export const withNul = (old: unknown) => `${String(old).slice(0, 1)}\u0000${String(old).slice(1)}`;

/** The test database, once setUpHostileWorld() made it. */
export let db: Database;

/** Everything the management API can write, read back in a stable order. */
export async function snapshot(): Promise<string> {
  const byId = { orderBy: { id: "asc" as const } };
  const rows = await Promise.all([
    db.prisma.dashboard.findMany({ ...byId, omit: { lastAccessedAt: true } }),
    db.prisma.insight.findMany({ ...byId, omit: { lastRefresh: true } }),
    db.prisma.dashboardTile.findMany(byId),
    db.prisma.dashboardText.findMany(byId),
    db.prisma.dashboardCollaborator.findMany(byId),
    db.prisma.sharingConfiguration.findMany(byId),
    db.prisma.featureFlag.findMany(byId),
    db.prisma.pluginConfig.findMany(byId),
    db.prisma.tag.findMany(),
    db.prisma.taggedItem.findMany(),
    db.prisma.user.findMany({ ...byId, omit: { lastLoginAt: true, updatedAt: true } }),
    db.prisma.organization.findMany(),
    db.prisma.organizationInvite.findMany(),
    db.prisma.personalApiKey.findMany({ orderBy: { id: "asc" }, omit: { lastUsedAt: true } }),
    db.prisma.project.findMany(byId),
    db.prisma.cohort.findMany(byId),
    db.prisma.action.findMany(byId),
    db.prisma.cohortPerson.findMany({ orderBy: [{ cohortId: "asc" }, { personId: "asc" }] }),
    db.prisma.person.findMany({ ...byId, include: { distinctIds: true } }),
    db.prisma.personDeletion.findMany(byId),
    db.prisma.recording.findMany({ orderBy: [{ projectId: "asc" }, { sessionId: "asc" }], omit: { updatedAt: true } }),
  ]);
  return JSON.stringify(rows, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
}

/** Creates the database and what the cases name (call in beforeAll). */
export async function setUpHostileWorld(): Promise<void> {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const boot = await bootstrap(db.prisma, { email: "alice@example.com", password: "pw12345678" });
  Object.assign(w, { projectId: boot.project_id, projectApiKey: boot.project_api_key, organizationId: boot.organization_id, key: boot.personal_api_key, user: boot.user });
  w.carolUuid = (await createUser(db.prisma, { email: "carol@example.com", password: "pw12345678", organizationId: boot.organization_id })).uuid;
  const board = await db.prisma.dashboard.create({ data: { projectId: w.projectId, name: "Board", restrictionLevel: 37, createdById: boot.user.id } });
  w.dashboardId = board.id;
  const insight = await db.prisma.insight.create({ data: { projectId: w.projectId, shortId: "abcdefgh", name: "Views", query: QUERY(), createdById: boot.user.id } });
  w.insightId = insight.id;
  w.tileId = (await db.prisma.dashboardTile.create({ data: { dashboardId: board.id, insightId: insight.id } })).id;
  w.flagId = (await db.prisma.featureFlag.create({ data: { projectId: w.projectId, key: "existing" } })).id;
  w.pluginId = (await db.prisma.plugin.findUniqueOrThrow({ where: { key: "flatten" } })).id;
  w.configId = (await db.prisma.pluginConfig.create({ data: { projectId: w.projectId, pluginId: w.pluginId, enabled: true, config: {} } })).id;
  await db.prisma.person.create({ data: { projectId: w.projectId, uuid: w.personUuid, properties: { plan: "free" }, distinctIds: { create: { projectId: w.projectId, distinctId: "d1" } } } });
  w.staticCohortId = (await db.prisma.cohort.create({ data: { projectId: w.projectId, name: "Static", isStatic: true } })).id;
  w.actionId = (await db.prisma.action.create({ data: { projectId: w.projectId, name: "Existing", steps: [{ event: "$pageview" }] } })).id;
  const experimentFlag = await db.prisma.featureFlag.create({
    data: { projectId: w.projectId, key: "existing-exp", filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] } } },
  });
  w.experimentId = (await db.prisma.experiment.create({ data: { projectId: w.projectId, name: "Existing", featureFlagId: experimentFlag.id } })).id;
  w.holdoutId = (await db.prisma.experimentHoldout.create({ data: { projectId: w.projectId, name: "Existing", filters: [{ properties: [], rollout_percentage: 10 }] } })).id;
  w.spareHoldoutId = (await db.prisma.experimentHoldout.create({ data: { projectId: w.projectId, name: "Spare", filters: [{ properties: [], rollout_percentage: 10 }] } })).id;
  const savedQuery = SAVED_METRIC_BODY().query;
  w.savedMetricId = (await db.prisma.experimentSavedMetric.create({ data: { projectId: w.projectId, name: "Existing metric", query: savedQuery } })).id;
  w.spareSavedMetricId = (await db.prisma.experimentSavedMetric.create({ data: { projectId: w.projectId, name: "Spare metric", query: savedQuery } })).id;
  await db.prisma.hogFunction.create({ data: { id: w.hogFunctionId, projectId: w.projectId, name: "Existing hook", inputs: { url: { value: "https://hooks.example.com/x" } } } });
  w.subscriptionId = (
    await db.prisma.subscription.create({
      data: { projectId: w.projectId, contentType: "insight", insightId: insight.id, targetType: "email", targetValue: "a@example.com", frequency: "daily", startDate: new Date("2026-01-01T09:00:00Z"), nextDeliveryDate: new Date("2099-01-01T09:00:00Z") },
    })
  ).id;
  await db.prisma.alert.create({
    data: { id: w.alertId, projectId: w.projectId, insightId: insight.id, name: "Existing", threshold: { configuration: { type: "absolute", bounds: { upper: 1 } } }, condition: { type: "absolute_value" }, config: { type: "TrendsAlertConfig", series_index: 0 } },
  });
  for (const [id, name] of [[w.batchExportId, "Existing export"], [w.spareBatchExportId, "Spare export"]] as const) {
    await db.prisma.batchExport.create({ data: { id, projectId: w.projectId, name, destinationType: "HTTP", destinationConfig: { url: "https://hooks.example.com/batch" }, paused: true } });
  }
  await db.prisma.batchExportBackfill.create({ data: { id: w.batchExportBackfillId, batchExportId: w.batchExportId, startAt: new Date("2026-01-01T00:00:00Z"), endAt: new Date("2026-01-01T01:00:00Z") } });
  await db.prisma.batchExportRun.create({
    data: { id: w.batchExportRunId, batchExportId: w.batchExportId, backfillId: w.batchExportBackfillId, status: "Failed", dataIntervalStart: new Date("2026-01-01T00:00:00Z"), dataIntervalEnd: new Date("2026-01-01T01:00:00Z") },
  });
  const eafFlag = await db.prisma.featureFlag.create({ data: { projectId: w.projectId, key: "existing-eaf", filters: { groups: [{ properties: [], rollout_percentage: 0 }] } } });
  w.surveyId = (await db.prisma.survey.create({ data: { id: "0190f1c2-0000-4000-8000-00000005e001", projectId: w.projectId, name: "Existing", type: "popover", questions: [] } })).id;
  w.eafId = (await db.prisma.earlyAccessFeature.create({ data: { id: "0190f1c2-0000-4000-8000-0000000eaf01", projectId: w.projectId, featureFlagId: eafFlag.id, name: "Existing", stage: "beta" } })).id;
  w.cohortId = (await db.prisma.cohort.create({ data: { projectId: w.projectId, name: "Dynamic", filters: { properties: { type: "AND", values: [] } } } })).id;
  // A recording, stored as /s/ stores one.
  const items = pageItems(Date.parse("2026-11-20T10:00:00Z"));
  const { chunks } = parseSnapshotRequest([snapshotEvent({ token: w.projectApiKey, sessionId: w.recordingId, distinctId: "d1", items })], null);
  await recordingStore(db).writeChunks(w.projectId, chunks, mergeChunk);
  const other = await bootstrap(db.prisma, { email: "mallory@example.com", password: "pw12345678", organization: "Elsewhere" });
  w.otherProjectId = other.project_id;
}

export const tearDownHostileWorld = () => closeDb();
