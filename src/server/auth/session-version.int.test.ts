import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testUserContext } from "@/test-support/context";
import { bootstrap, changePassword } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { authenticate, sessionUserFromHeaders } from "@/server/http/rest/principal";
import { authOptions } from "./next-auth";
import { SESSION_VERSION_CLAIM } from "./contract";
import { authSecret, SignInThrottle, verifyCredentials } from "./service";

const PASSWORD = "correct horse battery";

describe(`sessions end at sign-out and password change (${testDbKind})`, () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
    // next-auth's sign-out event opens the process's database.
    registerDb(db);
  });
  afterAll(async () => {
    await closeDb();
  });

  /** A session cookie as next-auth issues it at sign-in: authorize's user through the jwt callback. */
  async function signIn(email: string, password = PASSWORD) {
    const user = await verifyCredentials(db.prisma, new SignInThrottle(), { email, password });
    if (!user) throw new Error(`cannot sign in as ${email}`);
    const token = await authOptions().callbacks!.jwt!({
      token: { sub: String(user.id), email: user.email },
      user: { id: String(user.id), email: user.email, sessionVersion: user.sessionVersion } as never,
      account: null,
    });
    const cookie = `next-auth.session-token=${await encode({ token, secret: authSecret() })}`;
    return { userId: user.id, token, cookie };
  }

  /** The two session checks: tRPC's context and server pages (sessionUserFromHeaders), and REST's principal. */
  async function sessionWorks(cookie: string): Promise<{ trpc: boolean; rest: boolean }> {
    const headers = new Headers({ cookie });
    const trpc = (await sessionUserFromHeaders(db.prisma, headers)) !== null;
    const rest = await authenticate(db.prisma, new Request("http://localhost/api/users/@me/", { headers })).then(
      () => true,
      (error: unknown) => {
        expect(error).toMatchObject({ code: "not_authenticated", status: 401 });
        return false;
      },
    );
    return { trpc, rest };
  }

  it("refuses a session cookie after its user signed out, and only that user's", async () => {
    await bootstrap(db.prisma, { email: "leaver@example.com", password: PASSWORD });
    await bootstrap(db.prisma, { email: "stayer@example.com", password: PASSWORD });
    const leaver = await signIn("leaver@example.com");
    const secondDevice = await signIn("leaver@example.com");
    const stayer = await signIn("stayer@example.com");
    expect(leaver.token[SESSION_VERSION_CLAIM]).toBe(0);
    expect(await sessionWorks(leaver.cookie)).toEqual({ trpc: true, rest: true });

    await authOptions().events!.signOut!({ token: leaver.token, session: undefined as never });

    expect(await sessionWorks(leaver.cookie)).toEqual({ trpc: false, rest: false });
    expect(await sessionWorks(secondDevice.cookie)).toEqual({ trpc: false, rest: false });
    expect(await sessionWorks(stayer.cookie)).toEqual({ trpc: true, rest: true });

    // A new sign-in carries the new version; signing out again with the dead cookie does not end it.
    const again = await signIn("leaver@example.com");
    expect(again.token[SESSION_VERSION_CLAIM]).toBe(1);
    expect(await sessionWorks(again.cookie)).toEqual({ trpc: true, rest: true });
    await authOptions().events!.signOut!({ token: leaver.token, session: undefined as never });
    expect(await sessionWorks(again.cookie)).toEqual({ trpc: true, rest: true });
  });

  it("refuses a session cookie after a password change; the new password signs in", async () => {
    await bootstrap(db.prisma, { email: "changer@example.com", password: PASSWORD });
    const before = await signIn("changer@example.com");
    const throttle = new SignInThrottle();

    await expect(
      changePassword(await testUserContext(db, before.userId), throttle, { currentPassword: "not it", newPassword: "a new long password" }),
    ).rejects.toMatchObject({ code: "invalid_input", attr: "currentPassword" });
    expect(await sessionWorks(before.cookie)).toEqual({ trpc: true, rest: true });

    await changePassword(await testUserContext(db, before.userId), throttle, { currentPassword: PASSWORD, newPassword: "a new long password" });

    expect(await sessionWorks(before.cookie)).toEqual({ trpc: false, rest: false });
    await expect(signIn("changer@example.com")).rejects.toThrow("cannot sign in");
    const after = await signIn("changer@example.com", "a new long password");
    expect(await sessionWorks(after.cookie)).toEqual({ trpc: true, rest: true });
  });

  it("counts wrong current passwords against the sign-in lockout", async () => {
    await bootstrap(db.prisma, { email: "guessed@example.com", password: PASSWORD });
    const { userId } = await signIn("guessed@example.com");
    const throttle = new SignInThrottle(300_000);
    const guess = async (currentPassword: string) => changePassword(await testUserContext(db, userId), throttle, { currentPassword, newPassword: "whatever-new-1" });
    for (let i = 0; i < 5; i++) await expect(guess(`guess-${i}`)).rejects.toMatchObject({ code: "invalid_input" });
    await expect(guess(PASSWORD)).rejects.toMatchObject({ code: "throttled", status: 429 });
  });
});
