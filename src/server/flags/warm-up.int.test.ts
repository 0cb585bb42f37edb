/**
 * The server's warm-up of flags (warmFlags): it evaluates visitors never seen, many times, so
 * that /decide's code is optimised before the first request. It must stay bounded and leave
 * nothing behind (no person, no hash-key override, nothing a /decide would later read).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { warmFlags } from "./service";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
const listRoute = restRoute("projects", "feature_flags");

let db: Database;
let projectId: number;
let key: string;

async function createFlag(body: Record<string, unknown>): Promise<void> {
  const response = await (listRoute.POST as Handler)(
    new Request(`http://internal.test/api/projects/${projectId}/feature_flags/`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ project_id: String(projectId) }) },
  );
  expect(response.status, await response.clone().text()).toBe(201);
}

const counts = async () =>
  (
    await db.sql.query<{ persons: number; ids: number; overrides: number }>(
      `SELECT (SELECT count(*)::int FROM persons) AS persons, (SELECT count(*)::int FROM person_distinct_ids) AS ids,
              (SELECT count(*)::int FROM feature_flag_hash_key_overrides) AS overrides`,
    )
  )[0]!;

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "warm-up@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  key = owner.personal_api_key;
});

afterAll(async () => {
  await closeDb();
});

describe(`flags warm-up (${testDbKind})`, () => {
  it("evaluates the project's flags many times within its bound, and stores nothing", async () => {
    await createFlag({ key: "half", filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
    await createFlag({ key: "pro-only", filters: { groups: [{ properties: [{ key: "plan", value: "pro", operator: "exact", type: "person" }], rollout_percentage: 100 }] } });
    await createFlag({ key: "sticky", ensure_experience_continuity: true, filters: { groups: [{ properties: [], rollout_percentage: 30 }] } });
    const before = await counts();
    const started = performance.now();
    await warmFlags(db);
    // 250 ms of evaluations, then the batch under way (and the definitions' load) at most.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await counts()).toEqual(before);
  });
});
