/**
 * The intervals of a batch export (UTC hours or days, PostHog's), and the S3 key of an
 * interval's file: PostHog's `get_s3_key` (`<prefix>/<start>-<end>.jsonl[.gz]`, the prefix's
 * `{year} {month} {day} {hour} {minute} {second}` from the interval's end, `{table}`,
 * `{data_interval_start}`, `{data_interval_end}`). One key per interval: a re-run overwrites.
 */
import type { BatchExportInterval } from "./contract";

export const INTERVAL_MS: Record<BatchExportInterval, number> = { hour: 3_600_000, day: 86_400_000 };

/** The start of the interval holding `at`. */
export function intervalStart(at: Date, interval: BatchExportInterval): Date {
  const ms = INTERVAL_MS[interval];
  return new Date(Math.floor(at.getTime() / ms) * ms);
}

/** The intervals from `from` (floored) whose end is ≤ `until`, at most `max` of them. */
export function intervalsBetween(from: Date, until: Date, interval: BatchExportInterval, max: number): { start: Date; end: Date }[] {
  const ms = INTERVAL_MS[interval];
  const out: { start: Date; end: Date }[] = [];
  for (let start = intervalStart(from, interval).getTime(); start + ms <= until.getTime() && out.length < max; start += ms) {
    out.push({ start: new Date(start), end: new Date(start + ms) });
  }
  return out;
}

const pad = (n: number) => String(n).padStart(2, "0");
/** PostHog writes the interval bounds in keys as ISO 8601 without milliseconds. */
const stamp = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, "+00:00");

/** The prefix with its variables filled; one it cannot fill (an unknown name) stays as written. */
export function templatePrefix(prefix: string, start: Date, end: Date, table: string): string {
  const values: Record<string, string> = {
    year: String(end.getUTCFullYear()),
    month: pad(end.getUTCMonth() + 1),
    day: pad(end.getUTCDate()),
    hour: pad(end.getUTCHours()),
    minute: pad(end.getUTCMinutes()),
    second: pad(end.getUTCSeconds()),
    table,
    data_interval_start: stamp(start),
    data_interval_end: stamp(end),
  };
  const names = [...prefix.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!);
  if (names.some((n) => !(n in values))) return prefix;
  return prefix.replace(/\{([^{}]*)\}/g, (_, n: string) => values[n]!);
}

/** PostHog's extension of a compression in keys (a Parquet file's pages too: `.parquet.sz`). */
const COMPRESSION_EXTENSIONS: Record<string, string> = { gzip: "gz", brotli: "br", snappy: "sz", zstd: "zst", lz4: "lz4" };

export function s3Key(prefix: string, start: Date, end: Date, table: string, format: "JSONLines" | "Parquet", compression: string | null): string {
  const base = templatePrefix(prefix, start, end, table).replace(/^\/+|\/+$/g, "");
  const extension = compression ? `.${COMPRESSION_EXTENSIONS[compression] ?? compression}` : "";
  const file = `${stamp(start)}-${stamp(end)}.${format === "Parquet" ? "parquet" : "jsonl"}${extension}`;
  return base ? `${base}/${file}` : file;
}
