/**
 * Where a run's rows go, one writer per destination type, rows being the model's records (models.ts):
 * - S3: the interval's rows as one file under one key per interval, PUT when the interval is
 *   read through: a re-run overwrites it. JSON Lines (gzip when asked) or Parquet (parquet.ts,
 *   a row group at a time, its pages compressed as asked). It cannot resume halfway (an object
 *   is written whole), so a retried run reads its interval again from the start.
 * - Postgres: rows upserted by their key (events: uuid; persons: distinct id; sessions:
 *   session id) page by page; a retried run resumes after its cursor, and a re-run adds nothing.
 * - HTTP (events only): pages POSTed as PostHog's `/batch` body (`{"api_key": <token>, "batch":
 *   [...]}`, the token being the receiving project's, as PostHog's HTTP migration export sends
 *   it) through the outbound client; at least once, resuming after the cursor.
 */
import { createGzip, type Gzip } from "node:zlib";
import { outboundRequest, resolveOutboundHost } from "@/server/outbound/service";
import type { BatchExportModel, DestinationType, HttpConfig, PostgresConfig, S3Config } from "./contract";
import { s3Key } from "./intervals";
import { MODEL_COLUMNS, type ExportRecord } from "./models";
import { ParquetFile, type ParquetCompression } from "./parquet";
import { putObject } from "./s3";
import { PostgresDestination } from "./store/postgres-destination";

export interface RunWriter {
  /** Whether rows already written stay written (a retry resumes after the cursor). */
  readonly resumable: boolean;
  /** Writes a page; answers the bytes it sent (0 when it only buffers). */
  write(rows: readonly ExportRecord[]): Promise<number>;
  /** Ends the interval; answers the bytes it sent. */
  finish(): Promise<number>;
  close(): Promise<void>;
}

export interface RunTarget {
  projectId: number;
  model: BatchExportModel;
  start: Date;
  end: Date;
  timeoutMs: number;
}

/** A failure no retry mends (the destination's settings): the run fails at once. */
export class ExportConfigError extends Error {
  override name = "ExportConfigError";
}

/** The file's body as it grows: JSON Lines (gzipped or not) or Parquet. */
interface FileBody {
  add(rows: readonly ExportRecord[]): Promise<void>;
  finish(): Promise<Buffer>;
  close(): void;
}

class JsonLinesBody implements FileBody {
  private readonly gzip: Gzip | null;
  private readonly chunks: Buffer[] = [];

  constructor(gzip: boolean) {
    this.gzip = gzip ? createGzip({ level: 6 }) : null;
    this.gzip?.on("data", (chunk: Buffer) => this.chunks.push(chunk));
  }

  async add(rows: readonly ExportRecord[]): Promise<void> {
    if (rows.length === 0) return;
    const text = Buffer.from(rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
    if (!this.gzip) this.chunks.push(text);
    else if (!this.gzip.write(text)) await new Promise((resolve) => this.gzip!.once("drain", resolve));
  }

  async finish(): Promise<Buffer> {
    const gzip = this.gzip;
    if (gzip) {
      await new Promise<void>((resolve, reject) => {
        gzip.once("end", resolve).once("error", reject);
        gzip.end();
      });
    }
    const body = Buffer.concat(this.chunks);
    this.chunks.length = 0;
    return body;
  }

  close(): void {
    this.gzip?.destroy();
  }
}

class ParquetBody implements FileBody {
  private readonly file: ParquetFile;
  constructor(model: BatchExportModel, compression: ParquetCompression | null) {
    this.file = new ParquetFile(MODEL_COLUMNS[model], compression);
  }
  async add(rows: readonly ExportRecord[]): Promise<void> {
    this.file.add(rows);
  }
  async finish(): Promise<Buffer> {
    return this.file.finish();
  }
  close(): void {}
}

class S3Writer implements RunWriter {
  readonly resumable = false;
  private readonly body: FileBody;
  private readonly key: string;
  private readonly contentType: string;

  constructor(
    private readonly config: S3Config,
    private readonly target: RunTarget,
  ) {
    const format = config.file_format ?? "JSONLines";
    const compression = config.compression ?? null;
    this.key = s3Key(config.prefix ?? "", target.start, target.end, target.model, format, compression);
    if (format === "Parquet") {
      this.body = new ParquetBody(target.model, compression as ParquetCompression | null);
      this.contentType = "application/vnd.apache.parquet";
    } else {
      this.body = new JsonLinesBody(compression === "gzip");
      this.contentType = compression === "gzip" ? "application/gzip" : "application/jsonl";
    }
  }

  async write(rows: readonly ExportRecord[]): Promise<number> {
    await this.body.add(rows);
    return 0;
  }

  async finish(): Promise<number> {
    const body = await this.body.finish();
    await putObject(
      {
        endpoint: this.config.endpoint_url ?? null,
        region: this.config.region || "us-east-1",
        bucket: this.config.bucket_name,
        accessKeyId: this.config.aws_access_key_id,
        secretAccessKey: this.config.aws_secret_access_key,
        virtualStyle: this.config.use_virtual_style_addressing ?? false,
      },
      this.key,
      body,
      this.contentType,
      Math.max(this.target.timeoutMs, 10 * 60_000),
    );
    return body.length;
  }

  async close(): Promise<void> {
    this.body.close();
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
