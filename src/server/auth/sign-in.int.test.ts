import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { AppError } from "@/server/errors";
import { SIGN_IN_MAX_FAILURES } from "./contract";
import { SignInThrottle, verifyCredentials } from "./service";

describe(`sign-in with e-mail and password (${testDbKind})`, () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
    await bootstrap(db.prisma, { email: "owner@example.com", password: "correct horse battery" });
  });
  afterAll(async () => {
    await db?.close();
  });

  it("accepts the right pair (e-mail in any case) and records the login; refuses a wrong one", async () => {
    const throttle = new SignInThrottle(60_000);
    const user = await verifyCredentials(db.prisma, throttle, { email: " Owner@Example.com ", password: "correct horse battery" });
    expect(user?.email).toBe("owner@example.com");
    expect((await db.prisma.user.findUnique({ where: { email: "owner@example.com" } }))?.lastLoginAt).toBeInstanceOf(Date);
    expect(await verifyCredentials(db.prisma, throttle, { email: "owner@example.com", password: "wrong" })).toBeNull();
    expect(await verifyCredentials(db.prisma, throttle, { email: "nobody@example.com", password: "x" })).toBeNull();
  });

  it("locks an address after five wrong passwords in a row, even for the right one, until the window passes", async () => {
    let now = 1_000_000;
    const throttle = new SignInThrottle(300_000, () => now);
    const attempt = (password: string) => verifyCredentials(db.prisma, throttle, { email: "owner@example.com", password });
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) expect(await attempt("wrong")).toBeNull();
    const locked = await attempt("correct horse battery").catch((e: unknown) => e);
    expect(locked).toBeInstanceOf(AppError);
    expect(locked).toMatchObject({ code: "throttled", status: 429, details: { retryAfter: 300 } });
    now += 299_000;
    await expect(attempt("correct horse battery")).rejects.toMatchObject({ details: { retryAfter: 1 } });
    now += 1_000;
    expect((await attempt("correct horse battery"))?.email).toBe("owner@example.com");
  });

  it("starts counting again after a success", async () => {
    const throttle = new SignInThrottle(300_000);
    const attempt = (password: string) => verifyCredentials(db.prisma, throttle, { email: "owner@example.com", password });
    for (let i = 0; i < SIGN_IN_MAX_FAILURES - 1; i++) await attempt("wrong");
    expect(await attempt("correct horse battery")).not.toBeNull();
    for (let i = 0; i < SIGN_IN_MAX_FAILURES - 1; i++) await attempt("wrong");
    expect(throttle.retryAfter("owner@example.com")).toBe(0);
  });

  it("lets at most five of 30 parallel wrong passwords reach argon2; the rest, then the right one, are throttled until the lock ends", async () => {
    let now = 5_000_000;
    const throttle = new SignInThrottle(300_000, () => now);
    const attempt = (password: string) => verifyCredentials(db.prisma, throttle, { email: "owner@example.com", password });
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => attempt(`wrong-${i}`)));
    // A null answer means argon2 ran and refused; a throttled rejection means it never ran.
    const verified = outcomes.filter((o) => o.status === "fulfilled");
    const throttled = outcomes.filter((o) => o.status === "rejected");
    expect(verified).toHaveLength(SIGN_IN_MAX_FAILURES);
    expect(verified.every((o) => o.status === "fulfilled" && o.value === null)).toBe(true);
    expect(throttled).toHaveLength(30 - SIGN_IN_MAX_FAILURES);
    for (const o of throttled) expect(o.status === "rejected" && o.reason).toMatchObject({ code: "throttled", status: 429 });
    await expect(attempt("correct horse battery")).rejects.toMatchObject({ code: "throttled", details: { retryAfter: 300 } });
    now += 300_000;
    expect((await attempt("correct horse battery"))?.email).toBe("owner@example.com");
  });

  it("counts attempts for unknown addresses the same way", async () => {
    const throttle = new SignInThrottle(300_000);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, () => verifyCredentials(db.prisma, throttle, { email: "nobody@example.com", password: "guess" })),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(SIGN_IN_MAX_FAILURES);
    expect(throttle.retryAfter("nobody@example.com")).toBe(300);
  });

  it("gives a slot back without counting it when the attempt had no outcome (the database failed)", () => {
    const throttle = new SignInThrottle(300_000);
    for (let i = 0; i < 10; i++) throttle.reserve("flaky@example.com").settle(null);
    const held = Array.from({ length: SIGN_IN_MAX_FAILURES }, () => throttle.reserve("flaky@example.com"));
    expect(() => throttle.reserve("flaky@example.com")).toThrow(AppError);
    for (const slot of held) slot.settle(null);
    expect(throttle.retryAfter("flaky@example.com")).toBe(0);
    expect(() => throttle.reserve("flaky@example.com").settle(true)).not.toThrow();
  });
});
