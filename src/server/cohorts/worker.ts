/**
 * Keeping dynamic cohorts' members computed: the computation of one cohort (its rows of
 * `cohort_people` swapped in one transaction, store.replaceMembership) and the process's
 * background worker that runs it for new, changed and due cohorts. Nested dynamic cohorts
 * are inlined into the computation (their definitions, not their possibly stale rows);
 * nested static ones are read from their rows. The rules of the cohorts API are `service.ts`.
 */
import type { Database } from "@/server/db";
import type { WorkerSql } from "@/server/db/driver";
import { isBehavioralFilter, isPropertyGroup, type BehavioralFilter, type PropertyGroup, type PropertyNode } from "@/server/properties/contract";
import { startPeriodicPass, stopPeriodicPass, type PassStart } from "@/server/periodic-pass";
import { COHORT_CYCLE_MESSAGE, COHORT_LIMITS, referencedCohortIds } from "./contract";
import * as store from "./store";
import { EMPTY_TREE, eventCountOf, storedTree } from "./stored-filters";

function behavioralLeaves(node: PropertyNode): BehavioralFilter[] {
  if (isPropertyGroup(node)) return node.values.flatMap(behavioralLeaves);
  return isBehavioralFilter(node) ? [node] : [];
}

/** Every cohort `tree` reaches, dependencies first resolved by id; a loop or a too-deep nesting throws. */
async function resolveNested(sql: WorkerSql, projectId: number, selfId: number, tree: PropertyGroup) {
  const nested = new Map<number, { isStatic: boolean; tree: PropertyGroup }>();
  const walk = async (node: PropertyGroup, path: number[]): Promise<void> => {
    const ids = referencedCohortIds(node);
    if (ids.length === 0) return;
    if (path.length > COHORT_LIMITS.maxNesting) throw new Error(`Cohorts nest at most ${COHORT_LIMITS.maxNesting} deep.`);
    const definitions = await store.cohortDefinitionsSql(sql, projectId, ids.filter((id) => !nested.has(id)));
    for (const definition of definitions) {
      // A deleted cohort has no members: left out, its leaf matches no one.
      if (definition.deleted) continue;
      const nestedTree = definition.isStatic ? EMPTY_TREE : storedTree(definition.filters);
      if (!nestedTree) throw new Error(`The filters of cohort ${definition.id} could not be read.`);
      nested.set(definition.id, { isStatic: definition.isStatic, tree: nestedTree });
    }
    for (const id of ids) {
      if (id === selfId || path.includes(id)) throw new Error(COHORT_CYCLE_MESSAGE);
      const entry = nested.get(id);
      if (entry && !entry.isStatic) await walk(entry.tree, [...path, id]);
    }
  };
  await walk(tree, [selfId]);
  return nested;
}

export type ComputeOutcome = store.SwapOutcome | { status: "failed"; error: string };

/**
 * Computes a dynamic cohort's members now and swaps them in (count, is_calculating,
 * last_calculation and the error fields with them). `busy`: another computation of the
 * cohort is under way; `stale`: its definition changed meanwhile (still marked calculating:
 * the worker computes it again); `gone`: deleted, static or unknown.
 */
export async function computeCohort(db: Database, cohortId: number, now = new Date()): Promise<ComputeOutcome> {
  // The workers' handle: on a PostgreSQL server its own connections; on the embedded database
  // short checkouts of the one connection (the membership in chunks, store.updateMembershipInChunks).
  const sql = db.worker.as("cohorts");
  const row = await store.cohortForComputation(sql, cohortId);
  if (!row || row.deleted || row.isStatic) return { status: "gone" };
  try {
    const tree = storedTree(row.filters);
    if (!tree) throw new Error("The cohort's filters could not be read.");
    const nested = await resolveNested(sql, row.projectId, row.id, tree);
    let behavioralPersons: Map<BehavioralFilter, string[]> | null = null;
    if (db.events.kind !== "postgres") {
      behavioralPersons = new Map();
      const leaves = [tree, ...[...nested.values()].map((entry) => entry.tree)].flatMap(behavioralLeaves);
      for (const leaf of leaves) behavioralPersons.set(leaf, await db.events.personsWithEventCount(row.projectId, eventCountOf(leaf, now)));
    }
    const plan: store.MembershipPlan = {
      cohortId: row.id,
      projectId: row.projectId,
      version: row.version,
      tree,
      nested,
      eventCount: (leaf) => eventCountOf(leaf, now),
      behavioralPersons,
      now,
    };
    // One transaction on a server (readers see the old members until it commits); chunks on the embedded database.
    return await (sql.embedded ? store.updateMembershipInChunks(sql, plan) : store.replaceMembership(sql, plan));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await store.recordFailure(sql, row.id, row.version, message);
    return { status: "failed", error: message };
  }
}

// ---------------------------------------------------------------------------
// The background worker
// ---------------------------------------------------------------------------

/**
 * `firstPassAfterMs` delays the first sweep (a periodic pass): a server restarted after more
 * than `staleMs` finds every dynamic cohort due, and computing them all right after ready held
 * a core of PostgreSQL for seconds per cohort under its first requests. Flags evaluate dynamic
 * cohorts without their rows, so waiting costs only their member lists' freshness; a cohort
 * created or changed meanwhile is computed at once (kick).
 */
export interface CohortWorkerOptions extends PassStart {
  /** How often to look for cohorts to compute. */
  sweepMs?: number;
  /** Dynamic cohorts are computed again at least this often (behavioral windows move on). */
  staleMs?: number;
  /** After persons of its project changed, a cohort is computed again, but not more often than this. */
  personsQuietMs?: number;
}

interface Worker {
  kick(cohortId: number): void;
  stop(): Promise<void>;
}

// Modules load twice (Next's bundle and the server): services in Next's copy reach the
// worker the server started through globalThis.
const WORKER_KEY = Symbol.for("burrow.cohortWorker");
const SWEEP_KEY = Symbol.for("burrow.cohortSweep");
type Holder = { [WORKER_KEY]?: Worker };
const holder = globalThis as Holder;

/** Queues a computation on the running worker, if any (without one, the next start's sweep finds the cohort marked calculating). */
export function enqueueComputation(cohortId: number): void {
  holder[WORKER_KEY]?.kick(cohortId);
}

/**
 * Starts the process's cohort worker: computes queued cohorts one at a time, and every
 * `sweepMs` queues the dynamic cohorts that are due (store.dueCohorts), the first time
 * `firstPassAfterMs` after start, which recovers cohorts a crash left marked calculating.
 */
export function startCohortWorker(db: Database, options: CohortWorkerOptions = {}): void {
  if (holder[WORKER_KEY]) return;
  const { sweepMs = 30_000, staleMs = 5 * 60_000, personsQuietMs = 60_000 } = options;
  const queue = new Set<number>();
  let stopped = false;
  let running: Promise<void> | null = null;

  const drain = () => {
    if (running || stopped) return;
    running = (async () => {
      while (!stopped && queue.size > 0) {
        const id = queue.values().next().value!;
        queue.delete(id);
        try {
          const outcome = await computeCohort(db, id);
          if (outcome.status === "stale") queue.add(id);
        } catch (error) {
          console.error(`burrow: computing cohort ${id} failed`, error);
        }
      }
    })().finally(() => {
      running = null;
      if (!stopped && queue.size > 0) drain();
    });
  };

  const sweep = async () => {
    const now = Date.now();
    for (const due of await store.dueCohorts(db.worker.as("cohorts"), new Date(now - staleMs), new Date(now - personsQuietMs), 100)) queue.add(due.id);
    drain();
  };

  startPeriodicPass(SWEEP_KEY, sweepMs, "looking for cohorts to compute", sweep, options);
  holder[WORKER_KEY] = {
    kick(cohortId) {
      queue.add(cohortId);
      drain();
    },
    async stop() {
      stopped = true;
      await stopPeriodicPass(SWEEP_KEY);
      await running;
    },
  };
}

/** Stops the worker, waiting for a computation under way (its transaction commits or rolls back). */
export async function stopCohortWorker(): Promise<void> {
  const worker = holder[WORKER_KEY];
  delete holder[WORKER_KEY];
  await worker?.stop();
}
