/**
 * A Postgres destination's statements, in the other database (PostHog's Postgres batch
 * export): the model's table is created when missing, and rows are upserted by their key, so a
 * re-run of an interval adds nothing — events by uuid (a row there stays as it is), persons by
 * (team, distinct id) and sessions by (team, session id), a row replaced only by a newer change
 * (`_inserted_at`) of it. Part of batch exports' store, on a connection of its own.
 */
import pg from "pg";
import type { BatchExportModel } from "../contract";
import type { ExportRecord } from "../models";

/**
 * Per model: the table's columns (key first), its key, the typed record columns the upsert
 * reads, and the columns added since the table was first written (`added`: [name, type]) —
 * a table an earlier version created gets them before its first write.
 */
const TABLES: Record<BatchExportModel, { columns: string; key: string; record: string; update: boolean; added?: [string, string][] }> = {
  events: {
    columns: `uuid uuid PRIMARY KEY, event text NOT NULL, distinct_id text NOT NULL, person_id uuid, properties jsonb,
      elements_chain text, "timestamp" timestamptz, _inserted_at timestamptz, team_id integer, person_properties jsonb, "set" jsonb, set_once jsonb`,
    key: "uuid",
    record: `uuid uuid, event text, distinct_id text, person_id uuid, properties jsonb, elements_chain text, "timestamp" timestamptz, _inserted_at timestamptz,
      team_id integer, person_properties jsonb, "set" jsonb, set_once jsonb`,
    update: false,
    added: [
      ["person_properties", "jsonb"],
      ["set", "jsonb"],
      ["set_once", "jsonb"],
    ],
  },
  persons: {
    columns: `team_id integer NOT NULL, distinct_id text NOT NULL, person_id uuid NOT NULL, properties jsonb, person_version bigint,
      person_distinct_id_version bigint, created_at timestamptz, _inserted_at timestamptz, PRIMARY KEY (team_id, distinct_id)`,
    key: "team_id, distinct_id",
    record: `team_id integer, distinct_id text, person_id uuid, properties jsonb, person_version bigint, person_distinct_id_version bigint, created_at timestamptz, _inserted_at timestamptz`,
    update: true,
  },
  sessions: {
    columns: `team_id integer NOT NULL, session_id text NOT NULL, distinct_id text, person_id uuid, start_timestamp timestamptz, end_timestamp timestamptz,
      duration bigint, pageview_count bigint, screen_count bigint, autocapture_count bigint, entry_url text, entry_pathname text,
      entry_referring_domain text, entry_utm_source text, entry_utm_medium text, entry_utm_campaign text, entry_utm_term text,
      entry_utm_content text, exit_url text, exit_pathname text, _inserted_at timestamptz, PRIMARY KEY (team_id, session_id)`,
    key: "team_id, session_id",
    record: `team_id integer, session_id text, distinct_id text, person_id uuid, start_timestamp timestamptz, end_timestamp timestamptz,
      duration bigint, pageview_count bigint, screen_count bigint, autocapture_count bigint, entry_url text, entry_pathname text,
      entry_referring_domain text, entry_utm_source text, entry_utm_medium text, entry_utm_campaign text, entry_utm_term text,
      entry_utm_content text, exit_url text, exit_pathname text, _inserted_at timestamptz`,
    update: true,
  },
};

/** The column names of a record definition (`name type, …`). */
const namesOf = (record: string) => record.split(",").map((part) => part.trim().split(/\s+/)[0]!);

export interface PostgresTarget {
  /** The address already resolved and checked (outbound rules). */
  address: string;
  /** The host as written (TLS's server name). */
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  schema: string;
  table: string;
  model: BatchExportModel;
  selfSignedCert: boolean;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Adds the model's later columns a table lacks; only when one is missing (ALTER TABLE needs the table's owner). */
async function addMissingColumns(client: pg.Client, target: PostgresTarget, table: string): Promise<void> {
  const added = TABLES[target.model].added ?? [];
  if (added.length === 0) return;
  const present = await client.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`, [target.schema, target.table]);
  const names = new Set(present.rows.map((row) => row.column_name));
  const missing = added.filter(([name]) => !names.has(name));
  if (missing.length === 0) return;
  await client.query(`ALTER TABLE ${table} ${missing.map(([name, type]) => `ADD COLUMN IF NOT EXISTS ${quote(name)} ${type}`).join(", ")}`);
}

/** Ends the connection; end() waits for the server to close the socket, so one that never does is dropped after `ms`. */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  const timer = setTimeout(() => client.connection.stream.destroy(), ms);
  await client.end().catch(() => undefined);
  clearTimeout(timer);
}

export class PostgresDestination {
  private constructor(
    private readonly client: pg.Client,
    private readonly table: string,
    private readonly model: BatchExportModel,
    private readonly timeoutMs: number,
  ) {}

  static async open(target: PostgresTarget, timeoutMs: number): Promise<PostgresDestination> {
    const client = new pg.Client({
      host: target.address,
      port: target.port,
      user: target.user,
      password: target.password,
      database: target.database,
      connectionTimeoutMillis: timeoutMs,
      statement_timeout: timeoutMs,
      // statement_timeout is the server's to honour; a server that takes a query and never
      // answers is cut here, a little later, so that an honest server's own error comes first.
      query_timeout: timeoutMs + Math.min(timeoutMs, 5_000),
      ssl: target.selfSignedCert ? { rejectUnauthorized: false, servername: target.host } : undefined,
    });
    await client.connect();
    const table = `${quote(target.schema)}.${quote(target.table)}`;
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS ${table} (${TABLES[target.model].columns})`);
      await addMissingColumns(client, target, table);
    } catch (error) {
      await endWithin(client, timeoutMs);
      throw error;
    }
    return new PostgresDestination(client, table, target.model, timeoutMs);
  }

  /** Writes rows (see the file's head for what a row already there does). Answers the bytes sent (the rows' JSON). */
  async upsert(rows: readonly ExportRecord[]): Promise<number> {
    if (rows.length === 0) return 0;
    const spec = TABLES[this.model];
    const names = namesOf(spec.record);
    const payload = JSON.stringify(rows);
    const conflict = spec.update
      ? `DO UPDATE SET ${names.map((name) => `${name} = EXCLUDED.${name}`).join(", ")} WHERE EXCLUDED._inserted_at > stored._inserted_at`
      : "DO NOTHING";
    await this.client.query(
      `INSERT INTO ${this.table} AS stored (${names.join(", ")})
       SELECT ${names.map((name) => `r.${name}`).join(", ")} FROM jsonb_to_recordset($1::jsonb) AS r(${spec.record})
       ON CONFLICT (${spec.key}) ${conflict}`,
      [payload],
    );
    return Buffer.byteLength(payload);
  }

  async close(): Promise<void> {
    await endWithin(this.client, this.timeoutMs);
  }
}
