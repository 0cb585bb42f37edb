/**
 * The intervals of a batch export (UTC hours or days, PostHog's), and the S3 keys of an
 * interval's files: PostHog's `get_s3_key` (`<prefix>/<start>-<end>.jsonl[.gz]`, the prefix's
 * `{year} {month} {day} {hour} {minute} {second}` from the interval's end, `{table}`,
 * `{data_interval_start}`, `{data_interval_end}`); with `max_file_size_mb`, numbered files
 * (`<start>-<end>-<n>.jsonl[.gz]`, n from 0) and `get_manifest_key`'s
 * `<start>-<end>_manifest.json`. The same keys per interval: a re-run overwrites.
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

export interface S3FileNaming {
  prefix: string;
  start: Date;
  end: Date;
  table: string;
  format: "JSONLines" | "Parquet";
  compression: string | null;
}

/** `<prefix>/<name>`, without a leading slash (a key is relative to the bucket). */
function underPrefix(naming: S3FileNaming, name: string): string {
  const base = templatePrefix(naming.prefix, naming.start, naming.end, naming.table).replace(/^\/+|\/+$/g, "");
  return base ? `${base}/${name}` : name;
}

/** The file's extension: `.jsonl` or `.parquet`, then the compression's. */
export function fileExtension(naming: Pick<S3FileNaming, "format" | "compression">): string {
  const extension = naming.compression ? `.${COMPRESSION_EXTENSIONS[naming.compression] ?? naming.compression}` : "";
  return `.${naming.format === "Parquet" ? "parquet" : "jsonl"}${extension}`;
}

/** An interval's file: the only one, or (split files, `max_file_size_mb`) number `fileNumber`. */
export function s3Key(naming: S3FileNaming, fileNumber: number | null = null): string {
  const name = fileNumber === null ? `${stamp(naming.start)}-${stamp(naming.end)}` : `${splitFileStem(naming)}${fileNumber}`;
  return underPrefix(naming, `${name}${fileExtension(naming)}`);
}

/** What an interval's numbered files' names start with. */
function splitFileStem(naming: Pick<S3FileNaming, "start" | "end">): string {
  return `${stamp(naming.start)}-${stamp(naming.end)}-`;
}

/** The key prefix all of an interval's numbered files share (to list them). */
export function splitFilesPrefix(naming: S3FileNaming): string {
  return underPrefix(naming, splitFileStem(naming));
}

/** The number of an interval's numbered file (of this format and compression), or null for another key. */
export function splitFileNumber(naming: S3FileNaming, key: string): number | null {
  const prefix = splitFilesPrefix(naming);
  const extension = fileExtension(naming);
  if (!key.startsWith(prefix) || !key.endsWith(extension)) return null;
  const number = key.slice(prefix.length, key.length - extension.length);
  return /^\d+$/.test(number) ? Number(number) : null;
}

/** PostHog's manifest of split files, written last: `{"files": [<key>, …]}`. */
export function manifestKey(naming: S3FileNaming): string {
  return underPrefix(naming, `${stamp(naming.start)}-${stamp(naming.end)}_manifest.json`);
}
