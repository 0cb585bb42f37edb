/**
 * Every database read and write of destinations: hog functions (Prisma), and the outbox and
 * delivery log the worker reads and writes in plain SQL on the workers' handle. The outbox
 * batches are written with the events (db/events/insert/postgres.ts); the worker fans them out
 * into outbox rows.
 */
import type { Prisma } from "@/generated/prisma/client";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";
import type { SqlExecutor, WorkerSql } from "@/server/db/driver";
import type { DbClient, Tx } from "@/server/db/transaction";
import type { DeliveryStatus } from "./contract";

const INCLUDE = { createdBy: { select: USER_BASIC_COLUMNS } } as const;
export type HogFunctionRow = Prisma.HogFunctionGetPayload<{ include: typeof INCLUDE }>;

export interface HogFunctionWrite {
  type: string;
  name: string;
  description: string;
  enabled: boolean;
  deleted: boolean;
  templateId: string | null;
  hog: string;
  iconUrl: string | null;
  inputsSchema: unknown[];
  inputs: Record<string, unknown>;
  filters: Record<string, unknown>;
}

const json = (value: unknown) => value as Prisma.InputJsonValue;

export function findHogFunction(client: DbClient, projectId: number, id: string): Promise<HogFunctionRow | null> {
  return client.hogFunction.findFirst({ where: { id, projectId }, include: INCLUDE });
}

export function listHogFunctionRows(client: DbClient, projectId: number, where: { types: string[]; enabled?: boolean; search?: string }): Promise<HogFunctionRow[]> {
  return client.hogFunction.findMany({
    where: {
      projectId,
      deleted: false,
      type: { in: where.types },
      ...(where.enabled === undefined ? {} : { enabled: where.enabled }),
      ...(where.search ? { name: { contains: where.search, mode: "insensitive" } } : {}),
    },
    include: INCLUDE,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
}

export async function insertHogFunction(tx: Tx, id: string, projectId: number, createdById: number, write: HogFunctionWrite): Promise<void> {
  await tx.hogFunction.create({
    data: { id, projectId, createdById, ...write, inputsSchema: json(write.inputsSchema), inputs: json(write.inputs), filters: json(write.filters) },
  });
}

export async function updateHogFunctionRow(tx: Tx, id: string, write: HogFunctionWrite): Promise<void> {
  await tx.hogFunction.update({
    where: { id },
    data: { ...write, inputsSchema: json(write.inputsSchema), inputs: json(write.inputs), filters: json(write.filters) },
  });
}

/** A fresh start for the circuit breaker (an edit or re-enable may have fixed the receiver). */
export async function resetBreaker(tx: Tx, id: string): Promise<void> {
  await tx.hogFunction.update({ where: { id }, data: { consecutiveFailures: 0, circuitOpenUntil: null } });
}

/** What ingestion's cache holds: every live, enabled destination of every project, with its project's test account filters. */
export async function activeDestinations(client: DbClient): Promise<{ id: string; projectId: number; filters: Prisma.JsonValue; testAccountFilters: Prisma.JsonValue }[]> {
  const rows = await client.hogFunction.findMany({
    where: { enabled: true, deleted: false, type: "destination" },
    select: { id: true, projectId: true, filters: true, project: { select: { testAccountFilters: true } } },
  });
  return rows.map(({ project, ...row }) => ({ ...row, testAccountFilters: project.testAccountFilters }));
}

// ---------------------------------------------------------------------------
// Delivery log and metrics
// ---------------------------------------------------------------------------

export interface DeliveryLogRow {
  id: bigint;
  eventUuid: string;
  attempt: number;
  status: string;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  createdAt: Date;
}

export function deliveryRows(
  client: DbClient,
  hogFunctionId: string,
  where: { after?: Date; before?: Date; statuses?: string[]; search?: string; eventUuid?: string },
  limit: number,
): Promise<DeliveryLogRow[]> {
  return client.hogFunctionDelivery.findMany({
    where: {
      hogFunctionId,
      ...(where.after || where.before ? { createdAt: { ...(where.after ? { gt: where.after } : {}), ...(where.before ? { lt: where.before } : {}) } } : {}),
      ...(where.statuses ? { status: { in: where.statuses } } : {}),
      ...(where.search ? { error: { contains: where.search, mode: "insensitive" } } : {}),
      ...(where.eventUuid ? { eventUuid: where.eventUuid } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
  });
}

/** Attempts by status per bucket (`date_trunc` unit) since `after`. */
export async function deliveryCounts(client: DbClient, hogFunctionId: string, unit: "hour" | "day" | "week", after: Date, before: Date): Promise<{ bucket: Date; status: string; n: number }[]> {
  const rows = await client.$queryRawUnsafe<{ bucket: Date; status: string; n: number }[]>(
    `SELECT date_trunc('${unit}', created_at) AS bucket, status, count(*)::int AS n FROM hog_function_deliveries
     WHERE hog_function_id = $1::uuid AND created_at >= $2 AND created_at < $3 GROUP BY 1, 2 ORDER BY 1`,
    hogFunctionId,
    after,
    before,
  );
  return rows;
}

/** Events waiting in the outbox and its batches (PostHog's status shows a destination's backlog). */
export async function pendingCount(client: DbClient, hogFunctionId: string): Promise<number> {
  const [row] = await client.$queryRaw<{ n: number }[]>`SELECT ((SELECT count(*) FROM hog_function_outbox WHERE hog_function_id = ${hogFunctionId}::uuid)
    + COALESCE((SELECT sum(jsonb_array_length(r.route->'events')) FROM hog_function_outbox_batches b
                CROSS JOIN LATERAL jsonb_array_elements(b.routes) AS r(route) WHERE r.route->'destinations' ? ${hogFunctionId}), 0))::int AS n`;
  return row?.n ?? 0;
}

// ---------------------------------------------------------------------------
// The worker (plain SQL on the workers' handle)
// ---------------------------------------------------------------------------

export interface OutboxRow {
  id: string;
  hog_function_id: string;
  project_id: number;
  event_uuid: string;
  /** The event as stored (null: deleted since it was routed). */
  payload: Record<string, unknown> | null;
  attempts: number;
}

/** Which destinations' rows a claim may take: none of `skip`'s, at most `caps`' number of each one's, and any number of the others'. */
export interface ClaimScope {
  skip: readonly string[];
  caps: ReadonlyMap<string, number>;
}

/**
 * Claims due rows: their next attempt moves `leaseMs` ahead, so that a process that dies
 * holding them leaves them due again (at least once), and a second process does not take them.
 * A destination with a cap (its rate limit's tokens left) gives at most that many, its oldest
 * first, so that rows are not claimed (each with a read of its event) only to be put back.
 */
export async function claimOutbox(sql: SqlExecutor, limit: number, leaseMs: number, scope: ClaimScope = { skip: [], caps: new Map() }): Promise<OutboxRow[]> {
  const capped = [...scope.caps].filter(([, n]) => n > 0);
  // An event of the PostgreSQL event store is read here, by its key, as it is now (missing: deleted
  // since), once per claim however many destinations want it: its first row carries it.
  const rows = await sql.query<OutboxRow & { event: Record<string, unknown> | null; read: boolean }>(
    `WITH capped AS (
       SELECT o.id, o.next_attempt_at FROM unnest($4::uuid[], $5::int[]) AS c(id, n)
       CROSS JOIN LATERAL (SELECT id, next_attempt_at FROM hog_function_outbox WHERE hog_function_id = c.id AND next_attempt_at <= now()
                           ORDER BY next_attempt_at, id LIMIT c.n FOR UPDATE SKIP LOCKED) o
     ), others AS (
       SELECT id, next_attempt_at FROM hog_function_outbox WHERE next_attempt_at <= now() AND NOT (hog_function_id = ANY($3::uuid[]))
       ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE hog_function_outbox SET next_attempt_at = now() + ($2::int * interval '1 millisecond')
       WHERE id IN (SELECT id FROM (SELECT * FROM capped UNION ALL SELECT * FROM others) due ORDER BY next_attempt_at, id LIMIT $1)
       RETURNING id, hog_function_id, project_id, event_uuid, payload, attempts
     ), read AS (
       SELECT DISTINCT ON (c.project_id, c.event_uuid) c.id,
         CASE WHEN ev.uuid IS NOT NULL THEN jsonb_build_object('uuid', ev.uuid, 'project_id', ev.project_id, 'event', ev.event, 'distinct_id', ev.distinct_id, 'properties', ev.properties,
           'timestamp', to_char(ev.timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'person_id', ev.person_id,
           'elements_chain', ev.elements_chain, 'historical_migration', ev.historical_migration) END AS event
       FROM claimed c LEFT JOIN events ev ON ev.project_id = c.project_id AND ev.uuid = c.event_uuid
       WHERE c.payload IS NULL
       ORDER BY c.project_id, c.event_uuid, c.id
     )
     SELECT c.id::text, c.hog_function_id::text, c.project_id, c.event_uuid::text, c.attempts, c.payload, r.event, r.id IS NOT NULL AS read
     FROM claimed c LEFT JOIN read r ON r.id = c.id`,
    [limit, leaseMs, [...scope.skip, ...scope.caps.keys()], capped.map(([id]) => id), capped.map(([, n]) => n)],
  );
  const events = new Map<string, Record<string, unknown> | null>();
  for (const row of rows) if (row.read) events.set(`${row.project_id} ${row.event_uuid}`, row.event);
  return rows.map(({ event: _event, read: _read, payload, ...row }) => ({ ...row, payload: payload ?? events.get(`${row.project_id} ${row.event_uuid}`) ?? null }));
}

/** One route of an outbox batch, as db/events/insert/postgres.ts writes it. */
interface OutboxRoute {
  project_id: number;
  destinations: string[];
  events: string[];
  /** The events themselves (the ClickHouse store's batches only). */
  rows?: unknown[];
}

/**
 * Fans the oldest outbox batches (each the events of one ingestion statement that destinations
 * want) out into outbox rows, one per event and destination, at most about `maxRows` at a time
 * from at most `maxBatches` batches: what is left of the last one read stays in it. /capture/
 * writes a batch per request (one event), so one batch per step meant a step per event. The
 * rows stay small: an event of the PostgreSQL event store is read when its row is claimed (the
 * ClickHouse store's batches carry the events, and their rows keep them). Answers the rows added
 * and the batches read (both 0: none was waiting).
 */
export async function fanOutBatches(sql: WorkerSql, maxRows: number, maxBatches: number): Promise<{ rows: number; batches: number }> {
  return sql.transaction(async (tx) => {
    const batches = await tx.query<{ id: string; routes: OutboxRoute[] }>(`SELECT id::text, routes FROM hog_function_outbox_batches ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, [Math.max(1, maxBatches)]);
    if (batches.length === 0) return { rows: 0, batches: 0 };
    const rows: { hog_function_id: string; project_id: number; event_uuid: string; payload: unknown }[] = [];
    const done: string[] = [];
    let left: { id: string; routes: OutboxRoute[] } | null = null;
    for (const [position, batch] of batches.entries()) {
      const rest: OutboxRoute[] = [];
      let taken = 0;
      for (const route of batch.routes) {
        const room = Math.max(0, Math.floor((maxRows - rows.length) / Math.max(1, route.destinations.length)));
        // At least one event per step, however many destinations want it.
        const take = position === 0 && taken === 0 ? Math.max(1, room) : room;
        for (const [index, uuid] of route.events.slice(0, take).entries()) {
          for (const id of route.destinations) rows.push({ hog_function_id: id, project_id: route.project_id, event_uuid: uuid, payload: route.rows?.[index] ?? null });
        }
        taken += Math.min(take, route.events.length);
        if (take < route.events.length) rest.push({ ...route, events: route.events.slice(take), rows: route.rows?.slice(take) });
      }
      // Nothing of it fitted: it waits, as it is, for the next step.
      if (taken === 0 && rest.length > 0) break;
      if (rest.length > 0) {
        left = { id: batch.id, routes: rest };
        break;
      }
      done.push(batch.id);
    }
    await tx.query(
      `INSERT INTO hog_function_outbox (hog_function_id, project_id, event_uuid, payload)
       SELECT o.hog_function_id, o.project_id, o.event_uuid, o.payload FROM jsonb_to_recordset($1::jsonb) AS o(hog_function_id uuid, project_id int, event_uuid uuid, payload jsonb)
       WHERE EXISTS (SELECT 1 FROM hog_functions f WHERE f.id = o.hog_function_id)`,
      [JSON.stringify(rows)],
    );
    if (done.length > 0) await tx.query(`DELETE FROM hog_function_outbox_batches WHERE id = ANY($1::bigint[])`, [done]);
    if (left) await tx.query(`UPDATE hog_function_outbox_batches SET routes = $2::jsonb WHERE id = $1::bigint`, [left.id, JSON.stringify(left.routes)]);
    return { rows: Math.max(1, rows.length), batches: done.length + (left ? 1 : 0) };
  });
}

/** Whether the rows due within `withinMs` (of destinations not in `skip`) are fewer than `limit`: the worker fans more batches out only then. */
export async function fewDue(sql: SqlExecutor, withinMs: number, limit: number, skip: readonly string[]): Promise<boolean> {
  const rows = await sql.query(
    `SELECT 1 FROM hog_function_outbox WHERE next_attempt_at <= now() + ($1::int * interval '1 millisecond') AND NOT (hog_function_id = ANY($3::uuid[])) LIMIT 1 OFFSET $2`,
    [withinMs, limit - 1, skip],
  );
  return rows.length === 0;
}

/** Every row due now (the embedded database's one process starting: no other holds a claim). */
export async function releaseClaims(sql: SqlExecutor): Promise<void> {
  await sql.query(`UPDATE hog_function_outbox SET next_attempt_at = now() WHERE next_attempt_at > now()`);
}

/**
 * When the next row falls due (null: nothing waits). A waiting batch counts only when the outbox
 * is empty: while rows wait (a rate limit, a retry), batches are fanned out as those are sent.
 */
export async function nextDue(sql: SqlExecutor): Promise<Date | null> {
  const [row] = await sql.query<{ at: Date | null }>(
    `SELECT COALESCE((SELECT min(next_attempt_at) FROM hog_function_outbox), (SELECT min(created_at) FROM hog_function_outbox_batches)) AS at`,
  );
  return row?.at ?? null;
}

export interface HogFunctionForDelivery {
  id: string;
  project_id: number;
  project_name: string;
  /** The project's test account filters, for `filter_test_accounts`. */
  test_account_filters: unknown;
  enabled: boolean;
  deleted: boolean;
  inputs: Record<string, unknown>;
  filters: Record<string, unknown>;
  name: string;
  consecutive_failures: number;
  circuit_open_until: Date | null;
}

export function functionsForDelivery(sql: SqlExecutor, ids: string[]): Promise<HogFunctionForDelivery[]> {
  return sql.query<HogFunctionForDelivery>(
    `SELECT f.id::text, f.project_id, p.name AS project_name, p.test_account_filters, f.enabled, f.deleted, f.inputs, f.filters, f.name, f.consecutive_failures, f.circuit_open_until
     FROM hog_functions f JOIN projects p ON p.id = f.project_id WHERE f.id = ANY($1::uuid[])`,
    [ids],
  );
}

/** The persons' properties, by uuid. */
export async function personProperties(sql: SqlExecutor, uuids: string[]): Promise<Map<string, Record<string, unknown>>> {
  if (uuids.length === 0) return new Map();
  const rows = await sql.query<{ uuid: string; properties: Record<string, unknown> }>(`SELECT uuid::text, properties FROM persons WHERE uuid = ANY($1::uuid[])`, [uuids]);
  return new Map(rows.map((row) => [row.uuid, row.properties]));
}

export interface AttemptOutcome {
  outboxId: string;
  hogFunctionId: string;
  projectId: number;
  eventUuid: string;
  attempt: number;
  status: DeliveryStatus;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  /** For `retrying`: when to try again. */
  retryAt?: Date;
}

/** An attempt's log line and what it does to the outbox (done: the row goes; retrying: it waits), in one transaction. */
export async function recordAttempts(sql: SqlExecutor, outcomes: AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const log = JSON.stringify(
    outcomes.map((o) => ({ hog_function_id: o.hogFunctionId, project_id: o.projectId, event_uuid: o.eventUuid, attempt: o.attempt, status: o.status, response_code: o.responseCode, duration_ms: o.durationMs, error: o.error })),
  );
  const done = outcomes.filter((o) => o.status !== "retrying").map((o) => o.outboxId);
  const retry = JSON.stringify(outcomes.filter((o) => o.status === "retrying").map((o) => ({ id: o.outboxId, attempts: o.attempt, at: o.retryAt!.toISOString() })));
  await sql.query(
    `WITH logged AS (
       INSERT INTO hog_function_deliveries (hog_function_id, project_id, event_uuid, attempt, status, response_code, duration_ms, error)
       SELECT l.hog_function_id, l.project_id, l.event_uuid, l.attempt, l.status, l.response_code, l.duration_ms, l.error
       FROM jsonb_to_recordset($1::jsonb) AS l(hog_function_id uuid, project_id int, event_uuid uuid, attempt int, status text, response_code int, duration_ms int, error text)
       WHERE EXISTS (SELECT 1 FROM hog_functions f WHERE f.id = l.hog_function_id)
     ), removed AS (
       DELETE FROM hog_function_outbox WHERE id = ANY($2::bigint[])
     )
     UPDATE hog_function_outbox o SET attempts = r.attempts, next_attempt_at = r.at
     FROM jsonb_to_recordset($3::jsonb) AS r(id bigint, attempts int, at timestamptz) WHERE o.id = r.id`,
    [log, done, retry],
  );
}

/** Rows put back without an attempt (rate limit, open circuit): due again at `at`. */
export async function postpone(sql: SqlExecutor, ids: string[], at: Date): Promise<void> {
  if (ids.length > 0) await sql.query(`UPDATE hog_function_outbox SET next_attempt_at = $2 WHERE id = ANY($1::bigint[])`, [ids, at]);
}

/** Rows of destinations gone (deleted for good, or a project deleted). */
export async function dropOutbox(sql: SqlExecutor, ids: string[]): Promise<void> {
  if (ids.length > 0) await sql.query(`DELETE FROM hog_function_outbox WHERE id = ANY($1::bigint[])`, [ids]);
}

export async function saveBreaker(sql: SqlExecutor, id: string, failures: number, openUntil: Date | null): Promise<void> {
  await sql.query(`UPDATE hog_functions SET consecutive_failures = $2, circuit_open_until = $3 WHERE id = $1::uuid`, [id, failures, openUntil]);
}

/** The log keeps `days` days. */
/** Deletes up to `limit` log lines older than `before`; answers how many went. */
export async function pruneDeliveries(sql: SqlExecutor, before: Date, limit: number): Promise<number> {
  const [row] = await sql.query<{ n: number }>(
    `WITH gone AS (DELETE FROM hog_function_deliveries WHERE id IN (SELECT id FROM hog_function_deliveries WHERE created_at < $1 LIMIT $2) RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    [before, limit],
  );
  return row?.n ?? 0;
}
