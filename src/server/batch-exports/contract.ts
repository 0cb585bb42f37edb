/**
 * Request and answer shapes of batch exports (`/api/projects/:id/batch_exports/`, PostHog's
 * posthog/batch_exports/http.py), shared by REST, tRPC and the form. Browser-safe.
 * Models: events, persons, sessions. Destinations: S3 (JSON Lines, gzip, brotli, zstd, lz4 or
 * none; Parquet, snappy, gzip, brotli, zstd, lz4 or none; split at `max_file_size_mb`),
 * Postgres and HTTP (events only: PostHog's `/batch`).
 */
import { z } from "zod";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";

export const BATCH_EXPORT_MODELS = ["events", "persons", "sessions"] as const;
export type BatchExportModel = (typeof BATCH_EXPORT_MODELS)[number];
export const FILE_FORMATS = ["JSONLines", "Parquet"] as const;
/** PostHog's S3 compressions; which run depends on the file format. */
export const S3_COMPRESSIONS = ["gzip", "brotli", "snappy", "zstd", "lz4"] as const;
export const SUPPORTED_COMPRESSIONS: Record<(typeof FILE_FORMATS)[number], readonly (typeof S3_COMPRESSIONS)[number][]> = {
  // PostHog's JSON Lines take gzip and brotli; zstd and lz4 here too (a whole-file frame). Snappy has no stream format here.
  JSONLines: ["gzip", "brotli", "zstd", "lz4"],
  Parquet: ["snappy", "gzip", "brotli", "zstd", "lz4"],
};
export const BATCH_EXPORT_INTERVALS = ["hour", "day"] as const;
export type BatchExportInterval = (typeof BATCH_EXPORT_INTERVALS)[number];
export const DESTINATION_TYPES = ["S3", "Postgres", "HTTP"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];
/** PostHog's run statuses (those a run here can take). */
export const RUN_STATUSES = ["Starting", "Running", "Completed", "FailedRetryable", "Failed", "Cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const BACKFILL_STATUSES = ["Running", "Completed", "Failed", "Cancelled"] as const;

/** Config keys that are credentials: stored sealed, answered masked. */
export const SECRET_CONFIG_KEYS: Record<DestinationType, readonly string[]> = {
  S3: ["aws_secret_access_key"],
  Postgres: ["password"],
  HTTP: ["token"],
};

export const BATCH_EXPORT_LIMITS = { maxName: 400, maxText: 2048, maxEvents: 200, maxBackfillRuns: 2000, maxFileSizeMb: 1_000_000 } as const;

const text = (label: string) => z.string({ error: `${label} is required.` }).trim().min(1, `${label} may not be blank.`).max(BATCH_EXPORT_LIMITS.maxText);
const optionalText = z.string().trim().max(BATCH_EXPORT_LIMITS.maxText).nullish();
const eventNames = z.array(z.string().max(400)).max(BATCH_EXPORT_LIMITS.maxEvents).nullish();
/** PostgreSQL identifiers as PostHog's form takes them: letters, digits, underscores. */
const identifier = (label: string) =>
  z
    .string()
    .trim()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, `${label} may hold only letters, digits and underscores (at most 63, not starting with a digit).`);

const common = { include_events: eventNames, exclude_events: eventNames };

export const s3ConfigSchema = z.object({
  ...common,
  bucket_name: text("bucket_name").regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "bucket_name must be a valid bucket name (3–63 lowercase letters, digits, dots and hyphens)."),
  region: z.string().trim().max(100).regex(/^[a-z0-9-]*$/, "region holds lowercase letters, digits and hyphens.").nullish(),
  prefix: z.string().max(1024).nullish(),
  aws_access_key_id: text("aws_access_key_id"),
  aws_secret_access_key: text("aws_secret_access_key"),
  compression: z.enum(S3_COMPRESSIONS, { error: `compression must be one of ${S3_COMPRESSIONS.join(", ")} (or null for none).` }).nullish(),
  /** An S3-compatible server (MinIO, R2, …); none: AWS. */
  endpoint_url: optionalText,
  file_format: z.enum(FILE_FORMATS, { error: `file_format must be one of ${FILE_FORMATS.join(", ")}.` }).nullish(),
  use_virtual_style_addressing: drfBoolean.nullish(),
  encryption: z.null({ error: "Server-side encryption is not supported." }).optional(),
  kms_key_id: z.null().optional(),
  /** Split an interval's file at this size (MiB, PostHog's int; a string of digits too, as DRF takes it). */
  max_file_size_mb: z
    .preprocess(
      (value) => (typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
      z
        .number({ error: "max_file_size_mb must be a whole number of MiB (or null for one file per interval)." })
        .int("max_file_size_mb must be a whole number of MiB.")
        .min(1, "max_file_size_mb must be 1 or more.")
        .max(BATCH_EXPORT_LIMITS.maxFileSizeMb, `max_file_size_mb must be at most ${BATCH_EXPORT_LIMITS.maxFileSizeMb}.`),
    )
    .nullish(),
}).superRefine((config, context) => {
  const format = config.file_format ?? "JSONLines";
  const supported = SUPPORTED_COMPRESSIONS[format];
  if (config.compression && !supported.includes(config.compression)) {
    context.addIssue({ code: "custom", path: ["compression"], message: `compression ${config.compression} is not supported with ${format}: use ${supported.join(", ")} (or null for none).` });
  }
});
export type S3Config = z.output<typeof s3ConfigSchema>;

export const postgresConfigSchema = z.object({
  ...common,
  user: text("user"),
  password: z.string().max(BATCH_EXPORT_LIMITS.maxText).default(""),
  host: text("host"),
  port: z.coerce.number({ error: "port must be a number." }).int().min(1).max(65535).default(5432),
  database: text("database"),
  schema: identifier("schema").default("public"),
  table_name: identifier("table_name").default("events"),
  has_self_signed_cert: drfBoolean.optional().default(false),
});
export type PostgresConfig = z.output<typeof postgresConfigSchema>;

export const httpConfigSchema = z.object({
  ...common,
  url: text("url"),
  token: z.string().max(BATCH_EXPORT_LIMITS.maxText).nullish(),
});
export type HttpConfig = z.output<typeof httpConfigSchema>;

export const destinationSchema = z.discriminatedUnion(
  "type",
  [
    z.object({ type: z.literal("S3"), config: s3ConfigSchema }),
    z.object({ type: z.literal("Postgres"), config: postgresConfigSchema }),
    z.object({ type: z.literal("HTTP"), config: httpConfigSchema }),
  ],
  { error: `destination.type must be one of ${DESTINATION_TYPES.join(", ")}.` },
);
export type DestinationInput = z.output<typeof destinationSchema>;

const name = z.string({ error: "This field is required." }).trim().min(1, "This field may not be blank.").max(BATCH_EXPORT_LIMITS.maxName);
const instant = (field: string) => z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 date-time.` });
const model = z.enum(BATCH_EXPORT_MODELS, { error: `model must be one of ${BATCH_EXPORT_MODELS.join(", ")}.` });
const interval = z.enum(BATCH_EXPORT_INTERVALS, { error: `interval must be one of ${BATCH_EXPORT_INTERVALS.join(", ")}.` });

export const batchExportCreateBody = z.object({
  name,
  model: model.optional().default("events"),
  destination: destinationSchema,
  interval,
  paused: drfBoolean.optional().default(false),
  start_at: instant("start_at").nullish(),
  end_at: instant("end_at").nullish(),
});
export type BatchExportCreateBody = z.output<typeof batchExportCreateBody>;
export type BatchExportCreateInput = z.input<typeof batchExportCreateBody>;

/** PATCH: any of these; a masked secret sent back keeps the stored one. */
export const batchExportUpdateBody = z.object({
  name: name.optional(),
  destination: destinationSchema.optional(),
  interval: interval.optional(),
  paused: drfBoolean.optional(),
  start_at: instant("start_at").nullish(),
  end_at: instant("end_at").nullish(),
});
export type BatchExportUpdateBody = z.output<typeof batchExportUpdateBody>;

export const batchExportListQuery = pageQuery;
export const runListQuery = pageQuery;
export type RunListQuery = z.output<typeof runListQuery>;

/** `POST …/:id/backfills/`: one run per interval in [start_at, end_at) (end: now when null). */
export const backfillCreateBody = z.object({ start_at: instant("start_at"), end_at: instant("end_at").nullish() });
export type BackfillCreateBody = z.output<typeof backfillCreateBody>;

export const batchExportRunSchema = z
  .object({
    id: z.uuid(),
    batch_export: z.uuid(),
    status: z.enum(RUN_STATUSES),
    records_completed: z.number().int(),
    records_total_count: z.number().int().nullable(),
    bytes_exported: z.number().int(),
    latest_error: z.string().nullable(),
    data_interval_start: z.iso.datetime(),
    data_interval_end: z.iso.datetime(),
    cursor: z.object({ at: z.string(), uuid: z.string() }).nullable(),
    created_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
    last_updated_at: z.iso.datetime(),
    backfill: z.uuid().nullable(),
  })
  .meta({ id: "BatchExportRun" });
export type BatchExportRunResource = z.infer<typeof batchExportRunSchema>;

export const batchExportSchema = z
  .object({
    id: z.uuid(),
    team_id: z.number().int(),
    name: z.string(),
    model: z.enum(BATCH_EXPORT_MODELS),
    destination: z.object({ type: z.enum(DESTINATION_TYPES), config: z.record(z.string(), z.unknown()) }),
    interval: z.enum(BATCH_EXPORT_INTERVALS),
    paused: z.boolean(),
    created_at: z.iso.datetime(),
    last_updated_at: z.iso.datetime(),
    last_paused_at: z.iso.datetime().nullable(),
    start_at: z.iso.datetime().nullable(),
    end_at: z.iso.datetime().nullable(),
    latest_runs: z.array(batchExportRunSchema),
  })
  .meta({ id: "BatchExport" });
export type BatchExportResource = z.infer<typeof batchExportSchema>;

export const backfillSchema = z
  .object({
    id: z.uuid(),
    batch_export: z.uuid(),
    start_at: z.iso.datetime().nullable(),
    end_at: z.iso.datetime().nullable(),
    status: z.enum(BACKFILL_STATUSES),
    created_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
    last_updated_at: z.iso.datetime(),
    total_expected_runs: z.number().int(),
  })
  .meta({ id: "BatchExportBackfill" });
export type BackfillResource = z.infer<typeof backfillSchema>;
