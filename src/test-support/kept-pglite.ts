/**
 * Embedded test databases kept between test files. Starting PGlite on a thread of its own
 * costs about 2 s of CPU (its WebAssembly and its startup), whatever the dump it loads, and
 * the PGlite pass opened ~150 of them: about half of its CPU on a 2-core machine, which the
 * run is bound by (docs/testing.md has the figures). So a migrated database's thread, once
 * its test closes the database, is put back as the template left it (the tables a test wrote
 * to emptied, the template's rows and sequences restored, planner statistics and counters
 * dropped) and the next test of the same process gets it. A thread whose schema, roles or
 * settings a test changed (its fingerprint differs), that grew large, that failed, or that
 * served MAX_USES tests is closed instead.
 */
import type pg from "pg";
import { pgliteThreadPool, startPgliteThread, type PgliteOnThread, type PgliteThread } from "@/server/db/pglite-thread";

/** Threads a process keeps idle at most (each holds a database in memory). */
export const MAX_IDLE = 2;
/** Tests one thread serves before it is closed (what PGlite's memory kept of earlier ones stays bounded). */
const MAX_USES = 25;
/** A database larger than this when closed is not kept (the memory it grew to stays with the thread). */
const MAX_KEPT_BYTES = 96 * 1024 * 1024;

/**
 * What a test could have changed besides rows: relations (with their options), columns and
 * defaults, indexes, constraints, triggers, functions, views, schemas, extensions, roles and
 * per-database or per-role settings. One md5 over all of it.
 */
const FINGERPRINT = `SELECT md5(string_agg(x, E'\\n' ORDER BY x)) AS fingerprint FROM (
  SELECT 'class ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(array_to_string(c.reloptions, ','), '') AS x
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
  UNION ALL
  SELECT 'column ' || c.relname || '.' || a.attname || ' ' || a.atttypid || ' ' || a.attnotnull || ' ' || a.attisdropped || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0
  UNION ALL
  SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'constraint ' || conrelid::regclass::text || '.' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'trigger ' || tgrelid::regclass::text || '.' || tgname || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL
  SELECT 'function ' || n.nspname || '.' || p.proname || ' ' || md5(coalesce(p.prosrc, ''))
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL
  SELECT 'view ' || c.relname || ' ' || md5(pg_get_viewdef(c.oid)) FROM pg_class c WHERE c.relkind IN ('v', 'm') AND c.relnamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'schema ' || nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg_temp%' AND nspname NOT LIKE 'pg_toast_temp%'
  UNION ALL
  SELECT 'extension ' || extname || ' ' || extversion FROM pg_extension
  UNION ALL
  SELECT 'role ' || rolname || ' ' || rolsuper || ' ' || coalesce(array_to_string(rolconfig, ','), '') FROM pg_roles
  UNION ALL
  SELECT 'setting ' || setdatabase || ' ' || setrole || ' ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
) parts`;

/** The template as a fresh thread shows it: what a kept one must match, and the rows and sequence values to put back. */
interface Baseline {
  fingerprint: string;
  tables: string[];
  rows: { table: string; json: string }[];
  sequences: { sequence: string; value: string; called: boolean }[];
}

interface Kept {
  thread: PgliteThread;
  uses: number;
}

const idle: Kept[] = [];
/** Threads this process started, and leases a kept one served. */
export const keptThreads = { started: 0, reused: 0 };
let baseline: Promise<Baseline> | null = null;

async function withPool<T>(thread: PgliteThread, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = pgliteThreadPool(thread);
  try {
    return await work(pool);
  } finally {
    await pool.end().catch(() => {});
  }
}

async function readBaseline(pool: pg.Pool): Promise<Baseline> {
  const [{ rows: fingerprint }, { rows: tables }, { rows: sequences }] = [
    await pool.query<{ fingerprint: string }>(FINGERPRINT),
    await pool.query<{ name: string }>(`SELECT oid::regclass::text AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') ORDER BY 1`),
    await pool.query<{ name: string }>(`SELECT oid::regclass::text AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'S' ORDER BY 1`),
  ];
  const rows: Baseline["rows"] = [];
  for (const { name } of tables) {
    const { rows: found } = await pool.query<{ json: string | null }>(`SELECT json_agg(t)::text AS json FROM ${name} t`);
    if (found[0]!.json !== null) rows.push({ table: name, json: found[0]!.json });
  }
  const values: Baseline["sequences"] = [];
  for (const { name } of sequences) {
    const { rows: found } = await pool.query<{ value: string; called: boolean }>(`SELECT last_value::text AS value, is_called AS called FROM ${name}`);
    values.push({ sequence: name, ...found[0]! });
  }
  return { fingerprint: fingerprint[0]!.fingerprint, tables: tables.map((table) => table.name), rows, sequences: values };
}

/** Puts the thread's database back as the template was; false when it cannot be (then it is not kept). */
async function restore(thread: PgliteThread, template: Baseline): Promise<boolean> {
  return withPool(thread, async (pool) => {
    const { rows } = await pool.query<{ bytes: string; fingerprint: string }>(`SELECT pg_database_size(current_database())::text AS bytes, (${FINGERPRINT}) AS fingerprint`);
    if (Number(rows[0]!.bytes) > MAX_KEPT_BYTES || rows[0]!.fingerprint !== template.fingerprint) return false;
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // Only the tables a test wrote to: truncating all 57 made a new file for each table and index (~150 ms).
      await client.query(`DO $$
        DECLARE
          name text;
          written text[] := '{}';
          found boolean;
        BEGIN
          FOREACH name IN ARRAY ARRAY[${template.tables.map((table) => `'${table.replaceAll("'", "''")}'`).join(", ")}]::text[] LOOP
            EXECUTE format('SELECT EXISTS (SELECT FROM %s)', name) INTO found;
            IF found THEN written := written || name; END IF;
          END LOOP;
          IF cardinality(written) > 0 THEN EXECUTE 'TRUNCATE ' || array_to_string(written, ', ') || ' CASCADE'; END IF;
        END $$`);
      for (const { table, json } of template.rows) await client.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [json]);
      // Every sequence, written to or not (a test's rows may be gone while its ids were drawn).
      await client.query(`SELECT setval(s.name::regclass, s.value, s.called) FROM unnest($1::text[], $2::bigint[], $3::boolean[]) AS s(name, value, called)`, [
        template.sequences.map((sequence) => sequence.sequence),
        template.sequences.map((sequence) => sequence.value),
        template.sequences.map((sequence) => sequence.called),
      ]);
      // As a new database: no planner statistics, no activity counters (the statistics schedule reads them).
      await client.query(`DELETE FROM pg_statistic WHERE starelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace)`);
      await client.query("COMMIT");
      // The one backend's counters reach the shared ones at most once a second: flushed first, so that none arrive after the reset.
      await client.query("SELECT pg_stat_force_next_flush()");
      await client.query("SELECT 1");
      await client.query("SELECT pg_stat_reset()");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    return true;
  });
}

async function putBack(kept: Kept): Promise<void> {
  kept.uses++;
  const template = baseline && (await baseline.catch(() => null));
  let keep = false;
  if (template && !kept.thread.broken && kept.uses < MAX_USES && idle.length < MAX_IDLE) keep = await restore(kept.thread, template).catch(() => false);
  // Another test may have put a thread back while this one was restored.
  if (!keep || idle.length >= MAX_IDLE) return kept.thread.close();
  kept.thread.keepsProcessAlive(false);
  idle.push(kept);
}

/**
 * A migrated embedded database for one test: a kept thread when one is idle, else a new one
 * started from `dump()` (the run's migrated template). Its `close()` hands the thread back.
 */
export async function leaseMigratedPglite(dump: () => Promise<Blob>): Promise<PgliteOnThread> {
  let kept = idle.pop();
  if (kept) {
    kept.thread.keepsProcessAlive(true);
    keptThreads.reused++;
  } else {
    keptThreads.started++;
    kept = { thread: await startPgliteThread({ loadDataDir: await (await dump()).arrayBuffer() }), uses: 0 };
    // Read from the first fresh thread, before any test wrote to it (when it cannot be read, nothing is kept).
    baseline ??= withPool(kept.thread, readBaseline);
    await baseline.catch(() => null);
  }
  const lease = kept;
  const pool = pgliteThreadPool(lease.thread);
  let closed: Promise<void> | null = null;
  return {
    pool,
    close() {
      closed ??= pool
        .end()
        .catch(() => {})
        .then(() => putBack(lease));
      return closed;
    },
  };
}
