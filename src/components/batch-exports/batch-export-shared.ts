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
      return `postgres://${config.host}:${config.port ?? 5432}/${config.database} → ${config.schema ?? "public"}.${config.table_name ?? "events"}`;
    case "HTTP":
      return String(config.url ?? "");
  }
}

export const INTERVAL_LABELS: Record<string, string> = { hour: "Hourly", day: "Daily" };
