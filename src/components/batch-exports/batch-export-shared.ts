import type { BadgeTone } from "@/components/ui";
import type { BatchExportResource } from "@/server/batch-exports/present";

export const RUN_TONES: Record<string, BadgeTone> = { Completed: "success", Running: "brand", Starting: "neutral", FailedRetryable: "warning", Failed: "danger", Cancelled: "neutral" };
export const RUN_LABELS: Record<string, string> = { Completed: "Completed", Running: "Running", Starting: "Waiting", FailedRetryable: "Failed, will retry", Failed: "Failed", Cancelled: "Cancelled" };

/** Where the export writes, in a line. */
export function destinationSummary(batchExport: BatchExportResource): string {
  const config = batchExport.destination.config as Record<string, string | number | null | undefined>;
  switch (batchExport.destination.type) {
    case "S3":
      return `s3://${config.bucket_name}/${config.prefix ?? ""}${config.endpoint_url ? ` at ${config.endpoint_url}` : ""}`;
    case "Postgres":
      return `postgres://${config.host}:${config.port ?? 5432}/${config.database} → ${config.schema ?? "public"}.${config.table_name ?? batchExport.model}`;
    case "HTTP":
      return String(config.url ?? "");
  }
}

export const INTERVAL_LABELS: Record<string, string> = { hour: "Hourly", day: "Daily" };

export const MODEL_LABELS: Record<string, string> = { events: "Events", persons: "Persons", sessions: "Sessions" };
/** What selects a model's rows for an interval. */
export const MODEL_TIMES: Record<string, string> = { events: "by ingestion time", persons: "by when each person or distinct id changed", sessions: "by when each session last changed" };
export const FORMAT_LABELS: Record<string, string> = { JSONLines: "JSON Lines", Parquet: "Parquet" };

/** How the export writes its rows, in a line. */
export function formatSummary(batchExport: BatchExportResource): string {
  const config = batchExport.destination.config as Record<string, string | number | null | undefined>;
  switch (batchExport.destination.type) {
    case "S3": {
      const split = typeof config.max_file_size_mb === "number" ? `, split at ${config.max_file_size_mb} MiB` : "";
      return `${FORMAT_LABELS[String(config.file_format ?? "JSONLines")]}${config.compression ? `, ${config.compression}` : ", uncompressed"}${split}`;
    }
    case "Postgres":
      return `Rows upserted by ${batchExport.model === "persons" ? "distinct id" : batchExport.model === "sessions" ? "session id" : "uuid"}`;
    case "HTTP":
      return "PostHog /batch requests";
  }
}
