/**
 * A Postgres destination's statements, in the other database (PostHog's Postgres batch
 * export): the table is created when missing, and rows are upserted by uuid, so a re-run of
 * an interval adds nothing. Part of batch exports' store, on a connection of its own.
 */
import pg from "pg";
import type { ExportedEvent } from "@/server/db/events";

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
  selfSignedCert: boolean;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export class PostgresDestination {
  private constructor(
    private readonly client: pg.Client,
    private readonly table: string,
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
      ssl: target.selfSignedCert ? { rejectUnauthorized: false, servername: target.host } : undefined,
    });
    await client.connect();
    const table = `${quote(target.schema)}.${quote(target.table)}`;
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${table} (
           uuid uuid PRIMARY KEY, event text NOT NULL, distinct_id text NOT NULL, person_id uuid, properties jsonb,
           elements_chain text, "timestamp" timestamptz, _inserted_at timestamptz, team_id integer)`,
      );
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return new PostgresDestination(client, table);
  }

  /** Writes rows; a uuid already there is left as it is. Answers the bytes sent (the rows' JSON). */
  async upsert(projectId: number, rows: readonly ExportedEvent[]): Promise<number> {
    if (rows.length === 0) return 0;
    const payload = JSON.stringify(rows);
    await this.client.query(
      `INSERT INTO ${this.table} (uuid, event, distinct_id, person_id, properties, elements_chain, "timestamp", _inserted_at, team_id)
       SELECT r.uuid, r.event, r.distinct_id, r.person_id, r.properties, r.elements_chain, r."timestamp", r.inserted_at, $2
       FROM jsonb_to_recordset($1::jsonb) AS r(uuid uuid, event text, distinct_id text, person_id uuid, properties jsonb, elements_chain text, "timestamp" timestamptz, inserted_at timestamptz)
       ON CONFLICT (uuid) DO NOTHING`,
      [payload, projectId],
    );
    return Buffer.byteLength(payload);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
