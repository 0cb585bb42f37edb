/**
 * A Burrow deployment of a test's own, on either database: bootstrapped with the admin CLI,
 * started with the built server, and its stored rows read back by the test.
 */
import fs from "node:fs";
import { expect } from "@playwright/test";
import pg from "pg";
import { openDatabase } from "../../src/server/db/client";
import { createEmptyPostgresDatabase } from "./postgres";
import { admin, migratedDataDir, startServer, tempDataDir, type RunningServer } from "./server";

export type DatabaseKind = "embedded" | "postgres";
export const DATABASE_KINDS: readonly DatabaseKind[] = ["embedded", "postgres"];

export type Query = <Row = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<Row[]>;

export interface Deployment {
  kind: DatabaseKind;
  /** Environment for startServer / admin: DATA_DIR, and DATABASE_URL on PostgreSQL. */
  env: Record<string, string>;
  dataDir: string;
  projectId: number;
  projectKey: string;
  personalKey: string;
  start(extra?: Record<string, string>): Promise<RunningServer>;
  /**
   * Runs `read` against the stored data. The embedded database can only be opened while
   * no server holds DATA_DIR (the lock says so if one does); PostgreSQL at any time.
   */
  read<T>(read: (query: Query) => Promise<T>): Promise<T>;
  dispose(): Promise<void>;
}

/** A fresh DATA_DIR (and, for PostgreSQL, a fresh database) with one bootstrapped project. */
export async function createDeployment(kind: DatabaseKind): Promise<Deployment> {
  // On PostgreSQL, DATA_DIR holds no database (the CLI migrates the new one).
  const dataDir = kind === "embedded" ? migratedDataDir() : tempDataDir();
  const database = kind === "postgres" ? await createEmptyPostgresDatabase() : null;
  const env: Record<string, string> = { DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) };
  const boot = admin(["bootstrap", "--email", "sdk@example.com", "--password", "sdk-password-123", "--json"], env);
  expect(boot.code, boot.stderr).toBe(0);
  const booted = JSON.parse(boot.stdout) as { project_id: number; project_api_key: string; personal_api_key: string };
  return {
    kind,
    env,
    dataDir,
    projectId: booted.project_id,
    projectKey: booted.project_api_key,
    personalKey: booted.personal_api_key,
    start: (extra = {}) => startServer({ ...env, ...extra }),
    async read(read) {
      if (database) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          return await read(async (text, params) => (await client.query(text, params)).rows);
        } finally {
          await client.end();
        }
      }
      const db = await openDatabase({ kind: "pglite", dataDir });
      try {
        return await read((text, params) => db.sql.query(text, params));
      } finally {
        await db.close();
      }
    },
    async dispose() {
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface StoredEvent {
  uuid: string;
  project_id: number;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: Date;
  person_id: string | null;
  historical_migration: boolean;
}

/** All events of the project, oldest first. */
export function storedEvents(query: Query, projectId: number): Promise<StoredEvent[]> {
  return query<StoredEvent>(
    `SELECT uuid::text AS uuid, project_id, event, distinct_id, properties, timestamp, person_id::text AS person_id, historical_migration
       FROM events WHERE project_id = $1 ORDER BY timestamp, uuid`,
    [projectId],
  );
}

export interface StoredPerson {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  distinct_ids: string[];
}

/** The person a distinct id belongs to, with all its distinct ids; null if none. */
export async function personOf(query: Query, projectId: number, distinctId: string): Promise<StoredPerson | null> {
  const rows = await query<StoredPerson>(
    `SELECT p.id, p.uuid::text AS uuid, p.properties, p.is_identified,
            (SELECT array_agg(d2.distinct_id ORDER BY d2.distinct_id) FROM person_distinct_ids d2 WHERE d2.person_id = p.id) AS distinct_ids
       FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
      WHERE d.project_id = $1 AND d.distinct_id = $2`,
    [projectId, distinctId],
  );
  return rows[0] ?? null;
}

/** Polls `probe` until it returns a value that is not undefined, or fails after `timeout` ms. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeout = 15_000): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
