import { AppError } from "@/server/errors";
import { SIGN_IN_MAX_FAILURES } from "./contract";

function lockoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.BURROW_SIGNIN_LOCKOUT_SECONDS);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 300) * 1000;
}

interface Attempts {
  /** Wrong passwords in a row. */
  failures: number;
  /** Attempts that hold a slot and have not been settled yet (argon2 still running). */
  inFlight: number;
  /** When the lock ends (ms), or 0 when not locked. */
  lockedUntil: number;
}

/** A reserved attempt: settle it once with the outcome (null: none, e.g. the database failed). */
export interface AttemptSlot {
  settle(ok: boolean | null): void;
}

/**
 * Failed sign-ins per e-mail address: after five in a row the address is locked for the
 * lockout window (5 minutes; BURROW_SIGNIN_LOCKOUT_SECONDS), whatever password is tried;
 * a success clears the count.
 *
 * An attempt takes a slot synchronously, before anything is awaited, and failures plus
 * attempts in flight never exceed five. Counting only settled failures let 30 parallel
 * guesses all reach argon2, since each checked the count before any had failed.
 *
 * Kept in memory, per process: a restart forgets it (which only helps the legitimate user),
 * and each node of a multi-node deployment counts on its own.
 */
export class SignInThrottle {
  private readonly attempts = new Map<string, Attempts>();

  constructor(
    private readonly windowMs: number = lockoutMs(),
    private readonly now: () => number = Date.now,
  ) {}

  /** The address's entry with an expired lock cleared, or undefined. */
  private current(email: string): Attempts | undefined {
    const entry = this.attempts.get(email);
    if (entry && entry.lockedUntil !== 0 && entry.lockedUntil <= this.now()) {
      entry.lockedUntil = 0;
      entry.failures = 0;
      this.forgetIfIdle(email, entry);
    }
    return this.attempts.get(email);
  }

  private forgetIfIdle(email: string, entry: Attempts): void {
    if (entry.failures === 0 && entry.inFlight === 0 && entry.lockedUntil === 0) this.attempts.delete(email);
  }

  /** Seconds until `email` may try again because it is locked, or 0. */
  retryAfter(email: string): number {
    const entry = this.current(email);
    if (!entry || entry.lockedUntil === 0) return 0;
    return Math.ceil((entry.lockedUntil - this.now()) / 1000);
  }

  /**
   * Seconds before `email` may try again: while it is locked, the rest of the lock; while its
   * five slots are taken by failures and attempts still running, 1 (they settle within an
   * argon2 verification). 0 when an attempt would be evaluated now.
   */
  refusedFor(email: string): number {
    const locked = this.retryAfter(email);
    if (locked > 0) return locked;
    const entry = this.current(email);
    return entry && entry.failures + entry.inFlight >= SIGN_IN_MAX_FAILURES ? 1 : 0;
  }

  /**
   * Takes an attempt slot for `email`, or throws `throttled` when the address is locked or
   * its five slots are taken by failures and attempts still running. Synchronous on
   * purpose: the check and the reservation cannot be interleaved with another attempt.
   */
  reserve(email: string): AttemptSlot {
    const refused = this.refusedFor(email);
    if (refused > 0) throw throttledError(refused);
    const entry = this.current(email) ?? { failures: 0, inFlight: 0, lockedUntil: 0 };
    entry.inFlight += 1;
    this.attempts.set(email, entry);
    let settled = false;
    return {
      settle: (ok) => {
        if (settled) return;
        settled = true;
        entry.inFlight -= 1;
        if (ok) {
          entry.failures = 0;
          entry.lockedUntil = 0;
        } else if (ok === false) {
          entry.failures += 1;
          if (entry.failures >= SIGN_IN_MAX_FAILURES && entry.lockedUntil === 0) entry.lockedUntil = this.now() + this.windowMs;
        }
        this.forgetIfIdle(email, entry);
      },
    };
  }
}

const THROTTLE_KEY = Symbol.for("burrow.signInThrottle");
/** The process's throttle (one, although modules load twice: see STACK.md). */
export function signInThrottle(): SignInThrottle {
  const holder = globalThis as { [THROTTLE_KEY]?: SignInThrottle };
  return (holder[THROTTLE_KEY] ??= new SignInThrottle());
}

export function throttledError(seconds: number): AppError {
  return new AppError("throttled", `Too many failed sign-in attempts. Try again in ${seconds} seconds.`, null, {
    retryAfter: seconds,
  });
}
