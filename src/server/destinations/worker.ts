/**
 * Delivering the outbox: fans ingestion's batches out into rows as they are needed (in steps
 * that hold the embedded database briefly), claims due rows (with a lease, so a crash leaves
 * them due again), sends each with the outbound client (bounded concurrency and a deadline, so
 * a slow or dead receiver holds only the worker's own slots, never ingestion), and records each
 * attempt in the log, with the outbox row removed (delivered, or failed for good) or
 * rescheduled (exponential backoff with jitter). Per destination: a token-bucket rate limit and
 * a circuit breaker that stops attempts for a while after consecutive failures.
 */
import type { Database } from "@/server/db";
import type { WorkerSql } from "@/server/db/driver";
import { ChunkSizer } from "@/server/db/chunks";
import { ServerLoad } from "@/server/event-loop";
import { outboundRequest, OutboundRefusedError } from "@/server/outbound/service";
import { personCheck, prepareRequest, UndeliverableError } from "./delivery";
import { deliveryOptionsFromEnv, type DeliveryOptions } from "./options";
import * as store from "./store";

const LOG_DAYS = 30;
/** The shortest time between two rounds that kicks start; while capture is saturated, longer (see `yieldToIngestion`). */
const KICK_GAP_MS = 50;
const BUSY_KICK_GAP_MS = 250;
/** While capture is saturated, the worker rests this many times as long as its last step took. */
const BUSY_REST_FACTOR = 19;
/** How long capture counts as saturated after ingestion last said so (or last routed events while the server was busy). */
const BUSY_FOR_MS = 1_000;
/**
 * How long the worker rests when destinations it has rows for are at their rate limit: their
 * tokens gather meanwhile (up to a second's worth, the burst), so they go in fewer, larger rounds.
 */
const RATE_LIMITED_REST_MS = 250;
/** Rows due within this long count as work at hand (rate-limited rows wait under a second). */
const FAN_OUT_AHEAD_MS = 2_000;
const PRUNE_CHUNK = 5000;

type Deliverable = store.OutboxRow & { payload: Record<string, unknown> };

/** The most outbox batches one fan-out step reads (a /capture/ request writes a batch of one event). */
const MAX_BATCHES_PER_STEP = 100;

/**
 * Fan-out steps: rows sized so that a step holds the embedded database ~10 ms (db/chunks.ts; a
 * server's workers have their own connections), read from as many batches as the last steps'
 * rows per batch say will fill one.
 */
export class FanOut {
  private readonly sizer: ChunkSizer;
  private rowsPerBatch = 1;

  constructor(private readonly sql: WorkerSql) {
    this.sizer = sql.embedded ? new ChunkSizer(100, 10, 5_000) : new ChunkSizer(5_000, 5_000, 5_000);
  }

  /** One step: the rows added (0: no batch was waiting). */
  async step(): Promise<number> {
    const maxRows = this.sizer.size;
    const { rows, batches } = await store.fanOutBatches(this.sql, maxRows, Math.min(MAX_BATCHES_PER_STEP, Math.ceil(maxRows / this.rowsPerBatch)));
    if (rows > 0) {
      this.sizer.took(this.sql.lastHoldMs, rows);
      this.rowsPerBatch = Math.max(1, 0.5 * this.rowsPerBatch + (0.5 * rows) / Math.max(1, batches));
    }
    return rows;
  }
}

class TokenBucket {
  private tokens: number;
  private at = Date.now();
  constructor(private readonly rate: number) {
    this.tokens = rate;
  }
  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.rate, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
  }
  /** How many requests may go now (without taking them). */
  available(): number {
    this.refill();
    return Math.floor(this.tokens);
  }
  /** 0 when a request may go now, else the ms until one may. */
  take(): number {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.rate) * 1000);
  }
}

/** Whether a failure may pass with time (the receiver down, overloaded, slow), so is worth retrying. */
function retryable(status: number | null, error: unknown): boolean {
  if (error instanceof OutboundRefusedError) return false;
  if (status === null) return true;
  return status >= 500 || status === 429 || status === 408;
}

export function backoffDelay(attempt: number, options: Pick<DeliveryOptions, "backoffMs" | "maxBackoffMs">, random = Math.random): number {
  const base = Math.min(options.maxBackoffMs, options.backoffMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

export class DeliveryWorker {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly breakers = new Map<string, { failures: number; openUntil: number }>();
  private stopped = false;
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly sql: WorkerSql;
  private readonly fanOut: FanOut;

  constructor(
    db: Database,
    private readonly options: DeliveryOptions,
  ) {
    this.sql = db.worker.as("destinations");
    this.fanOut = new FanOut(this.sql);
  }

  /**
   * On the embedded database this process is the only one: rows a killed process had claimed
   * (and those waiting for a retry) are due at once rather than when their lease ends.
   */
  async start(): Promise<void> {
    if (this.sql.embedded) await store.releaseClaims(this.sql).catch((error: unknown) => console.error("burrow: releasing the outbox's claims failed", error));
    this.kick();
  }

  /** When ingestion last routed events, and last said it was saturated (see `yieldToIngestion`). */
  private routedAt = 0;
  private saturatedAt = 0;
  private readonly load = new ServerLoad();
  private lastRunEnd = 0;
  /** No round before this (destinations at their rate limit gather tokens meanwhile). */
  private restUntil = 0;
  private timerAt = 0;

  /** Ingestion routed events to the outbox; `saturated`: its writes queue for the database. */
  routed(saturated: boolean): void {
    this.routedAt = Date.now();
    if (saturated) this.saturatedAt = this.routedAt;
    this.kick();
  }

  /** New rows (or a change): look now rather than at the next poll. */
  kick(): void {
    if (this.stopped) return;
    const now = Date.now();
    if (this.running) {
      this.again = true;
      return;
    }
    // Kicks come with every statement that routed events: a round at most every KICK_GAP_MS, and
    // none during a rest (each round costs queries even when it finds nothing it may send).
    const at = Math.max(this.restUntil, this.lastRunEnd + (this.ingestionBusy() ? BUSY_KICK_GAP_MS : KICK_GAP_MS));
    if (now < at) {
      if (!this.timer || this.timerAt > at) this.schedule(at - now);
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.run().finally(() => {
      this.lastRunEnd = Date.now();
      this.running = null;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = Date.now() + Math.max(10, ms);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.kick();
    }, Math.max(10, ms));
    this.timer.unref();
  }

  private prunedAt = 0;

  /** Rounds until nothing is due, then sleeps until the next due row (or the poll). */
  private async run(): Promise<void> {
    try {
      // The log keeps LOG_DAYS days (PostHog keeps its logs a few weeks too): pruned hourly, in small deletes until
      // none is left (up to a million lines an hour), letting waiting requests go first between them.
      if (Date.now() - this.prunedAt > 3_600_000) {
        this.prunedAt = Date.now();
        const before = new Date(Date.now() - LOG_DAYS * 86_400_000);
        for (let round = 0; round < 200 && !this.stopped; round++) {
          const started = performance.now();
          if ((await store.pruneDeliveries(this.sql, before, PRUNE_CHUNK)) < PRUNE_CHUNK) break;
          await this.yieldToIngestion(performance.now() - started);
        }
      }
      const limit = this.options.concurrency * 4;
      let limited = false;
      while (!this.stopped) {
        // Ingestion writes one small batch per statement; they become outbox rows (an event's row
        // per destination) only while few rows are due soon, so a backlog stays compact in them.
        // (A destination whose circuit is open is not waited for.)
        const open = [...this.breakers].filter(([, b]) => b.openUntil > Date.now()).map(([id]) => id);
        // Nor claimed from, and from one near its rate limit only as many rows as it may send now:
        // claiming rows only to put them back cost each a read of its event and a write (most of a
        // round's work while capture kept the limits full).
        const caps = new Map([...this.buckets].filter(([id]) => !open.includes(id)).map(([id, bucket]) => [id, bucket.available()]));
        limited = [...caps.values()].some((n) => n === 0);
        let started = performance.now();
        if (await store.fewDue(this.sql, FAN_OUT_AHEAD_MS, limit, open)) {
          await this.fanOut.step();
          await this.yieldToIngestion(performance.now() - started);
          started = performance.now();
        }
        const rows = await store.claimOutbox(this.sql, limit, this.options.leaseMs, { skip: open, caps });
        if (rows.length === 0) break;
        await this.deliverAll(rows);
        await this.yieldToIngestion(performance.now() - started);
        // A destination that gave all its cap may have more rows due: they wait for the next round,
        // after a rest, rather than go a few at a time (the tokens of one round's requests), each few
        // costing a round's queries.
        if ([...caps].some(([id, n]) => n > 0 && n < limit && rows.filter((row) => row.hog_function_id === id).length === n)) {
          limited = true;
          break;
        }
      }
      // A destination at its limit gets its next tokens in a burst rather than one a round.
      const next = await store.nextDue(this.sql);
      const wait = next ? Math.min(this.options.pollMs, next.getTime() - Date.now()) : this.options.pollMs;
      if (limited) this.restUntil = Date.now() + RATE_LIMITED_REST_MS;
      this.schedule(limited ? Math.max(wait, RATE_LIMITED_REST_MS) : wait);
    } catch (error) {
      if (!this.stopped) console.error("burrow: delivering to destinations failed", error);
      this.schedule(this.options.pollMs);
    }
  }

  /**
   * Within the last second ingestion said it was saturated (its writes queue for the database:
   * the embedded database's limit), or routed events while the server was (this thread or the
   * machine's cores busy nearly all the time: the CPU's limit, as with a PostgreSQL server on
   * the same cores).
   */
  private ingestionBusy(): boolean {
    const now = Date.now();
    return now - this.saturatedAt < BUSY_FOR_MS || (now - this.routedAt < BUSY_FOR_MS && this.load.high());
  }

  /**
   * Deliveries share the cores (and, embedded, the one connection) with capture, and capture
   * comes first: while capture is saturated (its writes queue for the database, or the server
   * is busy nearly all the time while events arrive), the worker rests nineteen times as long as
   * its last step took (its queries and its requests' wait alike), so it takes at most a
   * twentieth of the time, and its rounds start at most four times a second. Deliveries lag
   * during such a burst and the outbox drains once it is over; a rest never exceeds a second,
   * so they never stop. Below saturation (however many events a second) they run freely.
   */
  private async yieldToIngestion(stepMs: number): Promise<void> {
    if (this.ingestionBusy() && !this.stopped) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, BUSY_REST_FACTOR * stepMs)).unref());
  }

  private async deliverAll(claimed: store.OutboxRow[]): Promise<void> {
    // An event deleted since it was routed (its person deleted) is not sent.
    const rows = claimed.filter((row): row is Deliverable => row.payload !== null);
    const gone = claimed.filter((row) => row.payload === null).map((row) => row.id);
    const functions = new Map((await store.functionsForDelivery(this.sql, [...new Set(rows.map((r) => r.hog_function_id))])).map((f) => [f.id, f]));
    const personIds = [...new Set(rows.map((r) => r.payload.person_id).filter((id): id is string => typeof id === "string"))];
    const persons = await store.personProperties(this.sql, personIds);
    const postponed = new Map<number, string[]>();
    const work: { row: Deliverable; fn: store.HogFunctionForDelivery }[] = [];
    for (const row of rows) {
      const fn = functions.get(row.hog_function_id);
      // Deleted for good, or its project: nothing to deliver to. Disabled or soft-deleted: the events wait for it.
      if (!fn) gone.push(row.id);
      else if (!fn.enabled || fn.deleted) (postponed.get(60_000) ?? postponed.set(60_000, []).get(60_000)!).push(row.id);
      else {
        const breaker = this.breakerOf(fn);
        const wait = breaker.openUntil > Date.now() ? breaker.openUntil - Date.now() : this.bucketOf(fn.id).take();
        if (wait > 0) (postponed.get(wait) ?? postponed.set(wait, []).get(wait)!).push(row.id);
        else work.push({ row, fn });
      }
    }
    await store.dropOutbox(this.sql, gone);
    for (const [wait, ids] of postponed) await store.postpone(this.sql, ids, new Date(Date.now() + wait));
    const outcomes: store.AttemptOutcome[] = [];
    // Compiled once a round per destination, not per row.
    const checks = new Map([...functions.values()].map((fn) => [fn.id, personCheck(fn.filters, fn.test_account_filters)]));
    let next = 0;
    const lane = async () => {
      while (next < work.length) {
        const item = work[next++]!;
        const person = item.row.payload.person_id ? (persons.get(String(item.row.payload.person_id)) ?? null) : null;
        outcomes.push(await this.attempt(item.row, item.fn, person, checks.get(item.fn.id) ?? null));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, work.length) }, lane));
    await store.recordAttempts(this.sql, outcomes);
    for (const fn of functions.values()) await this.saveBreaker(fn);
  }

  private async attempt(row: Deliverable, fn: store.HogFunctionForDelivery, person: Record<string, unknown> | null, check: ReturnType<typeof personCheck>): Promise<store.AttemptOutcome> {
    const attempt = row.attempts + 1;
    const base = { outboxId: row.id, hogFunctionId: fn.id, projectId: row.project_id, eventUuid: row.event_uuid, attempt };
    if (check && !check(row.payload, person)) return { ...base, status: "skipped", responseCode: null, durationMs: 0, error: "The person no longer matches the filters." };
    const started = performance.now();
    let status: number | null = null;
    let error: unknown = null;
    try {
      const prepared = prepareRequest(fn, row.payload, person);
      const answer = await outboundRequest({ ...prepared.request, timeoutMs: this.options.timeoutMs, maxRedirects: 0 }, undefined, this.options.resolver);
      status = answer.status;
      if (status >= 300) error = new Error(`Webhook failed with status ${status}: ${answer.body.slice(0, 500)}`);
    } catch (thrown) {
      // The destination's own settings cannot make this request: it fails at once, and says why, rather than 8 times.
      if (thrown instanceof UndeliverableError) return { ...base, status: "failed", responseCode: null, durationMs: 0, error: thrown.message };
      error = thrown;
    }
    const durationMs = Math.round(performance.now() - started);
    const breaker = this.breakerOf(fn);
    if (error === null) {
      breaker.failures = 0;
      breaker.openUntil = 0;
      return { ...base, status: "delivered", responseCode: status, durationMs, error: null };
    }
    const message = error instanceof Error ? error.message : String(error);
    const again = retryable(status, error);
    if (again) {
      breaker.failures++;
      if (breaker.failures >= this.options.breakerFailures) breaker.openUntil = Date.now() + this.options.breakerOpenMs;
    }
    if (again && attempt < this.options.maxAttempts) {
      return { ...base, status: "retrying", responseCode: status, durationMs, error: message, retryAt: new Date(Date.now() + backoffDelay(attempt, this.options)) };
    }
    return { ...base, status: "failed", responseCode: status, durationMs, error: message };
  }

  private breakerOf(fn: store.HogFunctionForDelivery) {
    let breaker = this.breakers.get(fn.id);
    if (!breaker) {
      breaker = { failures: fn.consecutive_failures, openUntil: fn.circuit_open_until?.getTime() ?? 0 };
      this.breakers.set(fn.id, breaker);
    }
    return breaker;
  }

  private bucketOf(id: string): TokenBucket {
    let bucket = this.buckets.get(id);
    if (!bucket) this.buckets.set(id, (bucket = new TokenBucket(this.options.ratePerSecond)));
    return bucket;
  }

  /** The breaker's state where the API reads it, when it changed. */
  private async saveBreaker(fn: store.HogFunctionForDelivery): Promise<void> {
    const breaker = this.breakers.get(fn.id);
    if (!breaker) return;
    const openUntil = breaker.openUntil > Date.now() ? new Date(breaker.openUntil) : null;
    if (breaker.failures === fn.consecutive_failures && (openUntil?.getTime() ?? null) === (fn.circuit_open_until?.getTime() ?? null)) return;
    await store.saveBreaker(this.sql, fn.id, breaker.failures, openUntil);
  }

  /** A destination changed through the API: its breaker starts afresh. */
  forget(id: string): void {
    this.breakers.delete(id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}

const WORKER_KEY = Symbol.for("burrow.destinationWorker");
const holder = globalThis as { [WORKER_KEY]?: DeliveryWorker };

export function startDestinationWorker(db: Database, options: Partial<DeliveryOptions> = {}): DeliveryWorker {
  const existing = holder[WORKER_KEY];
  if (existing) return existing;
  const worker = new DeliveryWorker(db, { ...deliveryOptionsFromEnv(), ...options });
  holder[WORKER_KEY] = worker;
  void worker.start();
  return worker;
}

export async function stopDestinationWorker(): Promise<void> {
  const worker = holder[WORKER_KEY];
  delete holder[WORKER_KEY];
  await worker?.stop();
}

/**
 * Wakes the running worker, if any: events just went to the outbox (`saturated`: while
 * ingestion's writes queue for the database), or a destination changed.
 */
export function kickDestinationWorker(cause: { changed: string } | { routed: true; saturated: boolean }): void {
  const worker = holder[WORKER_KEY];
  if ("changed" in cause) {
    worker?.forget(cause.changed);
    worker?.kick();
  } else worker?.routed(cause.saturated);
}
