import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";

const { GET: getProject } = restRoute("projects", "");

describe(`management API rate limit (${testDbKind})`, () => {
  let keys: string[];
  let projectId: number;
  beforeAll(async () => {
    process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "3";
    const db = await createTestDatabase();
    registerDb(db);
    const boot = await bootstrap(db.prisma, { email: "busy@example.com", password: "pw12345678" });
    projectId = boot.project_id;
    keys = [boot.personal_api_key, (await createPersonalApiKey(db.prisma, boot.user.id, { scopes: ["project:read"] })).key];
  });
  afterAll(async () => {
    delete process.env.BURROW_API_RATE_LIMIT_PER_MINUTE;
    await closeDb();
  });

  const call = (key: string) =>
    getProject(new Request(`http://localhost/api/projects/${projectId}/`, { headers: { authorization: `Bearer ${key}` } }), {
      params: Promise.resolve({ project_id: String(projectId) }),
    });

  it("answers 429 throttled with Retry-After once a key is over its limit, and counts each key apart", async () => {
    for (let i = 0; i < 3; i++) expect((await call(keys[0]!)).status).toBe(200);
    const throttled = await call(keys[0]!);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await throttled.json()).toEqual({ type: "throttled_error", code: "throttled", detail: expect.stringMatching(/throttled/), attr: null });
    expect((await call(keys[1]!)).status).toBe(200);
  });
});
