/**
 * The public routes the SDKs call (and the health checks), for the OpenAPI document. They are
 * raw handlers on the server's fast path (http/fast-routes.ts), which build their answers as
 * plain objects for speed, so their schemas live here, beside their documentation; the
 * integration tests hold both to the real answers.
 */
import { z } from "zod";
import { EAF_STAGES } from "@/server/early-access/contract";
import type { RouteOperation } from "@/server/http/rest/route";

/** A non-table route: its OpenAPI path, method, reference section and operation. */
export interface PathOperation {
  path: string;
  method: "get" | "post";
  tag: string;
  operation: RouteOperation;
}

const properties = z.record(z.string(), z.unknown());

/** `{"status": 1}`, sent once the events are committed; a batch with bad events stores the rest and lists those under `errors`. */
export const captureAckSchema = z
  .object({ status: z.literal(1), errors: z.array(z.object({ index: z.number().int(), detail: z.string() })).optional() })
  .meta({ id: "CaptureResponse" });

const sdkEvent = z.looseObject({
  event: z.string().max(200),
  distinct_id: z.union([z.string(), z.number()]).optional(),
  properties: properties.optional(),
  timestamp: z.string().optional(),
  offset: z.number().optional(),
  uuid: z.string().optional(),
  $set: properties.optional(),
  $set_once: properties.optional(),
});

/** One event, `{api_key, batch: [...]}`, or a list of events; the project key in `api_key`, `token`, `$token` or `properties.token`. */
export const captureBodySchema = z
  .union([
    sdkEvent.extend({ api_key: z.string().optional(), token: z.string().optional() }),
    z.looseObject({ api_key: z.string().optional(), batch: z.array(sdkEvent), sent_at: z.string().optional(), historical_migration: z.boolean().optional() }),
    z.array(sdkEvent),
  ])
  .meta({ id: "CaptureRequest" });

const CAPTURE_MEDIA = {
  "application/x-www-form-urlencoded": "`data=` holding the JSON (base64 with `compression=base64`, lz-string with `compression=lz64`), as posthog-js sends it.",
  "text/plain": "The JSON gzip'd (`compression=gzip-js`, or no hint at all: detected by its magic bytes), as current posthog-js sends it.",
};

/** The evaluated flags of `/flags?v=2` and `/decide?v=4`, by key. */
const detailedFlag = z.object({
  key: z.string(),
  enabled: z.boolean(),
  variant: z.string().nullable(),
  reason: z.looseObject({ code: z.string() }),
  metadata: z.object({ id: z.number().int().nullable(), version: z.number().int(), description: z.null(), payload: z.string().nullable() }),
});

/** The project settings every `/decide` (and `/flags?config=true`) answer carries. */
const projectSettings = {
  supportedCompression: z.array(z.string()),
  sessionRecording: z.union([z.literal(false), z.looseObject({ endpoint: z.string(), recorderVersion: z.string() })]).describe("false, or what posthog-js starts its recorder with (the project's recording settings)."),
  captureDeadClicks: z.boolean(),
  capturePerformance: z.boolean(),
  autocapture_opt_out: z.boolean(),
  autocaptureExceptions: z.boolean(),
  analytics: z.object({ endpoint: z.string() }),
  elementsChainAsString: z.boolean(),
  surveys: z.boolean().describe("Whether a survey runs: posthog-js then loads its surveys from `/api/surveys/`."),
  heatmaps: z.boolean(),
  defaultIdentifiedOnly: z.boolean(),
  siteApps: z.array(z.unknown()),
};

/** `/decide` and `/flags`: what the answer holds depends on `v` (see the operation). */
export const flagsAnswerSchema = z
  .looseObject({
    flags: z.record(z.string(), detailedFlag).optional().describe("/flags v2, /decide v4: each flag in detail, with its payload."),
    featureFlags: z
      .union([z.record(z.string(), z.union([z.boolean(), z.string()])), z.array(z.string())])
      .optional()
      .describe("/decide v3 and /flags v1: every flag's value; v2: the enabled ones; v1: the enabled keys."),
    featureFlagPayloads: z.record(z.string(), z.string()).optional(),
    errorsWhileComputingFlags: z.boolean().optional(),
    requestId: z.string(),
    evaluatedAt: z.number().optional(),
    ...Object.fromEntries(Object.entries(projectSettings).map(([key, schema]) => [key, schema.optional()])),
  })
  .meta({ id: "FlagsResponse" });

/** The body of `/decide` and `/flags` as the SDKs send it (flags/sdk-request.ts `flagsRequestSchema`, before its aliases are folded). */
export const flagsRequestDoc = z
  .looseObject({
    token: z.string().optional().describe("The project API key (also `api_key`, `$token`)."),
    distinct_id: z.string().describe("Also `$distinct_id`."),
    $anon_distinct_id: z.string().optional(),
    groups: z.record(z.string(), z.string()).optional(),
    person_properties: properties.optional(),
    group_properties: z.record(z.string(), properties).optional(),
    flag_keys_to_evaluate: z.array(z.string()).optional(),
    geoip_disable: z.boolean().optional(),
    disable_flags: z.boolean().optional(),
  })
  .meta({ id: "FlagsRequest" });

/** `/flags/definitions` and `/api/feature_flag/local_evaluation/` (flags/definitions.ts). */
export const flagDefinitionsSchema = z
  .object({
    flags: z.array(
      z.looseObject({
        id: z.number().int(),
        team_id: z.number().int(),
        key: z.string(),
        name: z.string(),
        filters: z.looseObject({ groups: z.array(z.unknown()) }),
        deleted: z.boolean(),
        active: z.boolean(),
        ensure_experience_continuity: z.boolean(),
        version: z.number().int(),
      }),
    ),
    group_type_mapping: z.record(z.string(), z.string()),
    /** str(cohort id) → its property group, for every dynamic cohort the flags reach. */
    cohorts: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "FlagDefinitions" });

export const remoteConfigSchema = z
  .looseObject({
    token: z.string(),
    hasFeatureFlags: z.boolean(),
    ...projectSettings,
    surveys: z.union([z.literal(false), z.array(z.looseObject({ id: z.string(), name: z.string(), type: z.string() }))]).describe("false, or every survey not archived while one runs (posthog-js reads it as on or off)."),
    errorTracking: z.object({ autocaptureExceptions: z.boolean(), suppressionRules: z.array(z.unknown()) }),
    productTours: z.boolean(),
  })
  .meta({ id: "RemoteConfig" });

const tokenQuery = z.object({ token: z.string().describe("The project API key.") });
const definitionsQuery = z.object({
  token: z.string().optional().describe("The project API key naming the project."),
  send_cohorts: z.string().optional().describe("Present: `cohorts` holds the cohorts the flags reach (/flags/definitions always sends them)."),
});
const localEvaluationQuery = definitionsQuery.extend({ project_id: z.string().optional().describe("Another way to name the project (default: the caller's current one).") });
const versionQuery = z.object({
  v: z.string().optional().describe("Answer version: /decide 1–4, /flags 1–2."),
  config: z.string().optional().describe("/flags: `true` adds the project settings."),
  compression: z.enum(["gzip-js", "base64", "lz64"]).optional(),
});

const none = (summary: string, description: string, extra: Partial<RouteOperation["doc"]> = {}): RouteOperation => ({
  scopes: null,
  status: 200,
  doc: { summary, description, ...extra },
});

const CAPTURE = "Project API key in the body; success is `{\"status\": 1}` once the events are committed. Bodies up to 20 MB (also after decompression; 413 over it). An event with a bad name or distinct id is dropped and listed under `errors`; a request whose events are all bad is a 400 naming each.";

function capture(path: string, summary: string): PathOperation {
  return { path, method: "post", tag: "Capture", operation: none(summary, `${CAPTURE} GET with \`data=\` works too.`, { body: captureBodySchema, requestMedia: CAPTURE_MEDIA, response: captureAckSchema }) };
}

/** The two local-evaluation routes: the same answer and credentials. */
function flagDefinitions(path: string, summary: string, description: string, query: RouteOperation["doc"]["query"]): PathOperation {
  return {
    path,
    method: "get",
    tag: "Feature flags (SDK)",
    operation: {
      scopes: [{ object: "feature_flag", action: "read" }],
      secretKey: true,
      status: 200,
      doc: {
        summary,
        description: `${description} \`Authorization: Bearer\` with the project's secret key (\`phs_…\`) or a personal API key with \`feature_flag:read\`. Strong ETag: \`If-None-Match\` answers 304.`,
        query,
        response: flagDefinitionsSchema,
      },
    },
  };
}

const FLAGS_AUTH = "No personal key: the project API key goes in the body (`token`).";

export const SDK_OPERATIONS: readonly PathOperation[] = [
  capture("/capture/", "Capture events"),
  capture("/batch/", "Capture a batch of events"),
  capture("/e/", "Capture events (posthog-js)"),
  capture("/i/v0/e/", "Capture events (posthog-js, current path)"),
  capture("/track/", "Capture events (Mixpanel-style path)"),
  capture("/engage/", "Update persons (Mixpanel-style `$set`)"),
  {
    path: "/s/",
    method: "post",
    tag: "Capture",
    operation: none(
      "Session recording snapshots (posthog-js)",
      "A JSON array of `$snapshot` events (`$session_id`, `$window_id`, `$snapshot_data`: rrweb events, posthog-js's `cv`-packed ones too), gzip (by its magic bytes), base64, lz64, form `data=` or plain. At most 1 MiB on the wire and 8 MiB decoded (413 beyond). `{\"status\": \"Ok\"}` once the snapshots are committed; nothing is stored while the project's recording is off. Bad session or window ids, a missing distinct id or no rrweb events: 400; a missing or unknown project key: 401.",
      { requestMedia: CAPTURE_MEDIA, response: z.object({ status: z.literal("Ok") }).meta({ id: "SnapshotsAck" }) },
    ),
  },
  {
    path: "/decide/",
    method: "post",
    tag: "Feature flags (SDK)",
    operation: none("Evaluate flags with the project settings", `posthog-js's older call: the flags for a distinct id, with the project's settings. ${FLAGS_AUTH}`, {
      query: versionQuery,
      body: flagsRequestDoc,
      requestMedia: CAPTURE_MEDIA,
      response: flagsAnswerSchema,
    }),
  },
  {
    path: "/decide/",
    method: "get",
    tag: "Feature flags (SDK)",
    operation: none("The project settings, no flags", "A bare GET (no `data=`), as old snippets probe: the settings and no flags. With `data=` it evaluates like POST.", { query: versionQuery, response: flagsAnswerSchema }),
  },
  {
    path: "/flags/",
    method: "post",
    tag: "Feature flags (SDK)",
    operation: none("Evaluate flags", `The flags for a distinct id (\`v=2\`: each with its reason and payload). ${FLAGS_AUTH}`, {
      query: versionQuery,
      body: flagsRequestDoc,
      requestMedia: CAPTURE_MEDIA,
      response: flagsAnswerSchema,
    }),
  },
  flagDefinitions(
    "/flags/definitions",
    "Flag definitions for local evaluation",
    "What posthog-node 5 polls: every live flag with its conditions, the group types and the cohorts the flags reach.",
    definitionsQuery,
  ),
  flagDefinitions(
    "/api/feature_flag/local_evaluation/",
    "Flag definitions for local evaluation (older SDKs)",
    "As `/flags/definitions`; `cohorts` only with `send_cohorts` (otherwise a flag that reaches one simple person-property cohort names its conditions instead). A browser session works too.",
    localEvaluationQuery,
  ),
  {
    path: "/array/{token}/config",
    method: "get",
    tag: "Feature flags (SDK)",
    operation: none("posthog-js's remote configuration", "The project's settings for posthog-js, by its project API key in the path (`config.js`: the same as a script). 404 for an unknown key.", { response: remoteConfigSchema }),
  },
  {
    path: "/api/surveys/",
    method: "get",
    tag: "Surveys and early access (SDK)",
    operation: none("Surveys for posthog-js", "Every survey of the project that is not archived, drafts and stopped ones too (posthog-js checks `start_date` and `end_date`), in PostHog's public shape (no `description`). 401 without or with an unknown `token`.", {
      query: tokenQuery,
      response: z
        .object({
          surveys: z.array(
            z.looseObject({
              id: z.string(),
              name: z.string(),
              type: z.string(),
              linked_flag_key: z.string().nullable(),
              targeting_flag_key: z.string().nullable(),
              internal_targeting_flag_key: z.string().nullable(),
              questions: z.array(z.record(z.string(), z.unknown())),
              conditions: z.record(z.string(), z.unknown()).nullable(),
              appearance: z.record(z.string(), z.unknown()).nullable(),
              start_date: z.string().nullable(),
              end_date: z.string().nullable(),
              current_iteration: z.number().int().nullable(),
              current_iteration_start_date: z.string().nullable(),
              schedule: z.string(),
              enable_partial_responses: z.boolean(),
            }),
          ),
          survey_config: z.null(),
        })
        .meta({ id: "SurveysResponse" }),
    }),
  },
  {
    path: "/api/early_access_features/",
    method: "get",
    tag: "Surveys and early access (SDK)",
    operation: none("Early access features for posthog-js", "The project's features of the stages asked for (`stage`, repeated; `beta` when none is), as `getEarlyAccessFeatures` reads them. 400 for an unknown stage; 401 without or with an unknown `token`.", {
      query: tokenQuery.extend({ stage: z.enum(EAF_STAGES).optional() }),
      response: z
        .object({
          earlyAccessFeatures: z.array(
            z.object({ id: z.string(), name: z.string(), description: z.string(), stage: z.enum(EAF_STAGES), documentationUrl: z.string(), flagKey: z.string(), payload: z.record(z.string(), z.unknown()) }),
          ),
        })
        .meta({ id: "EarlyAccessFeaturesResponse" }),
    }),
  },
  {
    path: "/_health",
    method: "get",
    tag: "Operations",
    operation: none("Liveness", "200 while the process is up.", { response: z.object({ status: z.literal("ok") }).meta({ id: "Health" }) }),
  },
  {
    path: "/_ready",
    method: "get",
    tag: "Operations",
    operation: none("Readiness", "200 when the database answers within 2 s, 503 (`status: unavailable`) otherwise.", {
      response: z.object({ status: z.enum(["ok", "unavailable"]), database: z.string() }).meta({ id: "Readiness" }),
    }),
  },
];
