/**
 * Where a run's rows go, one writer per destination type, rows being the model's records (models.ts):
 * - S3: the interval's rows as files under keys fixed per interval (intervals.ts), each file
 *   encoded as rows arrive and uploaded a part at a time (s3.ts's ObjectUpload): memory holds
 *   one part and one encoding step, never the file. JSON Lines (gzip, brotli, zstd, lz4 or
 *   none: compression.ts) or Parquet (parquet.ts, a row group at a time, its pages compressed
 *   as asked). With `max_file_size_mb`, a file that reaches that size is closed and the rows
 *   after it go to the next numbered file; the run then deletes numbered files of the interval
 *   an earlier run left beyond its own, and writes PostHog's manifest last. It cannot resume
 *   halfway (an object is written whole), so a retried run reads its interval again from the
 *   start, and a run that stops aborts its upload under way.
 * - Postgres: rows upserted by their key (events: uuid; persons: distinct id; sessions:
 *   session id) page by page; a retried run resumes after its cursor, and a re-run adds nothing.
 * - HTTP (events only): pages POSTed as PostHog's `/batch` body (`{"api_key": <token>, "batch":
 *   [...]}`, the token being the receiving project's, as PostHog's HTTP migration export sends
 *   it) through the outbound client; at least once, resuming after the cursor.
 */
import { outboundRequest, resolveOutboundHost } from "@/server/outbound/service";
import { openStreamCompressor, type StreamCompression, type StreamCompressor } from "./compression";
import type { BatchExportModel, DestinationType, HttpConfig, PostgresConfig, S3Config } from "./contract";
import { manifestKey, s3Key, splitFileNumber, splitFilesPrefix, type S3FileNaming } from "./intervals";
import { MODEL_COLUMNS, type ExportRecord } from "./models";
import { ParquetFile, PARQUET_ROW_GROUP_BYTES, type ParquetCompression } from "./parquet";
import { deleteObject, listKeys, ObjectUpload, putObject, S3Error, type S3Target } from "./s3";
import { PostgresDestination } from "./store/postgres-destination";

export interface RunWriter {
  /** Whether rows already written stay written (a retry resumes after the cursor). */
  readonly resumable: boolean;
  /** Writes a page; answers the bytes it wrote. */
  write(rows: readonly ExportRecord[]): Promise<number>;
  /** Ends the interval; answers the bytes it wrote. */
  finish(): Promise<number>;
  close(): Promise<void>;
}

export interface RunTarget {
  projectId: number;
  model: BatchExportModel;
  start: Date;
  end: Date;
  timeoutMs: number;
  /** S3 multipart uploads' part size (S3's 5 MiB at least). */
  s3PartBytes: number;
}

/** A failure no retry mends (the destination's settings): the run fails at once. */
export class ExportConfigError extends Error {
  override name = "ExportConfigError";
}

/** One file's bytes as rows arrive: JSON Lines (compressed or not) or Parquet. */
interface FileEncoder {
  /** Encodes rows; answers the file's bytes they made (possibly none yet). */
  add(rows: readonly ExportRecord[]): Promise<Uint8Array[]>;
  /** Ends the file; answers its last bytes. */
  end(): Promise<Uint8Array[]>;
  close(): void;
}

class JsonLinesEncoder implements FileEncoder {
  constructor(private readonly compressor: StreamCompressor | null) {}

  async add(rows: readonly ExportRecord[]): Promise<Uint8Array[]> {
    if (rows.length === 0) return [];
    const text = Buffer.from(rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
    return this.compressor ? this.compressor.push(text) : [text];
  }

  async end(): Promise<Uint8Array[]> {
    return this.compressor ? this.compressor.end() : [];
  }

  close(): void {
    this.compressor?.close();
  }
}

class ParquetEncoder implements FileEncoder {
  constructor(private readonly file: ParquetFile) {}
  async add(rows: readonly ExportRecord[]): Promise<Uint8Array[]> {
    return this.file.add(rows);
  }
  async end(): Promise<Uint8Array[]> {
    return this.file.finish();
  }
  close(): void {}
}

/** Rows encoded per step: how often a file's size is looked at (a split comes after the step that reaches it). */
const ENCODE_ROWS = 1_000;

/** Content types of JSON Lines files by compression. */
const JSON_LINES_TYPES: Record<string, string> = { gzip: "application/gzip", brotli: "application/x-brotli", zstd: "application/zstd", lz4: "application/x-lz4" };

interface OpenFile {
  encoder: FileEncoder;
  upload: ObjectUpload;
}

class S3Writer implements RunWriter {
  readonly resumable = false;
  private readonly s3: S3Target;
  private readonly naming: S3FileNaming;
  private readonly maxFileBytes: number | null;
  private readonly timeoutMs: number;
  private file: OpenFile | null = null;
  /** The keys of the files completed, in order. */
  private readonly written: string[] = [];

  constructor(
    private readonly config: S3Config,
    private readonly target: RunTarget,
  ) {
    this.s3 = {
      endpoint: config.endpoint_url ?? null,
      region: config.region || "us-east-1",
      bucket: config.bucket_name,
      accessKeyId: config.aws_access_key_id,
      secretAccessKey: config.aws_secret_access_key,
      virtualStyle: config.use_virtual_style_addressing ?? false,
    };
    this.naming = { prefix: config.prefix ?? "", start: target.start, end: target.end, table: target.model, format: config.file_format ?? "JSONLines", compression: config.compression ?? null };
    this.maxFileBytes = config.max_file_size_mb ? config.max_file_size_mb * 1024 * 1024 : null;
    this.timeoutMs = Math.max(target.timeoutMs, 10 * 60_000);
  }

  private async openFile(): Promise<OpenFile> {
    const key = this.maxFileBytes === null ? s3Key(this.naming) : s3Key(this.naming, this.written.length);
    const compression = this.naming.compression;
    let encoder: FileEncoder;
    let contentType: string;
    if (this.naming.format === "Parquet") {
      const rowGroupBytes = Math.min(PARQUET_ROW_GROUP_BYTES, this.maxFileBytes ?? Infinity);
      encoder = new ParquetEncoder(await ParquetFile.open(MODEL_COLUMNS[this.target.model], compression as ParquetCompression | null, { rowGroupBytes }));
      contentType = "application/vnd.apache.parquet";
    } else {
      encoder = new JsonLinesEncoder(compression ? await openStreamCompressor(compression as StreamCompression) : null);
      contentType = (compression && JSON_LINES_TYPES[compression]) || "application/jsonl";
    }
    return { encoder, upload: new ObjectUpload(this.s3, key, contentType, this.target.s3PartBytes, this.timeoutMs) };
  }

  /** Uploads a file's bytes; answers how many. */
  private async send(file: OpenFile, chunks: Uint8Array[]): Promise<number> {
    let bytes = 0;
    for (const chunk of chunks) {
      await file.upload.write(chunk);
      bytes += chunk.length;
    }
    return bytes;
  }

  /** Ends the open file and writes its key; answers its last bytes. */
  private async closeFile(): Promise<number> {
    const file = this.file!;
    const bytes = await this.send(file, await file.encoder.end());
    await file.upload.finish();
    file.encoder.close();
    this.file = null;
    this.written.push(file.upload.key);
    return bytes;
  }

  async write(rows: readonly ExportRecord[]): Promise<number> {
    let bytes = 0;
    for (let i = 0; i < rows.length; i += ENCODE_ROWS) {
      this.file ??= await this.openFile();
      bytes += await this.send(this.file, await this.file.encoder.add(rows.slice(i, i + ENCODE_ROWS)));
      if (this.maxFileBytes !== null && this.file.upload.bytes >= this.maxFileBytes) bytes += await this.closeFile();
    }
    return bytes;
  }

  async finish(): Promise<number> {
    let bytes = 0;
    // An interval without rows still gets its (empty) file.
    if (this.written.length === 0) this.file ??= await this.openFile();
    if (this.file) bytes += await this.closeFile();
    if (this.maxFileBytes !== null) {
      await this.deleteStaleFiles();
      await putObject(this.s3, manifestKey(this.naming), JSON.stringify({ files: this.written }), "application/json", this.timeoutMs);
    }
    return bytes;
  }

  /**
   * Numbered files of this interval beyond this run's (an earlier run that split it into more)
   * are deleted, so that the interval's keys hold its rows once. Without the permission to
   * list or delete (403), they stay: the manifest names the files of the latest run.
   */
  private async deleteStaleFiles(): Promise<void> {
    const current = new Set(this.written);
    try {
      const stale = (key: string) => !current.has(key) && splitFileNumber(this.naming, key) !== null;
      for (const key of await listKeys(this.s3, splitFilesPrefix(this.naming), this.timeoutMs, stale)) await deleteObject(this.s3, key, this.timeoutMs);
    } catch (error) {
      if (!(error instanceof S3Error && error.status === 403)) throw error;
    }
  }

  async close(): Promise<void> {
    const file = this.file;
    this.file = null;
    file?.encoder.close();
    await file?.upload.abort();
  }
}

class PostgresWriter implements RunWriter {
  readonly resumable = true;
  constructor(private readonly destination: PostgresDestination) {}
  write(rows: readonly ExportRecord[]): Promise<number> {
    return this.destination.upsert(rows);
  }
  async finish(): Promise<number> {
    return 0;
  }
  close(): Promise<void> {
    return this.destination.close();
  }
}

class HttpWriter implements RunWriter {
  readonly resumable = true;
  constructor(
    private readonly config: HttpConfig,
    private readonly target: RunTarget,
  ) {}
  async write(rows: readonly ExportRecord[]): Promise<number> {
    if (rows.length === 0) return 0;
    const body = JSON.stringify({
      api_key: this.config.token ?? "",
      historical_migration: true,
      batch: rows.map((row) => ({ uuid: row.uuid, event: row.event, distinct_id: row.distinct_id, properties: row.properties, timestamp: row.timestamp })),
    });
    const answer = await outboundRequest({ url: this.config.url, method: "POST", headers: { "content-type": "application/json" }, body, timeoutMs: this.target.timeoutMs });
    if (answer.status >= 300) {
      const message = `HTTP destination answered ${answer.status}: ${answer.body.slice(0, 300)}`;
      throw answer.status >= 500 || answer.status === 429 || answer.status === 408 ? new Error(message) : new ExportConfigError(message);
    }
    return Buffer.byteLength(body);
  }
  async finish(): Promise<number> {
    return 0;
  }
  async close(): Promise<void> {}
}

export async function openWriter(type: DestinationType, config: Record<string, unknown>, target: RunTarget): Promise<RunWriter> {
  switch (type) {
    case "S3":
      return new S3Writer(config as S3Config, target);
    case "HTTP":
      // The service refuses other models for HTTP; an export stored before that rule fails plainly.
      if (target.model !== "events") throw new ExportConfigError(`The HTTP destination exports events only, not ${target.model}.`);
      return new HttpWriter(config as HttpConfig, target);
    case "Postgres": {
      const pgConfig = config as PostgresConfig;
      const address = await resolveOutboundHost(pgConfig.host);
      const destination = await PostgresDestination.open(
        {
          address,
          host: pgConfig.host,
          port: pgConfig.port ?? 5432,
          user: pgConfig.user,
          password: pgConfig.password ?? "",
          database: pgConfig.database,
          schema: pgConfig.schema ?? "public",
          table: pgConfig.table_name ?? "events",
          model: target.model,
          selfSignedCert: pgConfig.has_self_signed_cert ?? false,
        },
        target.timeoutMs,
      );
      return new PostgresWriter(destination);
    }
  }
}
