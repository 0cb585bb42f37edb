/**
 * Inputs at the edge of what a route can serve answer a clear 400, never a 500 or a quiet 200
 * (issue 32's low findings): a HogQL SELECT of more columns than PostgreSQL can return, a
 * web analytics table paged past its bound, a NUL escaped inside the persons list's
 * `properties` JSON. Through the real route handlers with a personal API key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { createCaller } from "@/server/http/trpc/root";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

let db: Database;
let projectId: number;
let key: string;
let owner: Awaited<ReturnType<typeof bootstrap>>;

async function call(method: "GET" | "POST", pattern: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const handler = restRoute("projects", pattern)[method] as Handler;
  const request = new Request(`http://internal.test/api/projects/${projectId}/${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const response = await handler(request, { params: Promise.resolve({ project_id: String(projectId) }) });
  return { status: response.status, body: await response.json() };
}
const query = (node: unknown) => call("POST", "query", "query/", { query: node, refresh: true });

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  owner = await bootstrap(db.prisma, { email: "bounds@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  key = owner.personal_api_key;
  await db.events.insert([{ uuid: "0190f1c2-0000-7000-8000-0000000b0001", projectId, event: "$pageview", distinctId: "d1", properties: { $current_url: "https://example.com/" }, timestamp: new Date() }]);
});

afterAll(async () => {
  await closeDb();
});

describe(`clear 400s at the bounds (${testStoresName})`, () => {
  it("a HogQL SELECT of 1,665 columns is a 400 naming the limit (was a 500 from PostgreSQL's 1,664); 1,000 run", async () => {
    const columns = (n: number) => Array.from({ length: n }, (_, i) => `event AS c${i}`).join(", ");
    const tooMany = await query({ kind: "HogQLQuery", query: `SELECT ${columns(1_665)} FROM events` });
    expect(tooMany.status).toBe(400);
    // A query the HogQL parser refuses is PostHog's parse error (invalid_request), as every other one.
    expect(tooMany.body).toMatchObject({ type: "invalid_request", detail: expect.stringContaining("SELECT may name at most 1000 columns, not 1665") });
    const most = await query({ kind: "HogQLQuery", query: `SELECT ${columns(1_000)} FROM events` });
    expect(most.status, JSON.stringify(most.body).slice(0, 300)).toBe(200);
    expect(most.body.results[0]).toHaveLength(1_000);
  });

  it("a web analytics table's offset of 2³¹−1 is a 400 naming the bound, not 'must be a number'", async () => {
    const table = (offset: unknown) => query({ kind: "WebStatsTableQuery", breakdownBy: "Page", properties: [], dateRange: { date_from: "-7d" }, offset });
    const far = await table(2 ** 31 - 1);
    expect(far.status).toBe(400);
    expect(far.body.detail).toContain("offset must be at most 1,000,000");
    expect(far.body.detail).not.toContain("must be a number");
    expect((await table("ten")).body.detail).toContain("offset must be a number");
    expect((await table(1_000_000)).status).toBe(200);
  });

  it("a NUL escaped inside the persons list's properties JSON is a 400 naming properties, over REST and tRPC", async () => {
    const properties = (value: string) => JSON.stringify([{ key: "plan", value, operator: "exact", type: "person" }]);
    const list = (value: string) => call("GET", "persons", `persons/?properties=${encodeURIComponent(properties(value))}`);
    const nul = await list("p\u0000ro");
    expect(nul).toEqual({ status: 400, body: { type: "validation_error", code: "invalid_input", detail: "Null characters are not allowed.", attr: "properties" } });
    // A key holding it too; a backslash followed by "u0000" is text, not a NUL.
    const inKey = await call("GET", "persons", `persons/?properties=${encodeURIComponent(JSON.stringify([{ key: "pl\u0000an", value: "pro", type: "person" }]))}`);
    expect(inKey.status).toBe(400);
    expect((await list("\\u0000")).status).toBe(200);
    expect((await list("pro")).status).toBe(200);
    const trpc = createCaller({ db, headers: new Headers(), user: { id: owner.user.id, uuid: owner.user.uuid, email: owner.user.email, firstName: "", currentProjectId: projectId } });
    await expect(trpc.persons.list({ projectId, properties: properties("p\u0000ro") })).rejects.toMatchObject({ code: "BAD_REQUEST", message: "Null characters are not allowed." });
  });
});
