import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPersonalApiKey } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { AppError } from "@/server/errors";
import { authenticate } from "./principal";
import { encode } from "next-auth/jwt";
import { authSecret } from "@/server/auth/service";
import { toErrorResponse } from "./respond";

function request(authorization?: string): Request {
  return new Request("http://localhost/api/projects/1/dashboards/", {
    headers: authorization === undefined ? {} : { authorization },
  });
}

describe(`authenticate (${testDbKind})`, () => {
  let db: Database;
  let key: string;
  let userId: number;

  beforeAll(async () => {
    db = await createTestDatabase();
    const user = await db.prisma.user.create({
      data: { email: "rest@example.com", passwordHash: "$argon2id$unused", distinctId: "rest-user" },
    });
    userId = user.id;
    ({ key } = await createPersonalApiKey(db.prisma, user.id, { scopes: ["dashboard:read"] }));
  });
  afterAll(async () => {
    await db?.close();
  });

  async function rejection(req: Request): Promise<AppError> {
    const error = await authenticate(db.prisma, req).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }

  it("answers a request without Authorization, or with an empty one, with not_authenticated (401)", async () => {
    for (const req of [request(), request("")]) {
      const error = await rejection(req);
      expect(error.code).toBe("not_authenticated");
      expect(error.status).toBe(401);
    }
  });

  it.each([
    ["Basic credentials", "Basic dXNlcjpwYXNz"],
    ["a bare key without a scheme", "phx_abc"],
    ["Bearer without a key", "Bearer"],
    ["Bearer with two words", "Bearer phx_a phx_b"],
  ])("answers %s with authentication_failed (401)", async (_label, header) => {
    const error = await rejection(request(header));
    expect(error.code).toBe("authentication_failed");
    expect(error.status).toBe(401);
  });

  it("answers an unknown key with authentication_failed (401) and a detail saying the key is invalid", async () => {
    const error = await rejection(request("Bearer phx_notakeyatall0123456789"));
    expect(error.code).toBe("authentication_failed");
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/invalid/i);
  });

  it("returns the principal of a good key, whatever the case of the scheme", async () => {
    for (const header of [`Bearer ${key}`, `bearer ${key}`, `Bearer   ${key}  `]) {
      const principal = await authenticate(db.prisma, request(header));
      expect(principal).toMatchObject({ user: { id: userId, email: "rest@example.com" }, scopes: ["dashboard:read"], scopedProjects: [] });
    }
  });

  it("becomes PostHog's 401 body when the handler's error is turned into a response", async () => {
    const response = toErrorResponse(await rejection(request(`Bearer ${key}x`)));
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({
      type: "authentication_error",
      code: "authentication_failed",
      detail: "Personal API key found in request Authorization header is invalid.",
      attr: null,
    });
  });
});

describe(`authenticate with a browser session (${testDbKind})`, () => {
  let db: Database;
  let cookie: string;
  let userId: number;

  beforeAll(async () => {
    process.env.AUTH_SECRET ??= "test-secret-for-session-cookies-0123456789";
    db = await createTestDatabase();
    const user = await db.prisma.user.create({
      data: { email: "session@example.com", passwordHash: "$argon2id$unused", distinctId: "session-user" },
    });
    userId = user.id;
    const token = await encode({ token: { sub: String(user.id) }, secret: authSecret() });
    cookie = `other=1; next-auth.session-token=${token}`;
  });
  afterAll(async () => {
    await db?.close();
  });

  const sessionRequest = (method: string, headers: Record<string, string> = {}) =>
    new Request("http://localhost:3000/api/projects/1/dashboards/", { method, headers: { cookie, ...headers } });

  it("acts as the signed-in user with every scope on reads", async () => {
    const principal = await authenticate(db.prisma, sessionRequest("GET"));
    expect(principal).toMatchObject({ via: "session", user: { id: userId }, scopes: ["*"], scopedProjects: [] });
  });

  it("accepts writes from its own origin and refuses them without or from another origin (CSRF)", async () => {
    await expect(authenticate(db.prisma, sessionRequest("PATCH", { origin: "http://localhost:3000" }))).resolves.toMatchObject({ via: "session" });
    const foreign: Record<string, string>[] = [{}, { origin: "https://evil.example" }, { referer: "https://evil.example/page" }];
    for (const headers of foreign) {
      const error = await authenticate(db.prisma, sessionRequest("POST", headers)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("permission_denied");
    }
  });

  it("ignores a forged or foreign-secret cookie, and a deactivated user's cookie", async () => {
    const forged = await encode({ token: { sub: String(userId) }, secret: "some-other-secret" });
    const forgedRequest = new Request("http://localhost/x", { headers: { cookie: `next-auth.session-token=${forged}` } });
    expect(((await authenticate(db.prisma, forgedRequest).catch((e: unknown) => e)) as AppError).code).toBe("not_authenticated");
    await db.prisma.user.update({ where: { id: userId }, data: { isActive: false } });
    expect(((await authenticate(db.prisma, sessionRequest("GET")).catch((e: unknown) => e)) as AppError).code).toBe("not_authenticated");
  });
});
