/**
 * Stored person properties for /decide and /flags, looked up in batches: the lookups asked
 * for while one batch query runs are gathered and sent as the next query
 * (`distinct_id = ANY(…)`), so under load each request shares one round trip with the others
 * instead of paying its own — on PGlite (one connection) that is most of the cost of a
 * request. At most one batch per database and project is in flight; an idle server sends
 * each lookup at the end of the event-loop turn it arrived in.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { personPropertiesByDistinctId } from "./store";

/** Enough to keep one statement small; more waiting lookups go in the next batch. */
const MAX_BATCH = 500;

interface Waiting {
  distinctId: string;
  resolve(properties: Record<string, unknown> | null): void;
  reject(error: unknown): void;
}

interface ProjectQueue {
  waiting: Waiting[];
  running: boolean;
}

type Properties = Record<string, unknown>;

function parsed(value: unknown): Properties | null {
  if (value === null || value === undefined) return null;
  return (typeof value === "string" ? JSON.parse(value) : value) as Properties;
}

export class PersonPropertiesBatcher {
  private readonly queues = new Map<number, ProjectQueue>();

  constructor(private readonly sql: SqlExecutor) {}

  /** The properties of the person behind `distinctId`, or null when there is none. */
  load(projectId: number, distinctId: string): Promise<Properties | null> {
    let queue = this.queues.get(projectId);
    if (!queue) {
      queue = { waiting: [], running: false };
      this.queues.set(projectId, queue);
    }
    const promise = new Promise<Properties | null>((resolve, reject) => queue.waiting.push({ distinctId, resolve, reject }));
    if (!queue.running) {
      // Start at the end of this round of the event loop, so the requests whose bytes arrived
      // together share the query (PGlite answers within microtasks: without this every request
      // would run to its end before the next one's is even parsed).
      queue.running = true;
      setImmediate(() => void this.drain(projectId, queue));
    }
    return promise;
  }

  private async drain(projectId: number, queue: ProjectQueue): Promise<void> {
    try {
      while (queue.waiting.length > 0) {
        const batch = queue.waiting.splice(0, MAX_BATCH);
        try {
          const ids = [...new Set(batch.map((entry) => entry.distinctId))];
          const rows = await personPropertiesByDistinctId(this.sql, projectId, ids);
          const found = new Map(rows.map((row) => [row.distinct_id, row.properties]));
          // Each caller gets its own copy: callers add to the properties they are given.
          for (const entry of batch) {
            const properties = found.get(entry.distinctId);
            entry.resolve(properties === undefined ? null : { ...parsed(properties) });
          }
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      queue.running = false;
      if (queue.waiting.length === 0) this.queues.delete(projectId);
    }
  }
}

// One batcher per database connection pool (tests open several databases in one process).
const batchers = new WeakMap<SqlExecutor, PersonPropertiesBatcher>();

export function personPropertiesBatcher(sql: SqlExecutor): PersonPropertiesBatcher {
  let batcher = batchers.get(sql);
  if (!batcher) {
    batcher = new PersonPropertiesBatcher(sql);
    batchers.set(sql, batcher);
  }
  return batcher;
}
