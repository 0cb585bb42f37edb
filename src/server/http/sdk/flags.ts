/**
 * The SDK-facing flag endpoints on the server's fast path (raw handlers, as the capture
 * family): `/decide` (v1–v4), `/flags` (v1 and v2), and posthog-js's remote configuration
 * `/array/<project key>/config` and `config.js`. Bodies are decoded like ingestion's
 * (JSON, gzip, base64, lz64, form `data=`); the responses have PostHog's shapes per version.
 *
 * The response path builds plain objects (no zod): this is the hottest path after capture.
 */
import { randomUUID } from "node:crypto";
import { FLAGS_MISSING_PROJECT_KEY, INVALID_PROJECT_KEY } from "@/server/accounts/contract";
import { getDb, type Database } from "@/server/db";
import { urgently } from "@/server/event-loop";
import { flagsRequestSchema, type FlagsRequestBody } from "@/server/flags/sdk-request";
import { evaluateFlagsForDistinctId, type FlagsEvaluation } from "@/server/flags/decide";
import { loadFlagDefinitions, type ProjectFlagDefinitions } from "@/server/flags/definitions";
import type { FlagDefinition, FlagResult } from "@/server/flags/evaluation";
import { hasActiveFlags, surveyFlagKeys } from "@/server/flags/service";
import { sessionRecordingConfig } from "@/server/recordings/present";
import { recordingSettingsFor } from "@/server/recordings/service";
import type { PublicSurvey } from "@/server/surveys/contract";
import { publicSurveys, surveysRunning } from "@/server/surveys/service";
import { decodeRequest } from "../body/decode";
import { IngestionError } from "@/server/ingestion/contract";
import { projectByKey } from "@/server/ingestion/service";
import { clientIp } from "../client-ip";
import { corsError, corsHeaders, corsJson, corsJsonText } from "../cors";
import { asRouteHandler, type RawHandler, type RawRequest, type RawResponse } from "../raw";

/** The settings of a project with nothing special enabled (no heatmaps, site apps); recordings and surveys per project. */
const PROJECT_SETTINGS = {
  // lz64 too: older posthog-js sends it when offered (decoding is bounded, see http/body/lz64.ts).
  supportedCompression: ["gzip", "gzip-js", "lz64"],
  sessionRecording: false,
  captureDeadClicks: false,
  capturePerformance: false,
  autocapture_opt_out: false,
  autocaptureExceptions: false,
  analytics: { endpoint: "/i/v0/e/" },
  elementsChainAsString: true,
  surveys: false,
  heatmaps: false,
  defaultIdentifiedOnly: true,
  siteApps: [],
};

/** `sessionRecording`: false, or the object posthog-js starts its recorder with. */
type SessionRecording = false | Record<string, unknown>;

/** What PostHog's `get_base_config` answers for such a project. */
function baseConfig(settings: ProjectExtras): Record<string, unknown> {
  return { config: { enable_collect_everything: true }, toolbarParams: {}, isAuthenticated: false, ...PROJECT_SETTINGS, sessionRecording: settings.sessionRecording, surveys: settings.surveys, flagsPersistenceDefault: false };
}

/** What differs per project in the config: the recorder's settings, and whether a survey runs. */
interface ProjectExtras {
  sessionRecording: SessionRecording;
  surveys: boolean;
}
const NO_EXTRAS: ProjectExtras = { sessionRecording: false, surveys: false };

/** Whether posthog-js should load surveys: a survey runs. False when that cannot be read. */
async function surveysOf(db: Database, projectId: number): Promise<boolean> {
  try {
    return await surveysRunning(db, projectId);
  } catch (error) {
    console.error("burrow: surveys could not be read", error);
    return false;
  }
}

/** A project's `sessionRecording` value; false when its settings cannot be read. */
async function sessionRecordingOf(db: Database, projectId: number): Promise<SessionRecording> {
  try {
    return sessionRecordingConfig(await recordingSettingsFor(db, projectId));
  } catch (error) {
    console.error("burrow: recording settings could not be read", error);
    return false;
  }
}

/** A stored payload as the SDKs expect it on the wire: JSON text (stored text is sent as it is). */
function wirePayload(flag: FlagDefinition | undefined, result: FlagResult): string | null {
  if (!flag || !result.enabled) return null;
  const stored = flag.filters.payloads?.[result.variant ?? "true"];
  if (stored === undefined || stored === null || stored === "") return null;
  return typeof stored === "string" ? stored : JSON.stringify(stored);
}

function flagValue(result: FlagResult): boolean | string {
  return result.enabled ? (result.variant ?? true) : false;
}

/**
 * Each answer's JSON text, made once: evaluation shares one object per distinct answer of a
 * flag (evaluation.ts), so a response is a join of cached texts. With 120 flags, walking
 * fresh objects with JSON.stringify was most of an answer's CPU and garbage.
 */
interface AnswerTexts {
  /** `"key":{…}` in /flags v2's and decide v4's `flags` map. */
  detailed?: string;
  /** `"key":value` in `featureFlags`. */
  value?: string;
  /** `"key":"payload"` in `featureFlagPayloads`, or "" without a payload. */
  payload?: string;
}
const answerTexts = new WeakMap<FlagResult, AnswerTexts>();

function textsOf(result: FlagResult): AnswerTexts {
  let texts = answerTexts.get(result);
  if (!texts) {
    texts = {};
    answerTexts.set(result, texts);
  }
  return texts;
}

/** The `flags` map of /flags v2 and decide v4, as JSON text. */
function detailedFlagsText(evaluation: FlagsEvaluation, definitions: ProjectFlagDefinitions | null): string {
  const entries: string[] = [];
  for (const key in evaluation.flags) {
    const result = evaluation.flags[key]!;
    const texts = textsOf(result);
    if (texts.detailed === undefined) {
      const flag = definitions?.flagsByKey.get(key);
      const metadata = { id: flag?.id ?? null, version: flag?.version ?? 0, description: null, payload: wirePayload(flag, result) };
      const text = `${JSON.stringify(key)}:${JSON.stringify({ key, enabled: result.enabled, variant: result.variant, reason: result.reason, metadata })}`;
      // Without the definition the metadata is a guess: not kept.
      if (!flag) {
        entries.push(text);
        continue;
      }
      texts.detailed = text;
    }
    entries.push(texts.detailed);
  }
  return `{${entries.join(",")}}`;
}

/** `featureFlags` and `featureFlagPayloads` (decide v3, /flags v1) as JSON text: every flag, payloads of the enabled ones. */
function legacyMapsText(evaluation: FlagsEvaluation, definitions: ProjectFlagDefinitions | null): { featureFlags: string; featureFlagPayloads: string } {
  const values: string[] = [];
  const payloads: string[] = [];
  for (const key in evaluation.flags) {
    const result = evaluation.flags[key]!;
    const texts = textsOf(result);
    if (texts.value === undefined) texts.value = `${JSON.stringify(key)}:${JSON.stringify(flagValue(result))}`;
    values.push(texts.value);
    let payload = texts.payload;
    if (payload === undefined) {
      const flag = definitions?.flagsByKey.get(key);
      const wire = wirePayload(flag, result);
      payload = wire === null ? "" : `${JSON.stringify(key)}:${JSON.stringify(wire)}`;
      if (flag) texts.payload = payload;
    }
    if (payload !== "") payloads.push(payload);
  }
  return { featureFlags: `{${values.join(",")}}`, featureFlagPayloads: `{${payloads.join(",")}}` };
}

type Endpoint = "decide" | "flags";

/** `?v=`: absent means 1; unreadable means 2, as PostHog's decide does. */
function versionOf(url: URL): number {
  const raw = url.searchParams.get("v");
  if (raw === null) return 1;
  const version = Number.parseInt(raw, 10);
  return Number.isFinite(version) ? version : 2;
}

/** JSON text of an object whose fields are given as JSON texts, in order. */
function objectText(fields: Array<[string, string]>): string {
  return `{${fields.map(([name, text]) => `${JSON.stringify(name)}:${text}`).join(",")}}`;
}

/** The answer's body per endpoint and version, in PostHog's shapes (as JSON text). */
function shape(endpoint: Endpoint, version: number, withConfig: boolean, evaluation: FlagsEvaluation, definitions: ProjectFlagDefinitions | null, extras: ProjectExtras = NO_EXTRAS): string {
  const requestId: [string, string] = ["requestId", JSON.stringify(randomUUID())];
  const errors: [string, string] = ["errorsWhileComputingFlags", JSON.stringify(evaluation.errorsWhileComputingFlags)];
  const config = endpoint === "decide" || withConfig ? Object.entries(baseConfig(extras)).map(([name, value]): [string, string] => [name, JSON.stringify(value)]) : [];
  if ((endpoint === "flags" && version >= 2) || (endpoint === "decide" && version >= 4)) {
    const evaluatedAt: Array<[string, string]> = endpoint === "flags" ? [["evaluatedAt", String(Date.now())]] : [];
    return objectText([...config, ["flags", detailedFlagsText(evaluation, definitions)], errors, requestId, ...evaluatedAt]);
  }
  if (endpoint === "flags" || version === 3) {
    const { featureFlags, featureFlagPayloads } = legacyMapsText(evaluation, definitions);
    const maps: Array<[string, string]> = endpoint === "flags" ? [["featureFlags", featureFlags], ["featureFlagPayloads", featureFlagPayloads], errors] : [["featureFlags", featureFlags], errors, ["featureFlagPayloads", featureFlagPayloads]];
    return objectText([...config, ...maps, requestId]);
  }
  const enabled = Object.values(evaluation.flags).filter((result) => result.enabled);
  const featureFlags = version === 2 ? Object.fromEntries(enabled.map((result) => [result.key, flagValue(result)])) : enabled.map((result) => result.key);
  return objectText([...config, ["featureFlags", JSON.stringify(featureFlags)], requestId]);
}

const NOTHING: FlagsEvaluation = { flags: {}, errorsWhileComputingFlags: false };

async function evaluate(db: Database, projectId: number, body: FlagsRequestBody, request: RawRequest, url: URL) {
  let flagKeys = body.flagKeys ?? undefined;
  // posthog-js asks with only_evaluate_survey_feature_flags for the flags surveys target.
  if (url.searchParams.get("only_evaluate_survey_feature_flags") === "true") flagKeys = await surveyFlagKeys(db, projectId, flagKeys);
  return evaluateFlagsForDistinctId(db, projectId, {
    distinctId: body.distinctId!,
    personProperties: body.personProperties,
    groups: body.groups,
    groupProperties: body.groupProperties,
    ip: body.geoipDisable ? null : clientIp(request.header),
    flagKeys,
    anonDistinctId: body.anonDistinctId,
  });
}

function flagsEndpoint(endpoint: Endpoint) {
  return async function handleFlags(request: RawRequest): Promise<RawResponse> {
    if (request.method === "OPTIONS") return corsJson(request, 200, { status: 1 });
    const url = new URL(request.url, "http://localhost");
    const version = versionOf(url);
    const withConfig = url.searchParams.get("config") === "true";
    // A bare GET /decide/ (no data) is how old snippets probe: the config, no flags.
    if (request.method === "GET" && !url.searchParams.has("data")) {
      return corsJsonText(request, 200, shape(endpoint, Math.max(version, 2), withConfig, NOTHING, null));
    }
    if (request.method !== "GET" && request.method !== "POST") {
      return corsError(request, 405, "invalid_request", "method_not_allowed", `Method "${request.method}" not allowed.`);
    }

    let body: FlagsRequestBody;
    try {
      const decoded = await decodeRequest(request.method, url, { get: request.header }, request.body);
      const parsed = flagsRequestSchema.safeParse(decoded.payload);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const where = issue.path.length > 0 ? ` (${issue.path.join(".")})` : "";
        return corsError(request, 400, "validation_error", "malformed_data", `Malformed request data: ${issue.message}${where}`);
      }
      body = parsed.data;
      if (!body.token && decoded.formToken) body = { ...body, token: decoded.formToken };
    } catch (error) {
      if (error instanceof IngestionError) {
        const code = error.code === "invalid_payload" ? "malformed_data" : error.code;
        return corsError(request, error.status, error.status === 401 ? "authentication_error" : "validation_error", code, error.message);
      }
      throw error;
    }

    const token = body.token?.trim();
    if (!token) return corsError(request, 401, "authentication_error", "no_api_key", FLAGS_MISSING_PROJECT_KEY);
    if (!body.distinctId) return corsError(request, 400, "validation_error", "missing_distinct_id", "Decide requires a distinct_id.");

    let db: Database;
    let projectId: number;
    try {
      db = await getDb();
      const project = await projectByKey(db, token);
      if (!project) return corsError(request, 401, "authentication_error", "invalid_api_key", INVALID_PROJECT_KEY);
      projectId = project.id;
    } catch (error) {
      // The project cannot be looked up (database down): answer with no flags, flagged as an error,
      // so SDKs keep the values they have.
      console.error("burrow: flags could not be computed", error);
      return corsJsonText(request, 200, shape(endpoint, version, withConfig, { flags: {}, errorsWhileComputingFlags: true }, null));
    }

    const extras = withConfig || endpoint === "decide" ? { sessionRecording: await sessionRecordingOf(db, projectId), surveys: await surveysOf(db, projectId) } : NO_EXTRAS;
    if (body.disableFlags) return corsJsonText(request, 200, shape(endpoint, version, withConfig, NOTHING, null, extras));
    let evaluation: FlagsEvaluation;
    let definitions: ProjectFlagDefinitions | null = null;
    try {
      evaluation = await evaluate(db, projectId, body, request, url);
      definitions = await loadFlagDefinitions(db, projectId);
    } catch (error) {
      console.error("burrow: flags could not be computed", error);
      evaluation = { flags: {}, errorsWhileComputingFlags: true };
    }
    return corsJsonText(request, 200, shape(endpoint, version, withConfig, evaluation, definitions, extras));
  };
}

/** Urgent: ingestion arriving while one is answered steps aside (event-loop.ts). */
function urgentFlagsEndpoint(endpoint: Endpoint): RawHandler {
  const handle = flagsEndpoint(endpoint);
  return (request) => urgently(() => handle(request));
}

export const rawDecide = urgentFlagsEndpoint("decide");
export const rawFlags = urgentFlagsEndpoint("flags");

/**
 * posthog-js's remote configuration (`/array/<project key>/config` JSON and `config.js`),
 * PostHog's RemoteConfig for a project with no heatmaps or site apps (recordings as set;
 * `surveys` the list of surveys while one runs, which posthog-js reads as "load surveys").
 */
export async function rawRemoteConfig(request: RawRequest): Promise<RawResponse> {
  if (request.method === "OPTIONS") return { status: 204, headers: corsHeaders(request), body: null };
  if (request.method !== "GET" && request.method !== "HEAD") {
    return corsError(request, 405, "invalid_request", "method_not_allowed", `Method "${request.method}" not allowed.`);
  }
  const path = new URL(request.url, "http://localhost").pathname;
  const match = /^\/array\/([^/]+)\/(config|config\.js)\/?$/.exec(path);
  if (!match) return corsError(request, 404, "invalid_request", "not_found", "Not found.");
  const token = decodeURIComponent(match[1]!);
  let hasFeatureFlags = true;
  let sessionRecording: SessionRecording = false;
  let surveys: false | PublicSurvey[] = false;
  try {
    const db = await getDb();
    const project = await projectByKey(db, token);
    if (!project) return corsError(request, 404, "invalid_request", "not_found", "Not found.");
    hasFeatureFlags = await hasActiveFlags(db, project.id);
    sessionRecording = await sessionRecordingOf(db, project.id);
    if (await surveysOf(db, project.id)) surveys = await publicSurveys(db, project.id);
  } catch (error) {
    // Without the database, let the SDK ask /flags itself.
    console.error("burrow: remote config could not be computed", error);
  }
  const config = { token, hasFeatureFlags, ...PROJECT_SETTINGS, sessionRecording, surveys, errorTracking: { autocaptureExceptions: false, suppressionRules: [] }, productTours: false };
  const headers = { ...corsHeaders(request), "cache-control": "public, max-age=60" };
  if (match[2] === "config") return { status: 200, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(config) };
  // The script form assigns the config where posthog-js's remote-config loader reads it.
  const script =
    "(function() {\n" +
    "  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};\n" +
    `  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}] = { config: ${JSON.stringify(config)}, siteApps: [] };\n` +
    "})();\n";
  return { status: 200, headers: { "content-type": "application/javascript", ...headers }, body: script };
}

/** The same handlers as fetch-style route handlers (route files under src/app, tests). */
export const handleDecide = asRouteHandler(rawDecide);
export const handleFlags = asRouteHandler(rawFlags);
export const handleRemoteConfig = asRouteHandler(rawRemoteConfig);
