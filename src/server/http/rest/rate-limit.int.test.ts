/**
 * The management API's one rate limit (issue 32, 5): REST and tRPC count against the same
 * bucket per key or browser session, a batched tRPC call as its parts, each key apart. Calls
 * go through the real Next route handlers (REST's and /api/trpc's).
 */
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as trpcGet, POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { authOptions } from "@/server/auth/next-auth";
import { authSecret } from "@/server/auth/service";
import { closeDb, registerDb } from "@/server/db";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";

const { GET: getProject } = restRoute("projects", "");
const LIMIT = 3;

describe(`management API rate limit (${testDbKind})`, () => {
  let keys: string[];
  let projectId: number;
  let cookies: string[];
  beforeAll(async () => {
    process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = String(LIMIT);
    const db = await createTestDatabase();
    registerDb(db);
    const boot = await bootstrap(db.prisma, { email: "busy@example.com", password: "pw12345678" });
    projectId = boot.project_id;
    keys = [boot.personal_api_key, (await createPersonalApiKey(db.prisma, boot.user.id, { scopes: ["project:read"] })).key];
    // Two browser sessions of one user (two devices), as next-auth issues them at sign-in.
    const user = await db.prisma.user.findUniqueOrThrow({ where: { id: boot.user.id } });
    cookies = [];
    for (let device = 0; device < 2; device++) {
      const token = await authOptions().callbacks!.jwt!({
        token: { sub: String(user.id), email: user.email },
        user: { id: String(user.id), email: user.email, sessionVersion: user.sessionVersion } as never,
        account: null,
      });
      cookies.push(`next-auth.session-token=${await encode({ token: { ...token, device }, secret: authSecret() })}`);
    }
  });
  afterAll(async () => {
    delete process.env.BURROW_API_RATE_LIMIT_PER_MINUTE;
    await closeDb();
  });

  const rest = (headers: Record<string, string>) =>
    getProject(new Request(`http://localhost/api/projects/${projectId}/`, { headers }), { params: Promise.resolve({ project_id: String(projectId) }) });
  const call = (key: string) => rest({ authorization: `Bearer ${key}` });

  /** A batched tRPC GET of `parts` calls of account.project; the status of each part. */
  async function trpcBatch(cookie: string, parts: number): Promise<number[]> {
    const names = Array.from({ length: parts }, () => "account.project").join(",");
    const input = Object.fromEntries(Array.from({ length: parts }, (_, i) => [String(i), { projectId }]));
    const response = await trpcGet(new Request(`http://localhost/api/trpc/${names}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { cookie } }));
    const body = (await response.json()) as { result?: unknown; error?: { data: { httpStatus: number; code: string } } }[];
    expect(body).toHaveLength(parts);
    return body.map((part) => (part.error ? part.error.data.httpStatus : 200));
  }

  it("answers 429 throttled with Retry-After once a key is over its limit, and counts each key apart", async () => {
    for (let i = 0; i < LIMIT; i++) expect((await call(keys[0]!)).status).toBe(200);
    const throttled = await call(keys[0]!);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await throttled.json()).toEqual({ type: "throttled_error", code: "throttled", detail: expect.stringMatching(/throttled/), attr: null });
    expect((await call(keys[1]!)).status).toBe(200);
  });

  it("counts a batched tRPC call as its parts, against the session's one limit shared with REST", async () => {
    // Before this, tRPC had no limit: every part of any batch ran.
    expect(await trpcBatch(cookies[0]!, LIMIT + 2)).toEqual([...Array(LIMIT).fill(200), 429, 429]);
    // The same user's REST calls by cookie and another device's session share the bucket …
    expect((await rest({ cookie: cookies[0]! })).status).toBe(429);
    expect(await trpcBatch(cookies[1]!, 1)).toEqual([429]);
    // … keys do not: key 1 still has tokens left.
    expect((await call(keys[1]!)).status).toBe(200);
  });

  it("a mutation over the limit is refused before it runs, with tRPC's TOO_MANY_REQUESTS", async () => {
    const response = await trpcPost(
      new Request("http://localhost/api/trpc/account.createPersonalApiKey", {
        method: "POST",
        headers: { cookie: cookies[0]!, origin: "http://localhost", "content-type": "application/json" },
        body: JSON.stringify({ label: "over the limit", scopes: ["project:read"] }),
      }),
    );
    expect(response.status).toBe(429);
    expect(((await response.json()) as { error: { data: { code: string } } }).error.data.code).toBe("TOO_MANY_REQUESTS");
  });
});
