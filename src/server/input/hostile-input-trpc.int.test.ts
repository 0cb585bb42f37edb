/**
 * Hostile input at the tRPC edge (src/test-support/hostile-input.ts says what every case gets). A
 * procedure that takes input must be in TRPC_CASES, or, with the reason, in TRPC_EXEMPT.
 */
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter, createCaller } from "@/server/http/trpc/root";
import { testDbKind } from "@/test-support/db";
import { NUL_MESSAGE } from "./nul";
import { ACTION_BODY, COHORT_BODY, CONFIG_BODY, EXPERIMENT_BODY, SAVED_METRIC_BODY, FLAG_BODY, HUGE_IDS, INSIGHT_BODY, QUERY, db, replaced, setUpHostileWorld, snapshot, stringPaths, tearDownHostileWorld, w, withNul, HOG_FUNCTION_BODY, EAF_BODY, SURVEY_BODY, SUBSCRIPTION_BODY, ALERT_BODY, BATCH_EXPORT_BODY, BACKFILL_BODY, type Path } from "@/test-support/hostile-input";

beforeAll(setUpHostileWorld);
afterAll(tearDownHostileWorld);

interface TrpcCase {
  /** `router.procedure` (or `router.sub.procedure`). */
  procedure: string;
  input: () => Record<string, unknown>;
  /** Paths to ids in the input (`projectId` is added for every project procedure). */
  ids?: Path[];
  /** Procedures that need no project. */
  noProject?: boolean;
}

/**
 * Procedures that take input but are not in TRPC_CASES, each with why. Empty: every one is
 * covered. A procedure belongs here only when a hostile call cannot be made meaningful (say,
 * its input cannot carry a string or an id) — not because its row is missing.
 */
const TRPC_EXEMPT: { procedure: string; reason: string }[] = [];
/** Not covered yet, so the guard names them (as the REST table's NOT_COVERED). Empty. */
const TRPC_NOT_COVERED: string[] = [];

/** Every procedure of the app router that declares an input (`.input(...)`, projectProcedure's projectId included). */
function proceduresTakingInput(): string[] {
  // At run time tRPC 11 keeps them flat, by dotted path (`dashboards.tiles.update`); its types say nested.
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { inputs: unknown[] } }>;
  return Object.entries(procedures)
    .filter(([, procedure]) => procedure._def.inputs.length > 0)
    .map(([name]) => name);
}

const TRPC_CASES: TrpcCase[] = [
  { procedure: "actions.list", input: () => ({ search: "action", limit: 10 }) },
  { procedure: "actions.get", input: () => ({ id: w.actionId }), ids: [["id"]] },
  { procedure: "actions.create", input: () => ({ action: ACTION_BODY() }) },
  { procedure: "actions.update", input: () => ({ id: w.actionId, patch: { ...ACTION_BODY(), name: "Hostile renamed" } }), ids: [["id"]] },
  { procedure: "actions.delete", input: () => ({ id: w.actionId }), ids: [["id"]] },
  {
    procedure: "recordings.list",
    input: () => ({
      date_from: "-7d",
      date_to: "2026-12-31",
      person_uuid: w.personUuid,
      distinct_ids: ["d1"],
      session_ids: [w.recordingId],
      having_predicates: [{ key: "duration", operator: "gt", value: 1, type: "recording" }],
      console_log_filters: [{ key: "level", value: ["error"], operator: "exact", type: "log_entry" }],
      events: [{ id: "$pageview", type: "events", properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] }],
      operand: "AND",
      order: "start_time",
      order_direction: "DESC",
      limit: 10,
      offset: 0,
    }),
  },
  { procedure: "recordings.get", input: () => ({ id: w.recordingId }) },
  { procedure: "recordings.playback", input: () => ({ id: w.recordingId }) },
  { procedure: "recordings.delete", input: () => ({ id: "hostile-spare" }) },
  { procedure: "recordings.settings", input: () => ({}) },
  { procedure: "recordings.usage", input: () => ({}) },
  { procedure: "surveys.list", input: () => ({ search: "survey", archived: "false", limit: 10 }) },
  { procedure: "surveys.get", input: () => ({ id: w.surveyId }) },
  { procedure: "surveys.create", input: () => ({ survey: SURVEY_BODY() }) },
  { procedure: "surveys.update", input: () => ({ id: w.surveyId, patch: { ...SURVEY_BODY(), name: "Hostile renamed" } }) },
  { procedure: "surveys.delete", input: () => ({ id: "0190f1c2-0000-4000-8000-00000005e0ff" }) },
  { procedure: "surveys.results", input: () => ({ id: w.surveyId, query: { date_from: "2026-11-01", properties: JSON.stringify([{ key: "plan", value: ["pro"], operator: "exact", type: "person" }]) } }) },
  { procedure: "earlyAccess.list", input: () => ({ stage: "beta", limit: 10 }) },
  { procedure: "earlyAccess.create", input: () => ({ feature: EAF_BODY() }) },
  { procedure: "earlyAccess.update", input: () => ({ id: w.eafId, patch: { ...EAF_BODY(), name: "Hostile renamed" } }) },
  { procedure: "earlyAccess.delete", input: () => ({ id: "0190f1c2-0000-4000-8000-0000000eafff" }) },
  { procedure: "earlyAccess.enrolled", input: () => ({ id: w.eafId }) },
  { procedure: "account.switchProject", input: () => ({ projectId: w.projectId }), ids: [["projectId"]], noProject: true },
  { procedure: "account.createProject", input: () => ({ name: "Second", organizationId: w.organizationId }), noProject: true },
  { procedure: "account.createPersonalApiKey", input: () => ({ label: "ci", scopes: ["dashboard:read"], projectId: w.projectId }), ids: [["projectId"]], noProject: true },
  { procedure: "account.deletePersonalApiKey", input: () => ({ id: "0190f1c2-0000-7000-8000-00000000e5e5" }), noProject: true },
  { procedure: "auth.invite", input: () => ({ token: "abcdefghijklmnopqrstuvwxyz" }), noProject: true },
  { procedure: "auth.signUp", input: () => ({ email: "new@example.com", password: "pw12345678", firstName: "New", organization: "Org", project: "Proj" }), noProject: true },
  { procedure: "auth.requestPasswordReset", input: () => ({ email: "nobody@example.com" }), noProject: true },
  { procedure: "auth.passwordReset", input: () => ({ token: "abcdefghijklmnopqrstuvwxyz" }), noProject: true },
  { procedure: "auth.resetPassword", input: () => ({ token: "abcdefghijklmnopqrstuvwxyz", password: "pw12345678" }), noProject: true },
  { procedure: "auth.acceptInvite", input: () => ({ token: "abcdefghijklmnopqrstuvwxyz", password: "pw12345678", firstName: "New" }), noProject: true },
  { procedure: "account.project", input: () => ({}) },
  { procedure: "organization.invite", input: () => ({ email: "invitee@example.com", level: "member" }) },
  { procedure: "organization.revokeInvite", input: () => ({ inviteId: "0190f1c2-0000-7000-8000-00000000e5e5" }) },
  { procedure: "dashboards.list", input: () => ({ search: "board", tags: ["team"] }) },
  { procedure: "dashboards.get", input: () => ({ dashboardId: w.dashboardId }), ids: [["dashboardId"]] },
  {
    procedure: "dashboards.results",
    input: () => ({ dashboardId: w.dashboardId, filters: { date_from: "-7d", properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] }, tileIds: [1] }),
    ids: [["dashboardId"], ["tileIds", 0]],
  },
  { procedure: "dashboards.create", input: () => ({ name: "Copy", description: "About", tags: ["team"], use_dashboard: w.dashboardId }), ids: [["use_dashboard"]] },
  { procedure: "dashboards.update", input: () => ({ dashboardId: w.dashboardId, name: "Board", description: "About", tags: ["team"] }), ids: [["dashboardId"]] },
  {
    procedure: "dashboards.tiles.addInsight",
    input: () => ({ dashboardId: w.dashboardId, insight: { name: "Views", description: "Daily", query: QUERY() } }),
    ids: [["dashboardId"]],
  },
  {
    procedure: "dashboards.tiles.update",
    input: () => ({ dashboardId: w.dashboardId, tiles: [{ id: w.tileId, color: "blue", text: { body: "Hello" } }] }),
    ids: [["dashboardId"], ["tiles", 0, "id"]],
  },
  { procedure: "dashboards.collaborators.list", input: () => ({ dashboardId: w.dashboardId }), ids: [["dashboardId"]] },
  { procedure: "dashboards.collaborators.add", input: () => ({ dashboardId: w.dashboardId, user_uuid: w.carolUuid, level: 37 }), ids: [["dashboardId"]] },
  { procedure: "dashboards.collaborators.remove", input: () => ({ dashboardId: w.dashboardId, userUuid: w.carolUuid }), ids: [["dashboardId"]] },
  { procedure: "dashboards.sharing.get", input: () => ({ dashboardId: w.dashboardId }), ids: [["dashboardId"]] },
  { procedure: "dashboards.sharing.update", input: () => ({ dashboardId: w.dashboardId, enabled: true, settings: { whitelabel: "yes" } }), ids: [["dashboardId"]] },
  { procedure: "dashboards.sharing.refresh", input: () => ({ dashboardId: w.dashboardId }), ids: [["dashboardId"]] },
  { procedure: "destinations.list", input: () => ({ search: "hook", type: "destination" }) },
  { procedure: "destinations.get", input: () => ({ id: w.hogFunctionId }) },
  { procedure: "destinations.create", input: () => ({ destination: HOG_FUNCTION_BODY() }) },
  { procedure: "destinations.update", input: () => ({ id: w.hogFunctionId, patch: HOG_FUNCTION_BODY() }) },
  { procedure: "destinations.deliveries", input: () => ({ id: w.hogFunctionId, query: { level: "failed", search: "x" } }) },
  { procedure: "destinations.totals", input: () => ({ id: w.hogFunctionId }) },
  { procedure: "destinations.delete", input: () => ({ id: w.hogFunctionId }) },
  { procedure: "alerts.list", input: () => ({ insight: w.insightId }), ids: [["insight"]] },
  { procedure: "alerts.get", input: () => ({ id: w.alertId, checksLimit: 5 }) },
  { procedure: "alerts.create", input: () => ({ alert: ALERT_BODY() }), ids: [["alert", "insight"]] },
  { procedure: "alerts.update", input: () => ({ id: w.alertId, patch: ALERT_BODY() }), ids: [["patch", "insight"]] },
  { procedure: "alerts.delete", input: () => ({ id: w.alertId }) },
  { procedure: "alerts.checkNow", input: () => ({ id: w.alertId }) },
  { procedure: "batchExports.list", input: () => ({}) },
  { procedure: "batchExports.get", input: () => ({ id: w.batchExportId }) },
  { procedure: "batchExports.create", input: () => ({ batchExport: BATCH_EXPORT_BODY() }) },
  { procedure: "batchExports.update", input: () => ({ id: w.batchExportId, patch: BATCH_EXPORT_BODY() }) },
  { procedure: "batchExports.delete", input: () => ({ id: w.spareBatchExportId }) },
  { procedure: "batchExports.runs", input: () => ({ id: w.batchExportId, query: { limit: 10 } }) },
  { procedure: "batchExports.retryRun", input: () => ({ id: w.batchExportId, runId: w.batchExportRunId }) },
  { procedure: "batchExports.backfills", input: () => ({ id: w.batchExportId }) },
  { procedure: "batchExports.backfill", input: () => ({ id: w.batchExportId, backfill: BACKFILL_BODY() }) },
  { procedure: "subscriptions.list", input: () => ({ insight: w.insightId, target_type: "email" }), ids: [["insight"]] },
  { procedure: "subscriptions.get", input: () => ({ id: w.subscriptionId }), ids: [["id"]] },
  { procedure: "subscriptions.create", input: () => ({ subscription: SUBSCRIPTION_BODY() }), ids: [["subscription", "insight"]] },
  { procedure: "subscriptions.update", input: () => ({ id: w.subscriptionId, patch: SUBSCRIPTION_BODY() }), ids: [["id"], ["patch", "insight"]] },
  { procedure: "subscriptions.testDelivery", input: () => ({ id: w.subscriptionId }), ids: [["id"]] },
  { procedure: "subscriptions.delete", input: () => ({ id: w.subscriptionId }) },
  { procedure: "cohorts.list", input: () => ({ search: "cohort", type: "dynamic" }) },
  { procedure: "cohorts.get", input: () => ({ id: w.cohortId }), ids: [["id"]] },
  { procedure: "cohorts.create", input: () => ({ cohort: COHORT_BODY() }), ids: [["cohort", "filters", "properties", "values", 0, "values", 1, "value"]] },
  { procedure: "cohorts.update", input: () => ({ id: w.cohortId, patch: COHORT_BODY() }), ids: [["id"], ["patch", "filters", "properties", "values", 0, "values", 1, "value"]] },
  { procedure: "cohorts.delete", input: () => ({ id: w.cohortId }), ids: [["id"]] },
  { procedure: "cohorts.persons", input: () => ({ id: w.cohortId, limit: 10 }), ids: [["id"]] },
  { procedure: "cohorts.addPersons", input: () => ({ id: w.staticCohortId, person_ids: [w.personUuid] }), ids: [["id"]] },
  { procedure: "cohorts.removePerson", input: () => ({ id: w.staticCohortId, person_id: w.personUuid }), ids: [["id"]] },
  { procedure: "events.list", input: () => ({ event: "$pageview", distinctId: "d1" }) },
  { procedure: "events.get", input: () => ({ id: "0190f1c2-0000-7000-8000-00000000e5e5" }) },
  { procedure: "events.list", input: () => ({ personId: "1", properties: [{ type: "cohort", cohortId: 0 }] }), ids: [["properties", 0, "cohortId"]] },
  { procedure: "events.cohorts", input: () => ({}) },
  { procedure: "events.count", input: () => ({ event: "$pageview", distinctId: "d1", properties: [{ type: "cohort", cohortId: 0 }] }), ids: [["properties", 0, "cohortId"]] },
  { procedure: "events.values", input: () => ({ key: "$browser", prefix: "Ch", eventName: "$pageview" }) },
  { procedure: "web.liveVisitors", input: () => ({ host: "example.com" }) },
  { procedure: "install.sendTestEvent", input: () => ({ origin: "https://burrow.example.com" }) },
  { procedure: "account.updateProject", input: () => ({ name: "Renamed", enrich_events: false }) },
  { procedure: "account.changePassword", input: () => ({ currentPassword: "pw12345678", newPassword: "pw87654321" }), noProject: true },
  { procedure: "organization.members", input: () => ({}) },
  { procedure: "organization.invites", input: () => ({}) },
  { procedure: "dashboards.tags", input: () => ({}) },
  { procedure: "dashboards.templates", input: () => ({}) },
  { procedure: "definitions.events", input: () => ({ search: "page", limit: 5 }) },
  { procedure: "definitions.properties", input: () => ({ search: "bro", type: "event", eventNames: ["$pageview"] }) },
  { procedure: "definitions.values", input: () => ({ key: "$browser", type: "event", search: "Ch", eventName: "$pageview" }) },
  { procedure: "experiments.list", input: () => ({ search: "exp", archived: false }) },
  { procedure: "experiments.get", input: () => ({ id: w.experimentId }), ids: [["id"]] },
  { procedure: "experiments.create", input: () => ({ experiment: EXPERIMENT_BODY() }) },
  { procedure: "experiments.update", input: () => ({ id: w.experimentId, patch: { ...EXPERIMENT_BODY(), feature_flag_key: undefined } }), ids: [["id"]] },
  { procedure: "experiments.ship", input: () => ({ id: w.experimentId, ship: { variant_key: "test", conclusion_comment: "Shipped" } }), ids: [["id"]] },
  { procedure: "experiments.results", input: () => ({ id: w.experimentId }), ids: [["id"]] },
  { procedure: "experiments.savedMetrics", input: () => ({}) },
  { procedure: "experiments.createSavedMetric", input: () => ({ metric: SAVED_METRIC_BODY() }) },
  { procedure: "experiments.updateSavedMetric", input: () => ({ id: w.savedMetricId, patch: SAVED_METRIC_BODY() }), ids: [["id"]] },
  { procedure: "experiments.savedMetricUsage", input: () => ({ id: w.savedMetricId }), ids: [["id"]] },
  { procedure: "experiments.deleteSavedMetric", input: () => ({ id: w.spareSavedMetricId }), ids: [["id"]] },
  { procedure: "flags.list", input: () => ({ search: "flag", tags: '["beta"]' }) },
  { procedure: "flags.get", input: () => ({ id: w.flagId }), ids: [["id"]] },
  { procedure: "flags.create", input: () => ({ flag: FLAG_BODY() }) },
  { procedure: "flags.update", input: () => ({ id: w.flagId, patch: FLAG_BODY() }), ids: [["id"]] },
  { procedure: "flags.delete", input: () => ({ id: w.flagId }), ids: [["id"]] },
  { procedure: "flags.activity", input: () => ({ id: w.flagId }), ids: [["id"]] },
  { procedure: "flags.reach", input: () => ({ filters: FLAG_BODY().filters }) },
  { procedure: "flags.cohortOptions", input: () => ({}) },
  { procedure: "flags.testGroupTypes", input: () => ({ id: w.flagId }), ids: [["id"]] },
  {
    procedure: "flags.testForUser",
    input: () => ({ id: w.flagId, distinctId: "d1", personProperties: { email: "a@example.com" }, groups: { company: "acme" }, groupProperties: { company: { plan: "pro" } } }),
    ids: [["id"]],
  },
  { procedure: "insights.list", input: () => ({ search: "views", short_id: "abcdefgh" }) },
  { procedure: "insights.get", input: () => ({ insightId: w.insightId, dashboardId: w.dashboardId }), ids: [["insightId"], ["dashboardId"]] },
  { procedure: "insights.compute", input: () => ({ insightId: w.insightId, dashboardId: w.dashboardId }), ids: [["insightId"], ["dashboardId"]] },
  { procedure: "insights.compute", input: () => ({ query: QUERY() }) },
  { procedure: "insights.chartPng", input: () => ({ insightId: w.insightId }), ids: [["insightId"]] },
  { procedure: "query.run", input: () => ({ request: { query: QUERY(), client_query_id: "q1" } }) },
  { procedure: "query.actors", input: () => ({ source: { kind: "InsightActorsQuery", source: QUERY(), day: "2024-01-01" }, search: "a@example.com", orderBy: ["created_at DESC"] }) },
  { procedure: "query.run", input: () => ({ request: { query: { kind: "HogQLQuery", query: "SELECT event, count() FROM events WHERE event = 'x' GROUP BY event" } } }) },
  { procedure: "insights.create", input: INSIGHT_BODY, ids: [["dashboards", 0]] },
  { procedure: "insights.update", input: () => ({ insightId: w.insightId, ...INSIGHT_BODY() }), ids: [["insightId"], ["dashboards", 0]] },
  { procedure: "transformations.create", input: CONFIG_BODY, ids: [["plugin"]] },
  { procedure: "transformations.update", input: () => ({ id: w.configId, changes: CONFIG_BODY() }), ids: [["id"], ["changes", "plugin"]] },
  { procedure: "transformations.delete", input: () => ({ id: w.configId }), ids: [["id"]] },
  { procedure: "transformations.rearrange", input: () => ({ orders: { [String(w.configId)]: 0 } }) },
  { procedure: "transformations.activity", input: () => ({ id: w.configId }), ids: [["id"]] },
  { procedure: "transformations.plugins", input: () => ({}) },
  { procedure: "transformations.list", input: () => ({}) },
  { procedure: "transformations.testChain", input: () => ({ event: { event: "signup", distinct_id: "d1", properties: { plan: "pro" }, timestamp: "2026-01-01T00:00:00Z" } }) },
  { procedure: "persons.list", input: () => ({ search: "a@example.com", distinctId: "d1", email: "a@example.com", properties: JSON.stringify([{ key: "plan", value: "pro", type: "person" }]) }) },
  { procedure: "persons.get", input: () => ({ id: w.personUuid }) },
  { procedure: "persons.update", input: () => ({ id: w.personUuid, properties: { plan: "pro" } }) },
  { procedure: "persons.setProperty", input: () => ({ id: w.personUuid, key: "plan", value: "team" }) },
  { procedure: "persons.deleteProperty", input: () => ({ id: w.personUuid, key: "plan" }) },
  { procedure: "persons.delete", input: () => ({ id: w.personUuid, deleteEvents: true }) },
  { procedure: "persons.deletion", input: () => ({ id: w.personUuid }) },
  { procedure: "persons.cohorts", input: () => ({ id: w.personUuid }) },
  {
    procedure: "transformations.dryRun",
    input: () => ({ id: w.configId, job: { type: "dry_run", payload: { events: [{ event: "signup", distinct_id: "d1", properties: { plan: "pro" } }] } } }),
    ids: [["id"]],
  },
];

async function callTrpc(testCase: TrpcCase, input: Record<string, unknown>): Promise<{ code: string; message: string } | "ok"> {
  const api: any = createCaller({ db, headers: new Headers(), user: { ...w.user, firstName: "", currentProjectId: w.projectId } });
  const procedure = testCase.procedure.split(".").reduce((node, name) => node[name], api);
  try {
    await procedure(input);
    return "ok";
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe(`hostile input at the tRPC edge (${testDbKind})`, () => {
  it("covers every procedure that takes input", () => {
    const covered = new Set([...TRPC_CASES.map((c) => c.procedure), ...TRPC_EXEMPT.map((e) => e.procedure), ...TRPC_NOT_COVERED]);
    expect([...covered].sort()).toEqual(proceduresTakingInput().sort());
  });

  for (const testCase of TRPC_CASES) {
    const full = () => (testCase.noProject ? testCase.input() : { projectId: w.projectId, ...testCase.input() });
    const ids = [...(testCase.noProject ? [] : [["projectId"]]), ...(testCase.ids ?? [])];

    it(`${testCase.procedure}: NUL in any string and ids beyond the id column are 400s, and nothing is stored`, async () => {
      const before = await snapshot();
      const input = full();
      for (const at of stringPaths(input)) {
        const answer = await callTrpc(testCase, replaced(input, at, withNul) as Record<string, unknown>);
        expect([at, answer]).toEqual([at, { code: "BAD_REQUEST", message: NUL_MESSAGE }]);
      }
      for (const at of ids) {
        for (const id of HUGE_IDS) {
          const answer = await callTrpc(testCase, replaced(input, at, () => id) as Record<string, unknown>);
          expect([at, id, answer]).toEqual([at, id, expect.objectContaining({ code: "BAD_REQUEST" })]);
        }
      }
      expect(await snapshot()).toBe(before);
    });
  }

  it("counts hostile calls against the session's API rate limit: past it, TOO_MANY_REQUESTS before any input is read, and nothing is stored", async () => {
    const before = await snapshot();
    const lifted = process.env.BURROW_API_RATE_LIMIT_PER_MINUTE;
    process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "2";
    try {
      const create = TRPC_CASES.find((c) => c.procedure === "flags.create")!;
      const hostile = { projectId: w.projectId, flag: { ...FLAG_BODY(), key: withNul("k") } };
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await callTrpc(create, hostile));
      expect(answers.map((answer) => (typeof answer === "string" ? answer : answer.code))).toEqual(["BAD_REQUEST", "BAD_REQUEST", "TOO_MANY_REQUESTS", "TOO_MANY_REQUESTS"]);
    } finally {
      process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = lifted;
    }
    expect(await snapshot()).toBe(before);
  });

  it("answers another project's id with FORBIDDEN or NOT_FOUND, on every project procedure, and stores nothing", async () => {
    const before = await snapshot();
    const reached: string[] = [];
    for (const testCase of TRPC_CASES.filter((c) => !c.noProject)) {
      const answer = await callTrpc(testCase, { ...testCase.input(), projectId: w.otherProjectId });
      if (answer === "ok" || (answer.code !== "FORBIDDEN" && answer.code !== "NOT_FOUND")) reached.push(`${testCase.procedure}: ${answer === "ok" ? "ok" : answer.code}`);
    }
    expect(reached).toEqual([]);
    expect(await snapshot()).toBe(before);
  });

  it("refuses bad recordings filters and huge recording ids with BAD_REQUEST or NOT_FOUND, never a 500", async () => {
    const list = TRPC_CASES.find((c) => c.procedure === "recordings.list")!;
    for (const bad of [
      { events: [{ id: "" }] },
      { events: [{ id: "$pageview", type: "actions" }] },
      { events: [{ id: "$pageview", properties: [{ key: "p", operator: "regex", value: "((" }] }] },
      { events: Array.from({ length: 11 }, () => ({ id: "$pageview" })) },
      { having_predicates: [{ key: "nonsense", operator: "gt", value: 1 }] },
      { limit: 2 ** 40 },
      { offset: -1 },
    ]) {
      expect([bad, await callTrpc(list, { projectId: w.projectId, ...list.input(), ...bad })]).toEqual([bad, expect.objectContaining({ code: "BAD_REQUEST" })]);
    }
    // Count filters on INTEGER columns compare as numbers: a fractional or huge threshold is no error.
    for (const value of [1.5, 1e10, 1e300]) {
      expect([value, await callTrpc(list, { projectId: w.projectId, ...list.input(), having_predicates: [{ key: "click_count", operator: "gte", value }] })]).toEqual([value, "ok"]);
    }
    for (const procedure of ["recordings.get", "recordings.playback", "recordings.delete"]) {
      const testCase = TRPC_CASES.find((c) => c.procedure === procedure)!;
      for (const id of [String(2 ** 40), "x".repeat(201), "../etc/passwd", ""]) {
        const answer = await callTrpc(testCase, { projectId: w.projectId, id });
        expect([procedure, id.slice(0, 20), answer]).toEqual([procedure, id.slice(0, 20), expect.objectContaining({ code: expect.stringMatching(/^(BAD_REQUEST|NOT_FOUND)$/) })]);
      }
    }
  });

  it("refuses rearranging a config id beyond the id column", async () => {
    const rearrange = TRPC_CASES.find((c) => c.procedure === "transformations.rearrange")!;
    for (const id of ["2147483648", "9007199254740992"]) {
      expect(await callTrpc(rearrange, { projectId: w.projectId, orders: { [id]: 0 } })).toMatchObject({ code: "BAD_REQUEST" });
    }
  });
});

