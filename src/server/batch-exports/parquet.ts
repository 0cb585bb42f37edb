/**
 * A run's rows as one Parquet file (PostHog's Parquet shape: timestamps as timestamps in
 * microseconds, UTC; properties and other JSON as JSON strings), written a row group at a time
 * as pages arrive, so a run holds at most one row group's rows — the file's bytes so far are
 * the only thing that grows. Pages compressed per the S3 config's `compression` (PARQUET_CODECS).
 */
import { brotliCompressSync, gzipSync } from "node:zlib";
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import type { ExportColumn, ExportRecord } from "./models";

/** S3 `compression` → the Parquet pages' codec (null: uncompressed). zstd and lz4 need native code Node 20 lacks. */
export const PARQUET_CODECS = { snappy: "SNAPPY", gzip: "GZIP", brotli: "BROTLI" } as const;
export type ParquetCompression = keyof typeof PARQUET_CODECS;

/** Rows per row group: bounded memory, and groups large enough to compress well. */
export const PARQUET_ROW_GROUP_ROWS = 10_000;

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]["schema"][number];

function schemaElement(column: ExportColumn): SchemaElement {
  switch (column.type) {
    case "STRING":
    case "JSON":
      return { name: column.name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" };
    case "INT64":
      return { name: column.name, type: "INT64", repetition_type: "OPTIONAL" };
    case "TIMESTAMP":
      return {
        name: column.name,
        type: "INT64",
        converted_type: "TIMESTAMP_MICROS",
        logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MICROS" },
        repetition_type: "OPTIONAL",
      };
  }
}

/** An ISO 8601 time in microseconds since the epoch, keeping the microseconds the text holds. */
export function isoMicros(text: string): bigint {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`Not a time: ${text}`);
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? "";
  return BigInt(ms) * 1000n + BigInt((fraction.slice(3, 6) || "0").padEnd(3, "0"));
}

function cell(column: ExportColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case "STRING":
      return String(value);
    case "JSON":
      return JSON.stringify(value);
    case "INT64":
      return BigInt(value as number);
    case "TIMESTAMP":
      return isoMicros(String(value));
  }
}

export class ParquetFile {
  private readonly bytes = new ByteWriter();
  private readonly writer: ParquetWriter;
  private pending: ExportRecord[] = [];

  constructor(
    private readonly columns: readonly ExportColumn[],
    compression: ParquetCompression | null,
    private readonly rowGroupRows = PARQUET_ROW_GROUP_ROWS,
  ) {
    this.writer = new ParquetWriter({
      writer: this.bytes,
      schema: [{ name: "root", num_children: columns.length }, ...columns.map(schemaElement)],
      codec: compression ? PARQUET_CODECS[compression] : "UNCOMPRESSED",
      compressors: { GZIP: (input) => gzipSync(input), BROTLI: (input) => brotliCompressSync(input) },
      createdBy: "Burrow batch exports",
    });
  }

  /** Adds rows; a full row group is encoded now. */
  add(records: readonly ExportRecord[]): void {
    this.pending.push(...records);
    while (this.pending.length >= this.rowGroupRows) this.flush(this.pending.splice(0, this.rowGroupRows));
  }

  private flush(records: ExportRecord[]): void {
    if (records.length === 0) return;
    const columnData = this.columns.map((column) => ({ name: column.name, data: records.map((record) => cell(column, record[column.name])) }));
    // Synchronous: a ByteWriter has no flush to wait for.
    void this.writer.write({ columnData, rowGroupSize: records.length });
  }

  /** The whole file: the last row group, the footer. */
  finish(): Buffer {
    this.flush(this.pending);
    this.pending = [];
    void this.writer.finish();
    const bytes = this.bytes.getBytes();
    // A view of the writer's memory, not a second copy of the file.
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}
