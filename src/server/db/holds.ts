/**
 * How long background work holds a database connection, per caller (issue 31: on the
 * embedded database, whose one connection every request shares, no worker may hold it for
 * more than ~50 ms at a time). The worker SQL handle (driver.ts `worker`) times each of its
 * checkouts — a statement, or a transaction from BEGIN to COMMIT — from the moment it has the
 * connection to the moment it gives it back (waiting for it is not holding it), and hands the
 * time here. Nothing is kept unless a recorder listens (tests, bench/workers.ts): the request
 * paths never come here at all.
 */

export interface Hold {
  /** Who held it: the `as(caller)` tag of the worker handle ("cohorts", "person-deletions" …). */
  caller: string;
  /** Milliseconds between getting the connection and giving it back. */
  ms: number;
  /** performance.now() when it was given back. */
  at: number;
}

export interface HoldRecorder {
  /** What was recorded so far (the same array, growing). */
  readonly holds: readonly Hold[];
  /** The holds of one caller. */
  of(caller: string): Hold[];
  /** The longest hold of one caller (0 without any). */
  max(caller: string): number;
  stop(): void;
}

// Modules load twice (Next's bundle and the server): the listeners live on globalThis.
const KEY = Symbol.for("burrow.holdRecorders");
type Holder = { [KEY]?: Set<Hold[]> };
const holder = globalThis as Holder;

/** Whether anyone listens (callers may skip timing altogether when not). */
export function recordingHolds(): boolean {
  return (holder[KEY]?.size ?? 0) > 0;
}

/** A worker handle gave its connection back after `ms`. */
export function noteHold(caller: string, ms: number): void {
  const recorders = holder[KEY];
  if (!recorders || recorders.size === 0) return;
  const hold = { caller, ms, at: performance.now() };
  for (const holds of recorders) holds.push(hold);
}

/** Starts recording every worker hold of this process until `stop()`. */
export function recordHolds(): HoldRecorder {
  const holds: Hold[] = [];
  const recorders = (holder[KEY] ??= new Set());
  recorders.add(holds);
  return {
    holds,
    of: (caller) => holds.filter((hold) => hold.caller === caller),
    max: (caller) => holds.reduce((max, hold) => (hold.caller === caller && hold.ms > max ? hold.ms : max), 0),
    stop: () => void recorders.delete(holds),
  };
}
