/**
 * Every management route, called through its real Next route handler on a real database:
 * no key and a wrong key get 401, a key without the scope gets 403, a key of another
 * organization or limited to another project gets 403, an unknown project 404 — each
 * with PostHog's error body. A route added to the route table (src/server/http/rest/routes.ts) or
 * under src/app/api must be added to ROUTES.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey, createUser } from "@/server/accounts/service";
import type { Scope } from "@/server/auth/contract";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { insertEvents } from "@/server/db/events";
import { apiRouteHandlers, apiRoutePatterns } from "@/test-support/rest-routes";
import { createCaller } from "@/server/http/trpc/root";

type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

interface RouteCase {
  /** The route under /api/ as `apiRoutePatterns` names it (`projects/:project_id/dashboards/:id`). */
  route: string;
  /** Path with `{project}` where the project id goes. */
  path: string;
  params: (project: string) => Record<string, string>;
  /** Per method: the scope it needs (null: any authenticated caller), and a valid body. */
  methods: Partial<Record<Method, { scope: Scope | null; body?: unknown; ok: number }>>;
  /** Puts in place what a successful call needs (run before every call). */
  prepare?: (project: string, db: Database) => Promise<void>;
  /** Names no project: the other-organization, project-limit and unknown-project checks do not apply. */
  noProject?: boolean;
}

/** An event stored in both projects, for the routes that read one. */
const EVENT_UUID = "0190f1c2-0000-7000-8000-00000000e5e5";
/** A feature flag in each project (and `@current`): project id → flag id, set in beforeAll. */
const FLAG_IDS = new Map<string, number>();
let flagKeys = 0;

/** A restricted dashboard in each project (and `@current`): project id → dashboard id, set in beforeAll. */
const DASHBOARD_IDS = new Map<string, number>();
/** A member of the organization whom the collaborator routes add and remove. */
let carolUuid = "";

/** The dashboard, collaborator and sharing routes under one prefix. */
function dashboardRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const base = `${prefix}/:project_id/dashboards`;
  const at = `/api/${prefix}/{project}/dashboards`;
  const withId = (project: string) => ({ project_id: project, id: String(DASHBOARD_IDS.get(project) ?? 0) });
  /** Carol's collaborator row as the call needs it: absent before an add, present before a remove. */
  const carolCollaborates = (wanted: boolean) => async (project: string, db: Database) => {
    const dashboardId = DASHBOARD_IDS.get(project);
    if (!dashboardId) return;
    const carol = await db.prisma.user.findUniqueOrThrow({ where: { uuid: carolUuid } });
    await db.prisma.dashboardCollaborator.deleteMany({ where: { dashboardId, userId: carol.id } });
    if (wanted) await db.prisma.dashboardCollaborator.create({ data: { dashboardId, userId: carol.id, level: 37 } });
  };
  return [
    {
      route: base,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      methods: { GET: { scope: "dashboard:read", ok: 200 }, POST: { scope: "dashboard:write", body: { name: "matrix" }, ok: 201 } },
    },
    {
      route: `${base}/:id`,
      path: `${at}/{dashboard}/`,
      params: withId,
      methods: {
        GET: { scope: "dashboard:read", ok: 200 },
        PATCH: { scope: "dashboard:write", body: { name: "renamed" }, ok: 200 },
        PUT: { scope: "dashboard:write", body: { description: "put" }, ok: 200 },
        // PostHog forbids hard deletes: 405 with an empty body once the caller may write.
        DELETE: { scope: "dashboard:write", ok: 405 },
      },
    },
    {
      route: `${base}/:id/collaborators`,
      path: `${at}/{dashboard}/collaborators/`,
      params: withId,
      prepare: carolCollaborates(false),
      methods: {
        GET: { scope: "dashboard:read", ok: 200 },
        POST: {
          scope: "dashboard:write",
          get body() {
            return { user_uuid: carolUuid, level: 37 };
          },
          ok: 201,
        },
      },
    },
    {
      route: `${base}/:id/collaborators/:user_uuid`,
      path: `${at}/{dashboard}/collaborators/{carol}/`,
      params: (project) => ({ ...withId(project), user_uuid: carolUuid }),
      prepare: carolCollaborates(true),
      methods: { DELETE: { scope: "dashboard:write", ok: 204 } },
    },
    {
      route: `${base}/:id/sharing`,
      path: `${at}/{dashboard}/sharing/`,
      params: withId,
      methods: {
        GET: { scope: "sharing_configuration:read", ok: 200 },
        PATCH: { scope: "sharing_configuration:write", body: { enabled: true }, ok: 200 },
      },
    },
    {
      route: `${base}/:id/sharing/refresh`,
      path: `${at}/{dashboard}/sharing/refresh/`,
      params: withId,
      methods: { POST: { scope: "sharing_configuration:write", ok: 200 } },
    },
  ];
}

/** An insight in each project (and `@current`): project id → insight id, set in beforeAll. */
const INSIGHT_IDS = new Map<string, number>();

/** The insight routes under one prefix. */
function insightRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const query = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "-7d" } };
  return [
    {
      route: `${prefix}/:project_id/insights`,
      path: `/api/${prefix}/{project}/insights/`,
      params: (project) => ({ project_id: project }),
      methods: { GET: { scope: "insight:read", ok: 200 }, POST: { scope: "insight:write", body: { name: "matrix", query }, ok: 201 } },
    },
    {
      route: `${prefix}/:project_id/insights/:id`,
      path: `/api/${prefix}/{project}/insights/{insight}/`,
      params: (project) => ({ project_id: project, id: String(INSIGHT_IDS.get(project) ?? 0) }),
      methods: {
        GET: { scope: "insight:read", ok: 200 },
        PATCH: { scope: "insight:write", body: { name: "renamed" }, ok: 200 },
        PUT: { scope: "insight:write", body: { description: "put" }, ok: 200 },
        // PostHog forbids hard deletes: 405 with an empty body once the caller may write.
        DELETE: { scope: "insight:write", ok: 405 },
      },
    },
  ];
}

/** A transformation config in each project (and `@current`): project id → config id, set in beforeAll. */
const CONFIG_IDS = new Map<string, number>();
/** The project of the call being made (set by `prepare`), for bodies that name its config. */
let configProject = "";

/** The pipeline transformation config routes under one prefix. */
function transformationRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const base = `${prefix}/:project_id/pipeline_transformation_configs`;
  const at = `/api/${prefix}/{project}/pipeline_transformation_configs`;
  const withId = (project: string) => ({ project_id: project, id: String(CONFIG_IDS.get(project) ?? 0) });
  /** DELETE marks the config deleted: bring it back before every call. */
  const restore = async (project: string, db: Database) => {
    configProject = project;
    const id = CONFIG_IDS.get(project);
    if (id) await db.prisma.pluginConfig.update({ where: { id }, data: { deleted: false } });
  };
  return [
    {
      route: base,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      methods: { GET: { scope: "plugin:read", ok: 200 }, POST: { scope: "plugin:write", body: { plugin: 1, order: 9 }, ok: 201 } },
    },
    {
      route: `${base}/:id`,
      path: `${at}/{config}/`,
      params: withId,
      prepare: restore,
      methods: {
        GET: { scope: "plugin:read", ok: 200 },
        PATCH: { scope: "plugin:write", body: { name: "renamed" }, ok: 200 },
        DELETE: { scope: "plugin:write", ok: 204 },
      },
    },
    { route: `${base}/:id/activity`, path: `${at}/{config}/activity/`, params: withId, prepare: restore, methods: { GET: { scope: "plugin:read", ok: 200 } } },
    { route: `${base}/:id/frontend`, path: `${at}/{config}/frontend/`, params: withId, prepare: restore, methods: { GET: { scope: "plugin:read", ok: 200 } } },
    {
      route: `${base}/:id/job`,
      path: `${at}/{config}/job/`,
      params: withId,
      prepare: restore,
      methods: { POST: { scope: "plugin:write", body: { job: { type: "dry_run", payload: { events: [{ event: "matrix" }] } } }, ok: 200 } },
    },
    { route: `${base}/:id/migrate`, path: `${at}/{config}/migrate/`, params: withId, prepare: restore, methods: { POST: { scope: "plugin:write", ok: 200 } } },
    {
      route: `${base}/rearrange`,
      path: `${at}/rearrange/`,
      params: (project) => ({ project_id: project }),
      prepare: restore,
      methods: {
        PATCH: {
          scope: "plugin:write",
          get body() {
            return { orders: { [String(CONFIG_IDS.get(configProject) ?? 0)]: 0 } };
          },
          ok: 200,
        },
      },
    },
  ];
}

/** A static cohort in each project (and `@current`): project id → cohort id, set in beforeAll. */
const COHORT_IDS = new Map<string, number>();

/** The cohort routes under one prefix. */
function cohortRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const base = `${prefix}/:project_id/cohorts`;
  const at = `/api/${prefix}/{project}/cohorts`;
  const withId = (project: string) => ({ project_id: project, id: String(COHORT_IDS.get(project) ?? 0) });
  /** The project's one person, in the cohort (before a remove) or not. */
  /** Picks the project's person for the body, in the cohort (before a remove) or not. */
  const member = (wanted: boolean) => async (project: string, db: Database) => {
    const cohortId = COHORT_IDS.get(project);
    cohortPerson = COHORT_PERSON_UUIDS.get(project) ?? "";
    if (!cohortId || !wanted) return;
    const person = await db.prisma.person.findFirstOrThrow({ where: { uuid: cohortPerson } });
    await db.prisma.cohortPerson.deleteMany({ where: { cohortId, personId: person.id } });
    if (wanted) await db.prisma.cohortPerson.create({ data: { cohortId, personId: person.id } });
  };
  return [
    {
      route: base,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      methods: { GET: { scope: "cohort:read", ok: 200 }, POST: { scope: "cohort:write", body: { name: "matrix", is_static: true }, ok: 201 } },
    },
    {
      route: `${base}/:id`,
      path: `${at}/{cohort}/`,
      params: withId,
      methods: {
        GET: { scope: "cohort:read", ok: 200 },
        PATCH: { scope: "cohort:write", body: { name: "renamed" }, ok: 200 },
        PUT: { scope: "cohort:write", body: { description: "put" }, ok: 200 },
        // PostHog forbids hard deletes: 405 once the caller may write.
        DELETE: { scope: "cohort:write", ok: 405 },
      },
    },
    // Members need person:read besides cohort:read (checked in src/server/cohorts/api.int.test.ts).
    { route: `${base}/:id/persons`, path: `${at}/{cohort}/persons/`, params: withId, methods: { GET: { scope: "cohort:read", ok: 200 } } },
    {
      route: `${base}/:id/add_persons_to_static_cohort`,
      path: `${at}/{cohort}/add_persons_to_static_cohort/`,
      params: withId,
      prepare: member(false),
      methods: {
        PATCH: {
          scope: "cohort:write",
          get body() {
            return { person_ids: [cohortPerson] };
          },
          ok: 200,
        },
      },
    },
    {
      route: `${base}/:id/remove_person_from_static_cohort`,
      path: `${at}/{cohort}/remove_person_from_static_cohort/`,
      params: withId,
      prepare: member(true),
      methods: {
        PATCH: {
          scope: "cohort:write",
          get body() {
            return { person_id: cohortPerson };
          },
          ok: 200,
        },
      },
    },
  ];
}
/** An action in each project (and `@current`): project id → action id, set in beforeAll. */
const ACTION_IDS = new Map<string, number>();
let actionNames = 0;

/** The action routes under one prefix. */
function actionRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const at = `/api/${prefix}/{project}/actions`;
  const withId = (project: string) => ({ project_id: project, id: String(ACTION_IDS.get(project) ?? 0) });
  return [
    {
      route: `${prefix}/:project_id/actions`,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      methods: {
        GET: { scope: "action:read", ok: 200 },
        POST: {
          scope: "action:write",
          get body() {
            return { name: `matrix ${++actionNames}`, steps: [{ event: "$pageview", url: "/pricing" }] };
          },
          ok: 201,
        },
      },
    },
    {
      route: `${prefix}/:project_id/actions/:id`,
      path: `${at}/{action}/`,
      params: withId,
      methods: {
        GET: { scope: "action:read", ok: 200 },
        PATCH: { scope: "action:write", body: { description: "renamed" }, ok: 200 },
        PUT: { scope: "action:write", body: { description: "put" }, ok: 200 },
        // PostHog forbids hard deletes: 405 once the caller may write.
        DELETE: { scope: "action:write", ok: 405 },
      },
    },
  ];
}

/** An experiment and a holdout in each project (and `@current`), set in beforeAll; DELETE removes the holdout, made again before the next call. */
const EXPERIMENT_IDS = new Map<string, number>();
const HOLDOUT_IDS = new Map<string, number>();
/** `@current`'s project id, for holdouts made again after a DELETE. */
const HOLDOUT_PROJECT = new Map<string, number>();
/** A shared metric in each project (and `@current`), made again after a DELETE as holdouts are. */
const SAVED_METRIC_IDS = new Map<string, number>();
const SAVED_METRIC_QUERY = { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "EventsNode", event: "purchase" }] };
let experimentKeys = 0;

/** The experiment and holdout routes under one prefix. */
function experimentRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const at = `/api/${prefix}/{project}`;
  const withId = (ids: Map<string, number>) => (project: string) => ({ project_id: project, id: String(ids.get(project) ?? 0) });
  return [
    {
      route: `${prefix}/:project_id/experiments`,
      path: `${at}/experiments/`,
      params: (project) => ({ project_id: project }),
      methods: {
        GET: { scope: "experiment:read", ok: 200 },
        POST: {
          scope: "experiment:write",
          get body() {
            return { name: `matrix ${++experimentKeys}`, feature_flag_key: `matrix-exp-${experimentKeys}` };
          },
          ok: 201,
        },
      },
    },
    {
      route: `${prefix}/:project_id/experiments/:id`,
      path: `${at}/experiments/{experiment}/`,
      params: withId(EXPERIMENT_IDS),
      methods: {
        GET: { scope: "experiment:read", ok: 200 },
        PATCH: { scope: "experiment:write", body: { description: "renamed" }, ok: 200 },
        PUT: { scope: "experiment:write", body: { description: "put" }, ok: 200 },
        DELETE: { scope: "experiment:write", ok: 405 },
      },
    },
    {
      route: `${prefix}/:project_id/experiments/:id/ship_variant`,
      path: `${at}/experiments/{experiment}/ship_variant/`,
      params: withId(EXPERIMENT_IDS),
      methods: { POST: { scope: "experiment:write", body: { variant_key: "test" }, ok: 200 } },
    },
    {
      route: `${prefix}/:project_id/experiment_holdouts`,
      path: `${at}/experiment_holdouts/`,
      params: (project) => ({ project_id: project }),
      methods: {
        GET: { scope: "experiment:read", ok: 200 },
        POST: { scope: "experiment:write", body: { name: "matrix", filters: [{ properties: [], rollout_percentage: 10 }] }, ok: 201 },
      },
    },
    {
      route: `${prefix}/:project_id/experiment_holdouts/:id`,
      path: `${at}/experiment_holdouts/{holdout}/`,
      params: withId(HOLDOUT_IDS),
      // DELETE removes the holdout: the next call gets a new one.
      prepare: async (project, db) => {
        const projectId = project === "@current" ? HOLDOUT_PROJECT.get("@current") : Number(project);
        const id = HOLDOUT_IDS.get(project);
        if (projectId === undefined || id === undefined || (await db.prisma.experimentHoldout.findUnique({ where: { id } }))) return;
        HOLDOUT_IDS.set(project, (await db.prisma.experimentHoldout.create({ data: { projectId, name: "matrix", filters: [{ properties: [], rollout_percentage: 10 }] } })).id);
      },
      methods: {
        GET: { scope: "experiment:read", ok: 200 },
        PATCH: { scope: "experiment:write", body: { description: "renamed" }, ok: 200 },
        PUT: { scope: "experiment:write", body: { description: "put" }, ok: 200 },
        DELETE: { scope: "experiment:write", ok: 204 },
      },
    },
    {
      route: `${prefix}/:project_id/experiment_saved_metrics`,
      path: `${at}/experiment_saved_metrics/`,
      params: (project) => ({ project_id: project }),
      methods: {
        GET: { scope: "experiment:read", ok: 200 },
        POST: { scope: "experiment:write", body: { name: "matrix", query: SAVED_METRIC_QUERY }, ok: 201 },
      },
    },
    {
      route: `${prefix}/:project_id/experiment_saved_metrics/:id`,
      path: `${at}/experiment_saved_metrics/{saved_metric}/`,
      params: withId(SAVED_METRIC_IDS),
      prepare: async (project, db) => {
        const projectId = project === "@current" ? HOLDOUT_PROJECT.get("@current") : Number(project);
        const id = SAVED_METRIC_IDS.get(project);
        if (projectId === undefined || id === undefined || (await db.prisma.experimentSavedMetric.findUnique({ where: { id } }))) return;
        SAVED_METRIC_IDS.set(project, (await db.prisma.experimentSavedMetric.create({ data: { projectId, name: "matrix", query: SAVED_METRIC_QUERY } })).id);
      },
      methods: {
        GET: { scope: "experiment:read", ok: 200 },
        PATCH: { scope: "experiment:write", body: { description: "renamed" }, ok: 200 },
        PUT: { scope: "experiment:write", body: { description: "put" }, ok: 200 },
        DELETE: { scope: "experiment:write", ok: 204 },
      },
    },
  ];
}

/** An alert in each project (and `@current`): project → {id, project id, insight id}, set in beforeAll. */
const ALERTS = new Map<string, { id: string; projectId: number; insightId: number }>();
/** The project of the call being made (set by `prepare`), for the body naming its insight. */
let alertProject = "";

/** The alert routes under one prefix. DELETE deletes for good: the alert is put back before every call. */
function alertRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const at = `/api/${prefix}/{project}/alerts`;
  const withId = (project: string) => ({ project_id: project, id: ALERTS.get(project)?.id ?? "0190c000-0000-7000-8000-000000000000" });
  const prepare = async (project: string, db: Database) => {
    alertProject = project;
    const alert = ALERTS.get(project);
    if (!alert) return;
    const row = { projectId: alert.projectId, insightId: alert.insightId, name: "matrix", threshold: { configuration: { type: "absolute", bounds: { upper: 1 } } }, condition: { type: "absolute_value" }, config: { type: "TrendsAlertConfig", series_index: 0 } };
    await db.prisma.alert.upsert({ where: { id: alert.id }, create: { id: alert.id, ...row }, update: {} });
  };
  const createBody = {
    get insight() {
      return ALERTS.get(alertProject)?.insightId ?? 0;
    },
    name: "matrix",
    threshold: { configuration: { type: "absolute", bounds: { upper: 10 } } },
  };
  return [
    {
      route: `${prefix}/:project_id/alerts`,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      prepare,
      methods: { GET: { scope: "alert:read", ok: 200 }, POST: { scope: "alert:write", body: createBody, ok: 201 } },
    },
    {
      route: `${prefix}/:project_id/alerts/:id`,
      path: `${at}/{alert}/`,
      params: withId,
      prepare,
      methods: {
        GET: { scope: "alert:read", ok: 200 },
        PATCH: { scope: "alert:write", body: { name: "renamed" }, ok: 200 },
        PUT: { scope: "alert:write", body: { name: "put" }, ok: 200 },
        DELETE: { scope: "alert:write", ok: 204 },
      },
    },
    { route: `${prefix}/:project_id/alerts/:id/check_now`, path: `${at}/{alert}/check_now/`, params: withId, prepare, methods: { POST: { scope: "alert:write", ok: 200 } } },
  ];
}

/** A destination in each project (and `@current`): project id → hog function id, set in beforeAll. */
const HOG_FUNCTION_IDS = new Map<string, string>();

/** The destination (hog function) routes under one prefix. */
function hogFunctionRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const at = `/api/${prefix}/{project}/hog_functions`;
  const withId = (project: string) => ({ project_id: project, id: HOG_FUNCTION_IDS.get(project) ?? "0190c000-0000-7000-8000-000000000000" });
  const read = (route: string, path: string): RouteCase => ({ route: `${prefix}/:project_id/${route}`, path: `${at}/${path}`, params: withId, methods: { GET: { scope: "hog_function:read", ok: 200 } } });
  return [
    {
      route: `${prefix}/:project_id/hog_functions`,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      methods: {
        GET: { scope: "hog_function:read", ok: 200 },
        POST: { scope: "hog_function:write", body: { type: "destination", name: "matrix", inputs: { url: { value: "https://hooks.example.com/matrix" } } }, ok: 201 },
      },
    },
    {
      route: `${prefix}/:project_id/hog_functions/:id`,
      path: `${at}/{hog_function}/`,
      params: withId,
      methods: {
        GET: { scope: "hog_function:read", ok: 200 },
        PATCH: { scope: "hog_function:write", body: { description: "renamed" }, ok: 200 },
        PUT: { scope: "hog_function:write", body: { description: "put" }, ok: 200 },
        DELETE: { scope: "hog_function:write", ok: 405 },
      },
    },
    read("hog_functions/:id/logs", "{hog_function}/logs/"),
    read("hog_functions/:id/deliveries", "{hog_function}/deliveries/"),
    read("hog_functions/:id/metrics", "{hog_function}/metrics/"),
    read("hog_functions/:id/metrics/totals", "{hog_function}/metrics/totals/"),
  ];
}

/** A subscription in each project (and `@current`), and an insight of the caller's project to subscribe to: set in beforeAll. */
const SUBSCRIPTION_IDS = new Map<string, number>();
let subscriptionInsightId = 0;
const SUBSCRIPTION_INSIGHT_IDS = new Map<string, number>();

/** The subscription routes under one prefix (e-mail targets: a test delivery sends nothing out of the machine). */
function subscriptionRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const at = `/api/${prefix}/{project}/subscriptions`;
  const withId = (project: string) => ({ project_id: project, id: String(SUBSCRIPTION_IDS.get(project) ?? 2_000_000_000) });
  const body = {
    get insight() {
      return subscriptionInsightId;
    },
    target_type: "email",
    target_value: "matrix@example.com",
    frequency: "daily",
    start_date: "2026-01-01T09:00:00Z",
  };
  return [
    {
      route: `${prefix}/:project_id/subscriptions`,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      // The body names an insight of the project called.
      prepare: async (project) => {
        subscriptionInsightId = SUBSCRIPTION_INSIGHT_IDS.get(project) ?? 0;
      },
      methods: { GET: { scope: "subscription:read", ok: 200 }, POST: { scope: "subscription:write", body, ok: 201 } },
    },
    {
      route: `${prefix}/:project_id/subscriptions/:id`,
      path: `${at}/{subscription}/`,
      params: withId,
      methods: {
        GET: { scope: "subscription:read", ok: 200 },
        PATCH: { scope: "subscription:write", body: { title: "renamed" }, ok: 200 },
        PUT: { scope: "subscription:write", body: { title: "put" }, ok: 200 },
        DELETE: { scope: "subscription:write", ok: 405 },
      },
    },
    {
      route: `${prefix}/:project_id/subscriptions/:id/test-delivery`,
      path: `${at}/{subscription}/test-delivery/`,
      params: withId,
      methods: { POST: { scope: "subscription:write", ok: 202 } },
    },
  ];
}

/** The batch export (with a backfill and its run) each call of the `:id` routes names: made fresh by `prepare` (DELETE removes it). */
const BATCH_EXPORT_IDS = new Map<string, { id: string; run_id: string; backfill_id: string }>();

async function freshBatchExport(project: string, db: Database): Promise<void> {
  const projectId = project === "@current" ? currentProjectId : Number(project);
  if (!Number.isSafeInteger(projectId) || !(await db.prisma.project.findUnique({ where: { id: projectId } }))) return;
  const ids = { id: crypto.randomUUID(), run_id: crypto.randomUUID(), backfill_id: crypto.randomUUID() };
  const hour = new Date("2026-01-01T00:00:00Z");
  await db.prisma.batchExport.create({ data: { id: ids.id, projectId, name: "matrix", destinationType: "HTTP", destinationConfig: { url: "https://hooks.example.com/batch" }, paused: true } });
  await db.prisma.batchExportBackfill.create({ data: { id: ids.backfill_id, batchExportId: ids.id, startAt: hour, endAt: new Date(hour.getTime() + 3_600_000) } });
  await db.prisma.batchExportRun.create({ data: { id: ids.run_id, batchExportId: ids.id, backfillId: ids.backfill_id, status: "Failed", dataIntervalStart: hour, dataIntervalEnd: new Date(hour.getTime() + 3_600_000) } });
  BATCH_EXPORT_IDS.set(project, ids);
}

/** The batch export routes under one prefix. */
function batchExportRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const at = `/api/${prefix}/{project}/batch_exports`;
  const none = { id: "00000000-0000-4000-8000-000000000000", run_id: "00000000-0000-4000-8000-000000000001", backfill_id: "00000000-0000-4000-8000-000000000002" };
  const withIds = (project: string) => ({ project_id: project, ...(BATCH_EXPORT_IDS.get(project) ?? none) });
  const one = (route: string, path: string, methods: RouteCase["methods"]): RouteCase => ({ route: `${prefix}/:project_id/batch_exports/${route}`, path: `${at}/${path}`, params: withIds, prepare: freshBatchExport, methods });
  return [
    {
      route: `${prefix}/:project_id/batch_exports`,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      methods: {
        GET: { scope: "batch_export:read", ok: 200 },
        POST: { scope: "batch_export:write", body: { name: "matrix", interval: "day", paused: true, destination: { type: "HTTP", config: { url: "https://hooks.example.com/batch" } } }, ok: 201 },
      },
    },
    one(":id", "{export}/", {
      GET: { scope: "batch_export:read", ok: 200 },
      PATCH: { scope: "batch_export:write", body: { name: "renamed" }, ok: 200 },
      PUT: { scope: "batch_export:write", body: { name: "put" }, ok: 200 },
      DELETE: { scope: "batch_export:write", ok: 204 },
    }),
    one(":id/pause", "{export}/pause/", { POST: { scope: "batch_export:write", ok: 200 } }),
    one(":id/unpause", "{export}/unpause/", { POST: { scope: "batch_export:write", ok: 200 } }),
    one(":id/runs", "{export}/runs/", { GET: { scope: "batch_export:read", ok: 200 } }),
    one(":id/runs/:run_id", "{export}/runs/{run}/", { GET: { scope: "batch_export:read", ok: 200 } }),
    one(":id/runs/:run_id/retry", "{export}/runs/{run}/retry/", { POST: { scope: "batch_export:write", ok: 200 } }),
    one(":id/backfills", "{export}/backfills/", {
      GET: { scope: "batch_export:read", ok: 200 },
      POST: { scope: "batch_export:write", body: { start_at: "2026-01-01T00:00:00Z", end_at: "2026-01-01T02:00:00Z" }, ok: 201 },
    }),
    one(":id/backfills/:backfill_id", "{export}/backfills/{backfill}/", { GET: { scope: "batch_export:read", ok: 200 } }),
    one(":id/backfills/:backfill_id/cancel", "{export}/backfills/{backfill}/cancel/", { POST: { scope: "batch_export:write", ok: 200 } }),
  ];
}

/** The early-access feature each call of the `:id` routes names: made fresh by `prepare` (DELETE removes it). */
const EAF_IDS = new Map<string, string>();
let eafNames = 0;
/** The project `@current` resolves to, set in beforeAll. */
let currentProjectId = 0;

async function freshFeature(project: string, db: Database): Promise<void> {
  const id = project === "@current" ? currentProjectId : Number(project);
  if (!Number.isSafeInteger(id) || !(await db.prisma.project.findUnique({ where: { id } }))) return;
  const flag = await db.prisma.featureFlag.create({ data: { projectId: id, key: `matrix-eaf-${++eafNames}`, filters: { groups: [{ properties: [], rollout_percentage: 0 }] } } });
  const feature = await db.prisma.earlyAccessFeature.create({ data: { id: crypto.randomUUID(), projectId: id, featureFlagId: flag.id, name: `matrix ${eafNames}`, stage: "beta" } });
  EAF_IDS.set(project, feature.id);
}

/** The early-access feature routes under one prefix. */
function earlyAccessRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const at = `/api/${prefix}/{project}/early_access_features`;
  const withId = (project: string) => ({ project_id: project, id: EAF_IDS.get(project) ?? "00000000-0000-4000-8000-000000000000" });
  return [
    {
      route: `${prefix}/:project_id/early_access_features`,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      methods: {
        GET: { scope: "early_access_feature:read", ok: 200 },
        POST: {
          scope: "early_access_feature:write",
          get body() {
            return { name: `matrix feature ${++eafNames}`, stage: "beta" };
          },
          ok: 201,
        },
      },
    },
    {
      route: `${prefix}/:project_id/early_access_features/:id`,
      path: `${at}/{feature}/`,
      params: withId,
      prepare: freshFeature,
      methods: {
        GET: { scope: "early_access_feature:read", ok: 200 },
        PATCH: { scope: "early_access_feature:write", body: { description: "renamed" }, ok: 200 },
        PUT: { scope: "early_access_feature:write", body: { stage: "alpha" }, ok: 200 },
        DELETE: { scope: "early_access_feature:write", ok: 204 },
      },
    },
    // The enrolled persons need person:read besides (early-access.int.test.ts reads them).
    {
      route: `${prefix}/:project_id/early_access_features/:id/enrolled`,
      path: `${at}/{feature}/enrolled/`,
      params: withId,
      prepare: freshFeature,
      methods: { GET: { scope: "early_access_feature:read", ok: 200 } },
    },
  ];
}

/** The survey each call of the `:id` route names: made fresh by `prepare` (DELETE removes it). */
const SURVEY_IDS = new Map<string, string>();
let surveyNames = 0;

async function freshSurvey(project: string, db: Database): Promise<void> {
  const id = project === "@current" ? currentProjectId : Number(project);
  if (!Number.isSafeInteger(id) || !(await db.prisma.project.findUnique({ where: { id } }))) return;
  const survey = await db.prisma.survey.create({ data: { id: crypto.randomUUID(), projectId: id, name: `matrix survey ${++surveyNames}`, type: "popover", questions: [{ type: "open", question: "Why?", id: "q1" }] } });
  SURVEY_IDS.set(project, survey.id);
}

/** The survey routes under one prefix. */
function surveyRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const at = `/api/${prefix}/{project}/surveys`;
  const withId = (project: string) => ({ project_id: project, id: SURVEY_IDS.get(project) ?? "00000000-0000-4000-8000-000000000000" });
  return [
    {
      route: `${prefix}/:project_id/surveys`,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      methods: {
        GET: { scope: "survey:read", ok: 200 },
        POST: {
          scope: "survey:write",
          get body() {
            return { name: `matrix new survey ${++surveyNames}`, type: "popover", questions: [{ type: "open", question: "Why?" }] };
          },
          ok: 201,
        },
      },
    },
    {
      route: `${prefix}/:project_id/surveys/:id`,
      path: `${at}/{survey}/`,
      params: withId,
      prepare: freshSurvey,
      methods: {
        GET: { scope: "survey:read", ok: 200 },
        PATCH: { scope: "survey:write", body: { description: "renamed" }, ok: 200 },
        PUT: { scope: "survey:write", body: { start_date: "2026-11-01T00:00:00Z" }, ok: 200 },
        DELETE: { scope: "survey:write", ok: 204 },
      },
    },
    {
      route: `${prefix}/:project_id/surveys/:id/stats`,
      path: `${at}/{survey}/stats/`,
      params: withId,
      prepare: freshSurvey,
      methods: { GET: { scope: "survey:read", ok: 200 } },
    },
  ];
}

/** The session recording routes under one prefix: with the scope, a recording that does not exist is a 404 (recordings.int.test.ts reads real ones). */
function recordingRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const at = `/api/${prefix}/{project}/session_recordings`;
  const withId = (project: string) => ({ project_id: project, id: "0190f1c2-0000-7000-8000-0000000000aa" });
  return [
    {
      route: `${prefix}/:project_id/session_recordings`,
      path: `${at}/`,
      params: (project) => ({ project_id: project }),
      methods: { GET: { scope: "session_recording:read", ok: 200 } },
    },
    {
      route: `${prefix}/:project_id/session_recordings/:id`,
      path: `${at}/0190f1c2-0000-7000-8000-0000000000aa/`,
      params: withId,
      methods: { GET: { scope: "session_recording:read", ok: 404 }, DELETE: { scope: "session_recording:write", ok: 404 } },
    },
    {
      route: `${prefix}/:project_id/session_recordings/:id/snapshots`,
      path: `${at}/0190f1c2-0000-7000-8000-0000000000aa/snapshots/`,
      params: withId,
      methods: { GET: { scope: "session_recording:read", ok: 404 } },
    },
  ];
}

/** A person in each project (and `@current`), for the static cohort routes: project id → uuid; the one the next call's body names. */
const COHORT_PERSON_UUIDS = new Map<string, string>();
let cohortPerson = "";

/** A person in each project under a uuid of its own (uuids are unique across projects), put back before every call: some calls delete it. */
const personUuid = (project: string) => `0190f1c2-0000-7000-8000-${String(project === "@current" ? "current" : project).replace(/[^0-9]/g, "").padStart(12, "0").slice(-12)}`;
let matrixProjectId = "";

function personRoutes(prefix: "projects" | "environments"): RouteCase[] {
  const at = `/api/${prefix}/{project}/persons`;
  const withId = (project: string) => ({ project_id: project, id: personUuid(project === "@current" ? matrixProjectId : project) });
  const prepare = async (project: string, db: Database) => {
    const id = project === "@current" ? matrixProjectId : project;
    if (!/^\d+$/.test(id) || id === "999999") return;
    await db.sql.query(`INSERT INTO persons (uuid, project_id, properties, updated_at) VALUES ($1, $2, '{}', now()) ON CONFLICT (uuid) DO NOTHING`, [personUuid(id), Number(id)]);
  };
  const one = (path: string, methods: RouteCase["methods"]): RouteCase => ({
    route: `${prefix}/:project_id/persons/:id${path}`,
    path: `${at}/person${path}/`,
    params: withId,
    prepare,
    methods,
  });
  return [
    {
      route: `${prefix}/:project_id/persons`,
      path: `${at}/?search=x`,
      params: (project) => ({ project_id: project }),
      // Creating persons through the API is PostHog's 405, once the caller may write.
      methods: { GET: { scope: "person:read", ok: 200 }, POST: { scope: "person:write", body: {}, ok: 405 } },
    },
    {
      route: `${prefix}/:project_id/persons/bulk_delete`,
      path: `${at}/bulk_delete/`,
      params: (project) => ({ project_id: project }),
      methods: { POST: { scope: "person:write", body: { distinct_ids: ["nobody"] }, ok: 202 } },
    },
    one("", {
      GET: { scope: "person:read", ok: 200 },
      PATCH: { scope: "person:write", body: { properties: { plan: "pro" } }, ok: 202 },
      PUT: { scope: "person:write", body: { properties: { plan: "pro" } }, ok: 202 },
      DELETE: { scope: "person:write", ok: 202 },
    }),
    one("/delete_property", { POST: { scope: "person:write", body: { $unset: "plan" }, ok: 201 } }),
    one("/update_property", { POST: { scope: "person:write", body: { key: "plan", value: "team" }, ok: 202 } }),
    one("/delete_events", { POST: { scope: "person:write", ok: 202 } }),
    one("/cohorts", { GET: { scope: "person:read", ok: 200 } }),
  ];
}

// The matrix calls every route a dozen times with one key within a minute: more than the
// management API's rate limit allows (rate-limit.int.test.ts tests the limit itself).
process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";

const ROUTES: RouteCase[] = [
  ...actionRoutes("projects"),
  ...actionRoutes("environments"),
  ...experimentRoutes("projects"),
  ...experimentRoutes("environments"),
  ...hogFunctionRoutes("projects"),
  ...hogFunctionRoutes("environments"),
  ...alertRoutes("projects"),
  ...alertRoutes("environments"),
  ...subscriptionRoutes("projects"),
  ...subscriptionRoutes("environments"),
  ...batchExportRoutes("projects"),
  ...batchExportRoutes("environments"),
  ...recordingRoutes("projects"),
  ...recordingRoutes("environments"),
  ...earlyAccessRoutes("projects"),
  ...earlyAccessRoutes("environments"),
  ...surveyRoutes("projects"),
  ...surveyRoutes("environments"),
  ...cohortRoutes("projects"),
  ...cohortRoutes("environments"),
  ...transformationRoutes("projects"),
  ...transformationRoutes("environments"),
  ...personRoutes("projects"),
  ...personRoutes("environments"),
  {
    // The plugin catalogue is not a project's: plugin:read is checked in src/server/transformations/api.int.test.ts.
    route: "plugins",
    path: "/api/plugins/",
    params: () => ({}),
    methods: { GET: { scope: null, ok: 200 } },
  },
  ...dashboardRoutes("projects"),
  ...dashboardRoutes("environments"),
  ...insightRoutes("projects"),
  ...insightRoutes("environments"),
  ...(["projects", "environments"] as const).map(
    (prefix): RouteCase => ({
      // Running a query only reads: POST needs query:read (PostHog's QueryViewSet).
      route: `${prefix}/:project_id/query`,
      path: `/api/${prefix}/{project}/query/`,
      params: (project) => ({ project_id: project }),
      methods: { POST: { scope: "query:read", body: { query: { kind: "TrendsQuery", series: [{ event: "$pageview" }] } }, ok: 200 } },
    }),
  ),
  {
    route: "users/:user_id",
    path: "/api/users/@me/",
    params: () => ({ user_id: "@me" }),
    noProject: true,
    methods: { GET: { scope: "user:read", ok: 200 } },
  },
  {
    route: "projects",
    path: "/api/projects/",
    params: () => ({}),
    noProject: true,
    methods: { GET: { scope: "project:read", ok: 200 } },
  },
  {
    route: "projects/:project_id",
    path: "/api/projects/{project}/",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "project:read", ok: 200 }, PATCH: { scope: "project:write", body: { enrich_events: true }, ok: 200 } },
  },
  {
    route: "environments/:project_id",
    path: "/api/environments/{project}/",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "project:read", ok: 200 }, PATCH: { scope: "project:write", body: { enrich_events: true }, ok: 200 } },
  },
  {
    route: "projects/:project_id/events",
    path: "/api/projects/{project}/events/",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    route: "projects/:project_id/events/:id",
    path: `/api/projects/{project}/events/${EVENT_UUID}/`,
    params: (project) => ({ project_id: project, id: EVENT_UUID }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    route: "projects/:project_id/events/values",
    path: "/api/projects/{project}/events/values/?key=$browser",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    route: "environments/:project_id/events",
    path: "/api/environments/{project}/events/",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    route: "environments/:project_id/events/:id",
    path: `/api/environments/{project}/events/${EVENT_UUID}/`,
    params: (project) => ({ project_id: project, id: EVENT_UUID }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    route: "environments/:project_id/events/values",
    path: "/api/environments/{project}/events/values/?key=$browser",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    route: "projects/:project_id/event_definitions",
    path: "/api/projects/{project}/event_definitions/?search=page",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "event_definition:read", ok: 200 } },
  },
  {
    route: "projects/:project_id/event_definitions/:id",
    path: "/api/projects/{project}/event_definitions/0190f1c2-0000-7000-8000-00000000d1d1/",
    params: (project) => ({ project_id: project, id: "0190f1c2-0000-7000-8000-00000000d1d1" }),
    // No such definition: past the scope and project checks, a 404.
    methods: { GET: { scope: "event_definition:read", ok: 404 } },
  },
  {
    route: "projects/:project_id/property_definitions",
    path: "/api/projects/{project}/property_definitions/?search=page",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "property_definition:read", ok: 200 } },
  },
  {
    route: "projects/:project_id/property_definitions/:id",
    path: "/api/projects/{project}/property_definitions/0190f1c2-0000-7000-8000-00000000d1d1/",
    params: (project) => ({ project_id: project, id: "0190f1c2-0000-7000-8000-00000000d1d1" }),
    // No such definition: past the scope and project checks, a 404.
    methods: { GET: { scope: "property_definition:read", ok: 404 } },
  },
  {
    route: "environments/:project_id/event_definitions",
    path: "/api/environments/{project}/event_definitions/?search=page",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "event_definition:read", ok: 200 } },
  },
  {
    route: "environments/:project_id/event_definitions/:id",
    path: "/api/environments/{project}/event_definitions/0190f1c2-0000-7000-8000-00000000d1d1/",
    params: (project) => ({ project_id: project, id: "0190f1c2-0000-7000-8000-00000000d1d1" }),
    // No such definition: past the scope and project checks, a 404.
    methods: { GET: { scope: "event_definition:read", ok: 404 } },
  },
  {
    route: "environments/:project_id/property_definitions",
    path: "/api/environments/{project}/property_definitions/?search=page",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "property_definition:read", ok: 200 } },
  },
  {
    route: "environments/:project_id/property_definitions/:id",
    path: "/api/environments/{project}/property_definitions/0190f1c2-0000-7000-8000-00000000d1d1/",
    params: (project) => ({ project_id: project, id: "0190f1c2-0000-7000-8000-00000000d1d1" }),
    // No such definition: past the scope and project checks, a 404.
    methods: { GET: { scope: "property_definition:read", ok: 404 } },
  },
  {
    route: "projects/:project_id/feature_flags",
    path: "/api/projects/{project}/feature_flags/",
    params: (project) => ({ project_id: project }),
    methods: {
      GET: { scope: "feature_flag:read", ok: 200 },
      // Every successful create needs a key of its own.
      POST: {
        scope: "feature_flag:write",
        get body() {
          return { key: `matrix-${++flagKeys}` };
        },
        ok: 201,
      },
    },
  },
  {
    route: "projects/:project_id/feature_flags/:id",
    path: "/api/projects/{project}/feature_flags/{flag}/",
    params: (project) => ({ project_id: project, id: String(FLAG_IDS.get(project) ?? 0) }),
    methods: {
      GET: { scope: "feature_flag:read", ok: 200 },
      PATCH: { scope: "feature_flag:write", body: { name: "renamed" }, ok: 200 },
      // PostHog forbids hard deletes: 405 once the caller may write.
      DELETE: { scope: "feature_flag:write", ok: 405 },
    },
  },
  ...(["projects", "environments"] as const).map((prefix) => ({
    // A flag's payload for server SDKs (getRemoteConfigPayload), by key.
    route: `${prefix}/:project_id/feature_flags/:id/remote_config`,
    path: `/api/${prefix}/{project}/feature_flags/matrix-flag/remote_config/`,
    params: (project: string) => ({ project_id: project, id: "matrix-flag" }),
    methods: { GET: { scope: "feature_flag:read" as const, ok: 200 } },
  })),
  {
    // Local-evaluation definitions: the project comes from ?project_id= (or ?token=).
    route: "feature_flag/local_evaluation",
    path: "/api/feature_flag/local_evaluation/?project_id={project}",
    params: () => ({}),
    methods: { GET: { scope: "feature_flag:read", ok: 200 } },
  },
];

/** Routes that are not management routes: they have their own authentication (posthog-js's take the project key). */
// `schema` and `docs`: the OpenAPI document and its reference page, public and the same for everyone (openapi/document.test.ts).
const NOT_MANAGEMENT = ["auth/", "trpc/", "early_access_features", "surveys", "schema", "docs"];

describe(`management routes: authentication, scopes and project access (${testDbKind})`, () => {
  let db: Database;
  let projectId: number;
  let otherProjectId: number;
  let alice: Awaited<ReturnType<typeof bootstrap>>;
  const keys = {} as Record<"all" | "none" | "noneOfFlags" | "limitedElsewhere" | "otherOrg", string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    registerDb(db);
    alice = await bootstrap(db.prisma, { email: "alice@example.com", password: "pw12345678" });
    projectId = alice.project_id;
    matrixProjectId = String(projectId);
    keys.all = alice.personal_api_key;
    const other = await db.prisma.project.create({ data: { organizationId: alice.organization_id, name: "Second", apiToken: "phc_second" } });
    otherProjectId = other.id;
    await insertEvents(
      db.sql,
      [projectId, otherProjectId].map((id) => ({ uuid: EVENT_UUID, projectId: id, event: "$pageview", distinctId: "d", properties: { $browser: "Firefox" }, timestamp: new Date() })),
    );
    keys.none = (await createPersonalApiKey(db.prisma, alice.user.id, { scopes: ["feature_flag:read"] })).key;
    // For the routes feature_flag:read opens: a key with another scope.
    keys.noneOfFlags = (await createPersonalApiKey(db.prisma, alice.user.id, { scopes: ["query:read"] })).key;
    for (const id of [projectId, otherProjectId]) {
      FLAG_IDS.set(String(id), (await db.prisma.featureFlag.create({ data: { projectId: id, key: "matrix-flag" } })).id);
    }
    FLAG_IDS.set("@current", FLAG_IDS.get(String(projectId))!);
    keys.limitedElsewhere = (await createPersonalApiKey(db.prisma, alice.user.id, { scopes: ["*"], projectId: otherProjectId })).key;
    const bob = await bootstrap(db.prisma, { email: "bob@example.com", password: "pw12345678", organization: "Bob's" });
    keys.otherOrg = bob.personal_api_key;
    carolUuid = (await createUser(db.prisma, { email: "carol@example.com", password: "pw12345678", organizationId: alice.organization_id })).uuid;
    for (const id of [projectId, otherProjectId]) {
      const dashboard = await db.prisma.dashboard.create({ data: { projectId: id, name: "matrix", restrictionLevel: 37, createdById: alice.user.id } });
      DASHBOARD_IDS.set(String(id), dashboard.id);
    }
    DASHBOARD_IDS.set("@current", DASHBOARD_IDS.get(String(projectId))!);
    for (const id of [projectId, otherProjectId]) {
      const insight = await db.prisma.insight.create({ data: { projectId: id, shortId: `matrix${id}`, name: "matrix", query: { kind: "TrendsQuery", series: [{ event: "$pageview" }] } } });
      INSIGHT_IDS.set(String(id), insight.id);
    }
    INSIGHT_IDS.set("@current", INSIGHT_IDS.get(String(projectId))!);
    const flatten = await db.prisma.plugin.findUniqueOrThrow({ where: { key: "flatten" } });
    for (const id of [projectId, otherProjectId]) {
      CONFIG_IDS.set(String(id), (await db.prisma.pluginConfig.create({ data: { projectId: id, pluginId: flatten.id, enabled: true, config: {} } })).id);
    }
    CONFIG_IDS.set("@current", CONFIG_IDS.get(String(projectId))!);
    for (const id of [projectId, otherProjectId]) {
      COHORT_PERSON_UUIDS.set(String(id), (await db.prisma.person.create({ data: { projectId: id, properties: {} } })).uuid);
      COHORT_IDS.set(String(id), (await db.prisma.cohort.create({ data: { projectId: id, name: "matrix", isStatic: true } })).id);
    }
    COHORT_IDS.set("@current", COHORT_IDS.get(String(projectId))!);
    for (const id of [projectId, otherProjectId]) {
      ACTION_IDS.set(String(id), (await db.prisma.action.create({ data: { projectId: id, name: "matrix", steps: [{ event: "$pageview" }] } })).id);
    }
    ACTION_IDS.set("@current", ACTION_IDS.get(String(projectId))!);
    for (const id of [projectId, otherProjectId]) {
      const flag = await db.prisma.featureFlag.create({
        data: { projectId: id, key: "matrix-exp", active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] } } },
      });
      EXPERIMENT_IDS.set(String(id), (await db.prisma.experiment.create({ data: { projectId: id, name: "matrix", featureFlagId: flag.id, startDate: new Date("2026-01-01T00:00:00Z") } })).id);
      HOLDOUT_IDS.set(String(id), (await db.prisma.experimentHoldout.create({ data: { projectId: id, name: "matrix", filters: [{ properties: [], rollout_percentage: 10 }] } })).id);
      SAVED_METRIC_IDS.set(String(id), (await db.prisma.experimentSavedMetric.create({ data: { projectId: id, name: "matrix", query: SAVED_METRIC_QUERY } })).id);
    }
    SAVED_METRIC_IDS.set("@current", SAVED_METRIC_IDS.get(String(projectId))!);
    EXPERIMENT_IDS.set("@current", EXPERIMENT_IDS.get(String(projectId))!);
    HOLDOUT_IDS.set("@current", HOLDOUT_IDS.get(String(projectId))!);
    HOLDOUT_PROJECT.set("@current", projectId);
    for (const id of [projectId, otherProjectId]) {
      const hogFunctionId = randomUUID();
      await db.prisma.hogFunction.create({ data: { id: hogFunctionId, projectId: id, name: "matrix", inputs: { url: { value: "https://hooks.example.com/m" } } } });
      HOG_FUNCTION_IDS.set(String(id), hogFunctionId);
    }
    HOG_FUNCTION_IDS.set("@current", HOG_FUNCTION_IDS.get(String(projectId))!);
    for (const id of [projectId, otherProjectId]) ALERTS.set(String(id), { id: randomUUID(), projectId: id, insightId: INSIGHT_IDS.get(String(id))! });
    ALERTS.set("@current", ALERTS.get(String(projectId))!);
    for (const id of [projectId, otherProjectId]) {
      const insight = await db.prisma.insight.create({ data: { projectId: id, shortId: `matrixsub${id}`, name: "matrix", query: { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }] } } } });
      SUBSCRIPTION_INSIGHT_IDS.set(String(id), insight.id);
      const subscription = await db.prisma.subscription.create({
        data: { projectId: id, contentType: "insight", insightId: insight.id, targetType: "email", targetValue: "matrix@example.com", frequency: "daily", startDate: new Date("2026-01-01T09:00:00Z"), nextDeliveryDate: new Date("2099-01-01T09:00:00Z") },
      });
      SUBSCRIPTION_IDS.set(String(id), subscription.id);
    }
    SUBSCRIPTION_IDS.set("@current", SUBSCRIPTION_IDS.get(String(projectId))!);
    SUBSCRIPTION_INSIGHT_IDS.set("@current", SUBSCRIPTION_INSIGHT_IDS.get(String(projectId))!);
    currentProjectId = projectId;
    COHORT_PERSON_UUIDS.set("@current", COHORT_PERSON_UUIDS.get(String(projectId))!);
  });
  afterAll(async () => {
    await closeDb();
  });

  async function call(route: RouteCase, method: Method, key: string | null, project = String(projectId)) {
    const handler = (await apiRouteHandlers(route.route))[method];
    if (!handler) throw new Error(`${route.route} has no ${method}`);
    const spec = route.methods[method]!;
    await route.prepare?.(project, db);
    const request = new Request(`http://localhost${route.path.replace("{project}", project)}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    });
    const response = await handler(request, { params: Promise.resolve(route.params(project)) });
    const text = await response.text();
    // Error bodies are JSON; a success may be another type (a config's frontend is JavaScript).
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {}
    return { status: response.status, body };
  }

  it("lists every management route (route table and route files)", () => {
    const routes = apiRoutePatterns().filter((route) => !NOT_MANAGEMENT.some((prefix) => route.startsWith(prefix)));
    expect(routes.sort()).toEqual(ROUTES.map((route) => route.route).sort());
  });

  for (const route of ROUTES) {
    for (const [method, spec] of Object.entries(route.methods) as [Method, NonNullable<RouteCase["methods"][Method]>][]) {
      describe(`${method} ${route.path}`, () => {
        it("answers 401 not_authenticated without a key", async () => {
          expect(await call(route, method, null)).toEqual({
            status: 401,
            body: { type: "authentication_error", code: "not_authenticated", detail: "Authentication credentials were not provided.", attr: null },
          });
        });

        it("answers 401 authentication_failed for a wrong key", async () => {
          const { status, body } = await call(route, method, "phx_thisIsNotAKeyOfAnyone0123456789");
          expect(status).toBe(401);
          expect(body).toEqual({ type: "authentication_error", code: "authentication_failed", detail: expect.stringMatching(/invalid/), attr: null });
        });

        it(`answers ${spec.ok} to a key with every scope`, async () => {
          expect((await call(route, method, keys.all)).status).toBe(spec.ok);
        });

        if (spec.scope === null) return;
        const scope = spec.scope;

        it(`answers 403 to a key without ${scope}`, async () => {
          expect(await call(route, method, scope.startsWith("feature_flag:") ? keys.noneOfFlags : keys.none)).toEqual({
            status: 403,
            body: { type: "authentication_error", code: "permission_denied", detail: `API key missing required scope '${scope}'`, attr: null },
          });
        });

        if (route.noProject) return;

        it("answers 403 to a key of another organization", async () => {
          const { status, body } = await call(route, method, keys.otherOrg);
          expect(status).toBe(403);
          expect(body).toMatchObject({ type: "authentication_error", code: "permission_denied", attr: null });
        });

        it("answers 403 to a key limited to another project, and serves that project", async () => {
          const { status, body } = await call(route, method, keys.limitedElsewhere);
          expect(status).toBe(403);
          expect(body).toMatchObject({ code: "permission_denied", detail: "API key does not have access to the requested project." });
          expect((await call(route, method, keys.limitedElsewhere, String(otherProjectId))).status).toBe(spec.ok);
        });

        it("answers 404 for a project that does not exist, and resolves @current", async () => {
          expect(await call(route, method, keys.all, "999999")).toEqual({
            status: 404,
            body: { type: "invalid_request", code: "not_found", detail: "Not found.", attr: null },
          });
          expect((await call(route, method, keys.all, "not-a-number")).status).toBe(404);
          expect((await call(route, method, keys.all, "@current")).status).toBe(spec.ok);
        });
      });
    }
  }

  it("lists only the projects a project-limited key may use, with PostHog's pagination envelope", async () => {
    const route = ROUTES.find((r) => r.route === "projects")!;
    expect((await call(route, "GET", keys.limitedElsewhere)).body).toEqual({
      count: 1,
      next: null,
      previous: null,
      results: [{ id: otherProjectId, name: "Second", organization: expect.any(String) }],
    });
    expect((await call(route, "GET", keys.all)).body).toMatchObject({ count: 2 });
  });

  it("shows a project-limited key only its project in /api/users/@me/", async () => {
    const route = ROUTES.find((r) => r.route === "users/:user_id")!;
    const limited = (await call(route, "GET", keys.limitedElsewhere)).body as { current_project_id: number; organizations: { projects: { id: number }[] }[] };
    expect(limited.current_project_id).toBe(otherProjectId);
    expect(limited.organizations.flatMap((organization) => organization.projects.map((project) => project.id))).toEqual([otherProjectId]);
    const all = (await call(route, "GET", keys.all)).body as typeof limited;
    expect(all.organizations.flatMap((organization) => organization.projects.map((project) => project.id)).sort()).toEqual([projectId, otherProjectId].sort());
  });
  it("counts each principal under the one API rate limit apart: every key (with the scope or not) and the user's tRPC session", async () => {
    const query = ROUTES.find((r) => r.route === "projects/:project_id/query")!;
    const trpc = createCaller({ db, headers: new Headers(), user: { id: alice.user.id, uuid: alice.user.uuid, email: alice.user.email, firstName: "", currentProjectId: projectId } });
    const trpcCode = () => trpc.account.project({ projectId }).then(() => 200, (error: { code?: string }) => error.code);
    const lifted = process.env.BURROW_API_RATE_LIMIT_PER_MINUTE;
    process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "2";
    try {
      const statuses = async (send: () => Promise<number | string | undefined>) => [await send(), await send(), await send()];
      // A refused scope still costs a token: 429 comes before the scope check, as PostHog's throttles do.
      expect(await statuses(async () => (await call(query, "POST", keys.none)).status)).toEqual([403, 403, 429]);
      expect(await statuses(async () => (await call(query, "POST", keys.all)).status)).toEqual([200, 200, 429]);
      expect(await statuses(trpcCode)).toEqual([200, 200, "TOO_MANY_REQUESTS"]);
      expect((await call(query, "POST", keys.noneOfFlags)).status).toBe(200);
    } finally {
      process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = lifted;
    }
  });
});
