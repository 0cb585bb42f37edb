/**
 * Batch export rows as Parquet files (PostHog's Parquet shape: timestamps as timestamps in
 * microseconds, UTC; properties and other JSON as JSON strings), written a row group at a time
 * as rows arrive and handed out as bytes as each group is encoded: a file holds at most one
 * row group's rows and encoded bytes, whatever its size. A group is encoded when it has
 * PARQUET_ROW_GROUP_ROWS rows or about `rowGroupBytes` of values. Pages compressed per the S3
 * config's `compression` (PARQUET_CODECS; compression.ts).
 */
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import { pageCompressors, type PageCompressor } from "./compression";
import type { ExportColumn, ExportRecord } from "./models";

/** S3 `compression` → the Parquet pages' codec (null: uncompressed). lz4 is LZ4_RAW, as pyarrow writes PostHog's. */
export const PARQUET_CODECS = { snappy: "SNAPPY", gzip: "GZIP", brotli: "BROTLI", zstd: "ZSTD", lz4: "LZ4_RAW" } as const;
export type ParquetCompression = keyof typeof PARQUET_CODECS;

/** Rows per row group: bounded memory, and groups large enough to compress well. */
export const PARQUET_ROW_GROUP_ROWS = 10_000;
/** About the most bytes of values a row group holds before it is encoded (wide rows make smaller groups). */
export const PARQUET_ROW_GROUP_BYTES = 8 * 1024 * 1024;
/** Column statistics keep this much of a value: the footer stays small however many groups a file has. */
const STATISTICS_LENGTH = 256;

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

/** A value as its column stores it, and about how many bytes it takes. */
function cell(column: ExportColumn, value: unknown): [unknown, number] {
  if (value === null || value === undefined) return [null, 1];
  switch (column.type) {
    case "STRING": {
      const text = String(value);
      return [text, text.length];
    }
    case "JSON": {
      const text = JSON.stringify(value);
      return [text, text.length];
    }
    case "INT64":
      return [BigInt(value as number), 8];
    case "TIMESTAMP":
      return [isoMicros(String(value)), 8];
  }
}

export class ParquetFile {
  private readonly bytes = new ByteWriter();
  private readonly writer: ParquetWriter;
  /** The pending row group, column by column. */
  private pending: unknown[][];
  private pendingRows = 0;
  private pendingBytes = 0;

  private constructor(
    private readonly columns: readonly ExportColumn[],
    compression: ParquetCompression | null,
    compressors: Record<string, PageCompressor>,
    private readonly rowGroupRows: number,
    private readonly rowGroupBytes: number,
  ) {
    this.pending = columns.map(() => []);
    this.writer = new ParquetWriter({
      writer: this.bytes,
      schema: [{ name: "root", num_children: columns.length }, ...columns.map(schemaElement)],
      codec: compression ? PARQUET_CODECS[compression] : "UNCOMPRESSED",
      compressors,
      statisticsTruncateLength: STATISTICS_LENGTH,
      createdBy: "Burrow batch exports",
    });
  }

  static async open(columns: readonly ExportColumn[], compression: ParquetCompression | null, options: { rowGroupRows?: number; rowGroupBytes?: number } = {}): Promise<ParquetFile> {
    return new ParquetFile(columns, compression, await pageCompressors(), options.rowGroupRows ?? PARQUET_ROW_GROUP_ROWS, options.rowGroupBytes ?? PARQUET_ROW_GROUP_BYTES);
  }

  /** Adds rows; answers the bytes of the row groups that filled (none while the group fills). */
  add(records: readonly ExportRecord[]): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (const record of records) {
      this.columns.forEach((column, i) => {
        const [value, size] = cell(column, record[column.name]);
        this.pending[i]!.push(value);
        this.pendingBytes += size;
      });
      this.pendingRows++;
      if (this.pendingRows >= this.rowGroupRows || this.pendingBytes >= this.rowGroupBytes) out.push(...this.flush());
    }
    return out;
  }

  /** Encodes the pending row group; answers its bytes. */
  private flush(): Uint8Array[] {
    if (this.pendingRows > 0) {
      const columnData = this.columns.map((column, i) => ({ name: column.name, data: this.pending[i]! }));
      // Synchronous: a ByteWriter has no flush to wait for.
      void this.writer.write({ columnData, rowGroupSize: this.pendingRows });
      this.pending = this.columns.map(() => []);
      this.pendingRows = this.pendingBytes = 0;
    }
    return this.drain();
  }

  /** The bytes written since the last drain (a copy: the writer's buffer is reused). */
  private drain(): Uint8Array[] {
    if (this.bytes.index === 0) return [];
    const bytes = new Uint8Array(this.bytes.buffer, 0, this.bytes.index).slice();
    this.bytes.index = 0;
    return [bytes];
  }

  /** Ends the file: the last row group and the footer; answers their bytes. */
  finish(): Uint8Array[] {
    const out = this.flush();
    void this.writer.finish();
    return [...out, ...this.drain()];
  }
}
