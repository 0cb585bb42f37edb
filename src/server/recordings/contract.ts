/**
 * Session replay's contract: a project's recording settings (PostHog's `session_recording_*`
 * team fields), what `/s/` accepts, and the recordings API's queries and answers
 * (shared/POSTHOG-PLATFORM-NOTES.md §1).
 */
import { z } from "zod";
import { regexSyntaxError } from "@/server/properties/regex";
import { hasNul, NUL_MESSAGE } from "@/server/input/nul";
import { propertiesParamSchema } from "@/server/properties/contract";

// ── Settings ────────────────────────────────────────────────────────────────────────────

export const RETENTION_PERIODS = ["30d", "90d", "1y", "5y"] as const;
export type RetentionPeriod = (typeof RETENTION_PERIODS)[number];
export const RETENTION_DAYS: Record<RetentionPeriod, number> = { "30d": 30, "90d": 90, "1y": 365, "5y": 1825 };

/** Stored bytes a project may keep before its oldest recordings are evicted (Burrow's own setting). */
export const DEFAULT_STORAGE_BUDGET_BYTES = 1024 * 1024 * 1024;
export const MAX_STORAGE_BUDGET_BYTES = 1024 * 1024 * 1024 * 1024;

const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string.` })
    .max(max, `${name} must be at most ${max} characters.`)
    .refine((value) => !hasNul(value), NUL_MESSAGE);

const urlTrigger = z.strictObject({
  url: text("url", 1000).refine((value) => regexSyntaxError(value) === null, "url must be a valid regular expression."),
  matching: z.literal("regex").default("regex"),
});

const linkedFlag = z.strictObject({
  id: z.number().int().nullable().optional(),
  key: text("key", 400).min(1, "key is required."),
  variant: text("variant", 400).nullable().optional(),
});

const masking = z.strictObject({
  maskAllInputs: z.boolean().optional(),
  maskTextSelector: text("maskTextSelector", 1000).nullable().optional(),
  blockSelector: text("blockSelector", 1000).nullable().optional(),
});

/** A sample rate as PostHog's decimal field takes it (a number or its text), 0–1, two places. */
const sampleRate = z
  .union([z.number(), z.string().regex(/^(0(\.\d{1,2})?|1(\.0{1,2})?)$/, "session_recording_sample_rate must be a decimal from 0 to 1.")])
  .transform(Number)
  .refine((rate) => rate >= 0 && rate <= 1, "session_recording_sample_rate must be between 0 and 1.")
  .transform((rate) => Math.round(rate * 100) / 100);

/** The settings as stored and as the API shows them (PostHog's team field names). */
export const recordingSettingsSchema = z.object({
  session_recording_opt_in: z.boolean(),
  /** 0–1; null is everyone (PostHog stores 1 as null too). */
  session_recording_sample_rate: z.number().min(0).max(1).nullable(),
  session_recording_minimum_duration_milliseconds: z.number().int().min(0).max(30_000).nullable(),
  session_recording_linked_flag: linkedFlag.nullable(),
  session_recording_url_trigger_config: z.array(urlTrigger).max(100),
  session_recording_url_blocklist_config: z.array(urlTrigger).max(100),
  capture_console_log_opt_in: z.boolean(),
  session_recording_masking_config: masking.nullable(),
  session_recording_retention_period: z.enum(RETENTION_PERIODS),
  /** Burrow's: stored bytes kept before the oldest recordings are evicted. */
  session_recording_storage_budget_bytes: z.number().int().min(0).max(MAX_STORAGE_BUDGET_BYTES),
});
export type RecordingSettings = z.infer<typeof recordingSettingsSchema>;

export const DEFAULT_RECORDING_SETTINGS: RecordingSettings = {
  session_recording_opt_in: false,
  session_recording_sample_rate: null,
  session_recording_minimum_duration_milliseconds: null,
  session_recording_linked_flag: null,
  session_recording_url_trigger_config: [],
  session_recording_url_blocklist_config: [],
  capture_console_log_opt_in: true,
  session_recording_masking_config: { maskAllInputs: true },
  session_recording_retention_period: "30d",
  session_recording_storage_budget_bytes: DEFAULT_STORAGE_BUDGET_BYTES,
};

/** A PATCH of some of the settings (part of `PATCH /api/projects/:id/`). */
export const recordingSettingsInput = z.object({
  session_recording_opt_in: z.boolean({ error: "session_recording_opt_in must be a boolean." }).optional(),
  session_recording_sample_rate: sampleRate.nullable().optional(),
  session_recording_minimum_duration_milliseconds: z
    .number({ error: "session_recording_minimum_duration_milliseconds must be a number." })
    .int()
    .min(0, "session_recording_minimum_duration_milliseconds must be at least 0.")
    .max(30_000, "session_recording_minimum_duration_milliseconds must be at most 30000.")
    .nullable()
    .optional(),
  session_recording_linked_flag: linkedFlag.nullable().optional(),
  session_recording_url_trigger_config: z.array(urlTrigger).max(100).nullable().optional(),
  session_recording_url_blocklist_config: z.array(urlTrigger).max(100).nullable().optional(),
  capture_console_log_opt_in: z.boolean({ error: "capture_console_log_opt_in must be a boolean." }).optional(),
  session_recording_masking_config: masking.nullable().optional(),
  session_recording_retention_period: z.enum(RETENTION_PERIODS, { error: "session_recording_retention_period must be one of 30d, 90d, 1y, 5y." }).optional(),
  session_recording_storage_budget_bytes: z
    .number({ error: "session_recording_storage_budget_bytes must be a number." })
    .int()
    .min(0)
    .max(MAX_STORAGE_BUDGET_BYTES)
    .optional(),
});
export type RecordingSettingsInput = z.infer<typeof recordingSettingsInput>;
export const RECORDING_SETTING_KEYS = Object.keys(recordingSettingsInput.shape) as (keyof RecordingSettingsInput)[];

// ── Ingestion (/s/) ─────────────────────────────────────────────────────────────────────

/** Largest /s/ body on the wire: posthog-js flushes at 0.9 MiB of JSON, usually gzipped. */
export const MAX_RECORDING_BODY_BYTES = 1024 * 1024;
/** Largest decompressed /s/ body. */
export const MAX_RECORDING_DECODED_BYTES = 8 * 1024 * 1024;

/** PostHog's capture rule for `$session_id` and `$window_id`. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9-]{1,70}$/;

/** One rrweb event as far as ingestion reads it; the rest is stored as sent. */
export interface SnapshotItem {
  type: number;
  timestamp: number;
  data?: unknown;
  [key: string]: unknown;
}

/** What one (session, window) of a request adds: the chunk to store and its metadata. */
export interface ChunkSummary {
  sessionId: string;
  windowId: string;
  distinctId: string;
  firstTimestamp: number;
  lastTimestamp: number;
  eventCount: number;
  /** Bytes of the JSONL before compression. */
  rawBytes: number;
  /** The gzip-compressed JSONL of `[windowId, event]` lines. */
  data: Uint8Array;
  /** Epoch ms of the active events (rrweb incremental snapshots of user activity), in order. */
  activeTimestamps: number[];
  clicks: number;
  keypresses: number;
  mouseActivity: number;
  consoleLog: number;
  consoleWarn: number;
  consoleError: number;
  firstUrl: string | null;
  snapshotSource: string;
  snapshotLibrary: string | null;
}

/** A recording's metadata as stored. */
export interface RecordingRow {
  sessionId: string;
  distinctId: string;
  startTime: Date;
  endTime: Date;
  activeMs: number;
  lastActiveMs: number | null;
  clickCount: number;
  keypressCount: number;
  mouseActivityCount: number;
  consoleLogCount: number;
  consoleWarnCount: number;
  consoleErrorCount: number;
  startUrl: string | null;
  snapshotSource: string;
  snapshotLibrary: string | null;
  sizeBytes: number;
  chunkCount: number;
}

export interface ChunkRow {
  id: string;
  windowId: string;
  firstTimestamp: Date;
  lastTimestamp: Date;
  eventCount: number;
  rawBytes: number;
  data: Uint8Array;
}

// ── API ─────────────────────────────────────────────────────────────────────────────────

const jsonParam = <T extends z.ZodType>(name: string, schema: T) =>
  z
    .string()
    .max(10_000, `${name} is too long.`)
    .transform((value, ctx) => {
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: `${name} must be JSON.` });
        return z.NEVER;
      }
    })
    .pipe(schema);

const havingPredicate = z.object({
  key: z.enum(["duration", "active_seconds", "inactive_seconds", "click_count", "keypress_count", "console_error_count"], {
    error: "having_predicates keys are duration, active_seconds, inactive_seconds, click_count, keypress_count or console_error_count.",
  }),
  operator: z.enum(["gt", "lt", "gte", "lte", "exact"], { error: "having_predicates operators are gt, lt, gte, lte or exact." }),
  value: z.coerce.number({ error: "having_predicates values must be numbers." }),
  type: z.string().optional(),
});
export type HavingPredicate = z.infer<typeof havingPredicate>;

const consoleFilter = z.object({
  key: z.literal("level").default("level"),
  value: z.union([z.array(z.enum(["error", "warn", "info", "log"])), z.enum(["error", "warn", "info", "log"])]),
  operator: z.string().optional(),
  type: z.string().optional(),
});

/**
 * "Events performed" (PostHog's `events` of RecordingsQuery): recordings whose session has an
 * event of this name (`id`) matching `properties`. Several combine by `operand`.
 */
const eventFilter = z.object({
  id: text("events[].id", 400).min(1, "events[].id is the event's name."),
  type: z.literal("events", { error: "events[].type must be \"events\"." }).default("events"),
  name: z.string().max(400).optional(),
  order: z.number().optional(),
  properties: propertiesParamSchema.optional(),
});
export type RecordingEventFilter = z.infer<typeof eventFilter>;
/** Sessions one "events performed" filter may match; past it the answer would be partial, so the request is refused. */
export const MAX_EVENT_FILTER_SESSIONS = 10_000;

export const RECORDING_ORDERS = ["start_time", "duration", "recording_duration", "active_seconds", "inactive_seconds", "console_error_count", "click_count", "keypress_count", "mouse_activity_count"] as const;

const listFields = {
  date_from: z.string().max(64).optional(),
  date_to: z.string().max(64).optional(),
  person_uuid: z.uuid({ error: "person_uuid must be a UUID." }).optional(),
  operand: z.enum(["AND", "OR"]).default("AND"),
  order: z.enum(RECORDING_ORDERS, { error: `order must be one of ${RECORDING_ORDERS.join(", ")}.` }).default("start_time"),
  order_direction: z.enum(["ASC", "DESC"]).default("DESC"),
};
const distinctIdList = z.array(z.string().max(400)).max(100);
const sessionIdList = z.array(z.string().max(200)).max(1000);
const havingList = z.array(havingPredicate).max(20);
const consoleList = z.array(consoleFilter).max(10);
const eventList = z.array(eventFilter).max(10, "events takes at most 10 filters.");

/** `GET …/session_recordings/`: PostHog's RecordingsQuery fields Burrow reads; lists and objects JSON-encoded. */
export const recordingListQuery = z.object({
  ...listFields,
  distinct_ids: jsonParam("distinct_ids", distinctIdList).optional(),
  session_ids: jsonParam("session_ids", sessionIdList).optional(),
  having_predicates: jsonParam("having_predicates", havingList).optional(),
  console_log_filters: jsonParam("console_log_filters", consoleList).optional(),
  events: jsonParam("events", eventList).optional(),
  limit: z.coerce.number({ error: "limit must be a number." }).int().min(1).max(1000).default(50),
  offset: z.coerce.number({ error: "offset must be a number." }).int().min(0).max(1_000_000).default(0),
});

/** The same query for the Replay page (tRPC): the lists as they are. */
export const recordingListInput = z.object({
  ...listFields,
  distinct_ids: distinctIdList.optional(),
  session_ids: sessionIdList.optional(),
  having_predicates: havingList.optional(),
  console_log_filters: consoleList.optional(),
  events: eventList.optional(),
  limit: z.number().int().min(1).max(1000).default(50),
  offset: z.number().int().min(0).max(1_000_000).default(0),
});
export type RecordingListQuery = z.infer<typeof recordingListQuery>;

/** `GET …/:id/snapshots/`: no source (the list of sources) or `blob_v2` with a key range. */
export const snapshotsQuery = z.object({
  source: z.string().max(40).optional(),
  start_blob_key: z.coerce.number({ error: "start_blob_key must be an integer." }).int().min(0).optional(),
  end_blob_key: z.coerce.number({ error: "end_blob_key must be an integer." }).int().min(0).optional(),
  blob_key: z.string().max(40).optional(),
});

const personSchema = z.object({
  id: z.union([z.number(), z.string()]).nullable(),
  uuid: z.string().nullable(),
  name: z.string().nullable(),
  distinct_ids: z.array(z.string()),
  properties: z.record(z.string(), z.unknown()),
  created_at: z.string().nullable(),
});

/** A recording in PostHog's list and retrieve shape. */
export const recordingSchema = z
  .object({
    id: z.string(),
    distinct_id: z.string(),
    viewed: z.boolean(),
    viewers: z.array(z.string()),
    recording_duration: z.number().int(),
    active_seconds: z.number().int(),
    inactive_seconds: z.number().int(),
    start_time: z.string(),
    end_time: z.string(),
    click_count: z.number().int(),
    keypress_count: z.number().int(),
    mouse_activity_count: z.number().int(),
    console_log_count: z.number().int(),
    console_warn_count: z.number().int(),
    console_error_count: z.number().int(),
    start_url: z.string().nullable(),
    person: personSchema,
    retention_period_days: z.number().int(),
    expiry_time: z.string(),
    recording_ttl: z.number().int(),
    snapshot_source: z.string(),
    snapshot_library: z.string().nullable(),
    ongoing: z.boolean(),
    activity_score: z.number().nullable(),
    has_summary: z.boolean(),
    external_references: z.array(z.unknown()),
    storage_bytes: z.number().int().describe("Burrow's: the recording's stored (compressed) bytes."),
  })
  .meta({ id: "SessionRecording" });
export type RecordingResource = z.infer<typeof recordingSchema>;

export const recordingListSchema = z
  .object({ results: z.array(recordingSchema), has_next: z.boolean(), version: z.literal(4) })
  .meta({ id: "SessionRecordingList" });

export const snapshotSourcesSchema = z
  .object({ sources: z.array(z.object({ source: z.literal("blob_v2"), start_timestamp: z.string(), end_timestamp: z.string(), blob_key: z.string() })) })
  .meta({ id: "SessionRecordingSnapshotSources" });

/** Bytes used against the budget, shown on the Replay page. */
export interface RecordingUsage {
  recordings: number;
  bytes: number;
  budgetBytes: number;
  recordedMs: number;
  /** Stored bytes per recorded minute, null before any recording. */
  bytesPerMinute: number | null;
  retentionPeriod: RetentionPeriod;
}
