import type { PrismaClient } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { verifyPassword } from "./passwords";

export const SIGN_IN_MAX_FAILURES = 5;

function lockoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.BURROW_SIGNIN_LOCKOUT_SECONDS);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 300) * 1000;
}

/**
 * Failed sign-ins per e-mail address: after five in a row the address is locked for the
 * lockout window (5 minutes; BURROW_SIGNIN_LOCKOUT_SECONDS), whatever password is tried;
 * a success clears the count. Kept in memory: a restart forgets it, which only helps the
 * legitimate user.
 */
export class SignInThrottle {
  private readonly failures = new Map<string, { count: number; lockedUntil: number }>();

  constructor(
    private readonly windowMs: number = lockoutMs(),
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `email` may try again, or 0. */
  retryAfter(email: string): number {
    const entry = this.failures.get(email);
    if (!entry || entry.lockedUntil === 0) return 0;
    const remaining = entry.lockedUntil - this.now();
    if (remaining <= 0) {
      this.failures.delete(email);
      return 0;
    }
    return Math.ceil(remaining / 1000);
  }

  recordFailure(email: string): void {
    const entry = this.failures.get(email) ?? { count: 0, lockedUntil: 0 };
    entry.count += 1;
    if (entry.count >= SIGN_IN_MAX_FAILURES) entry.lockedUntil = this.now() + this.windowMs;
    this.failures.set(email, entry);
  }

  recordSuccess(email: string): void {
    this.failures.delete(email);
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

/**
 * Checks an e-mail and password. Returns the user, or null for a wrong pair; throws a
 * `throttled` AppError while the address is locked out. Records the outcome.
 */
export async function verifyCredentials(
  prisma: PrismaClient,
  throttle: SignInThrottle,
  credentials: { email: string; password: string },
) {
  const email = credentials.email.trim().toLowerCase();
  const wait = throttle.retryAfter(email);
  if (wait > 0) throw throttledError(wait);
  const user = await prisma.user.findUnique({ where: { email } });
  // Verify against a real hash even for unknown addresses, so timing does not tell
  // which addresses have accounts.
  const ok = await verifyPassword(user?.passwordHash ?? DUMMY_HASH, credentials.password);
  if (!user || !ok || !user.isActive) {
    throttle.recordFailure(email);
    return null;
  }
  throttle.recordSuccess(email);
  await prisma.user.update({ where: { id: user.id }, data: { lastLoginAt: new Date() } });
  return user;
}

// argon2id hash of a random string nobody knows.
const DUMMY_HASH = "$argon2id$v=19$m=19456,t=2,p=1$JGqrz4NskWOOk2ziiJOFOw$AhPZxO/4KGoiFDb25XHDWL6BSwNY9innS+Emr62RXmQ";
