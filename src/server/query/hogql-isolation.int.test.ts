/**
 * The SQL editor's reach (issue 34): HogQLQuery through the query API sees only the caller's
 * project's events, refuses every other table, statement and trick with a 400 (never a 500,
 * never another project's rows), and bounds what a runaway query returns. On every store.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { createCaller } from "@/server/http/trpc/root";
import { clearQueryCache } from "./service";
import { HOGQL_QUERY_LIMITS } from "@/server/hogql-query/contract";

let db: Database;
let projectId: number;
let otherProjectId: number;
let api: ReturnType<typeof createCaller>;

const ROWS = HOGQL_QUERY_LIMITS.maxLimit + 50;

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "sql@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  // Another organization's project, with its own events.
  const stranger = await bootstrap(db.prisma, { email: "stranger@example.com", password: "pw12345678", organization: "Elsewhere" });
  otherProjectId = stranger.project_id;
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "sql@example.com" } });
  api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });
  const at = new Date("2024-05-01T12:00:00Z");
  await db.events.insert([
    { uuid: randomUUID(), projectId, event: "mine", distinctId: "me", properties: { plan: "pro" }, timestamp: at },
    { uuid: randomUUID(), projectId: otherProjectId, event: "secret", distinctId: "them", properties: { token: "s3cret" }, timestamp: at },
  ]);
  // Enough rows that the most a query may return is reached.
  await db.events.insert(Array.from({ length: ROWS }, (_, i) => ({ uuid: randomUUID(), projectId, event: "bulk", distinctId: `u${i}`, properties: {}, timestamp: new Date(at.getTime() + i) })));
  clearQueryCache(db);
}, 180_000);

afterAll(async () => {
  await closeDb();
});

const sql = (query: string, project = projectId) => api.query.run({ projectId: project, request: { query: { kind: "HogQLQuery", query } } });

describe(`the SQL editor's reach (${testStoresName})`, () => {
  it("sees only the project's own events", async () => {
    const answer = await sql("SELECT event, count() FROM events GROUP BY event ORDER BY count() DESC");
    expect(answer.results).toEqual([
      ["bulk", ROWS],
      ["mine", 1],
    ]);
    expect((await sql("SELECT event FROM events WHERE event = 'secret' OR distinct_id = 'them' OR properties.token = 's3cret'")).results).toEqual([]);
  });

  it("cannot name another project", async () => {
    await expect(sql("SELECT event FROM events", otherProjectId)).rejects.toMatchObject({ code: "FORBIDDEN" });
    for (const query of [
      `SELECT event FROM events WHERE project_id = ${otherProjectId}`,
      `SELECT team_id FROM events`,
      `SELECT event FROM events WHERE e.project_id = ${otherProjectId}`,
    ]) {
      await expect(sql(query), query).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("refuses other tables, statements and tricks with a 400", async () => {
    for (const query of [
      "SELECT * FROM system.tables",
      "SELECT name FROM system.users",
      "SELECT usename FROM pg_catalog.pg_user",
      "SELECT email FROM users",
      "SELECT * FROM persons",
      "SELECT event FROM events UNION ALL SELECT name FROM system.tables",
      "SELECT event FROM events; DROP TABLE events",
      "SELECT event FROM events e JOIN persons p ON 1 = 1",
      "SELECT event FROM (SELECT event FROM events)",
      "SELECT event FROM events WHERE event IN (SELECT name FROM system.tables)",
      "SELECT file('/etc/passwd') FROM events",
      "SELECT pg_read_file('/etc/passwd') FROM events",
      "SELECT event FROM url('http://169.254.169.254/')",
      "SELECT event FROM events SETTINGS max_execution_time = 100000",
      "WITH x AS (SELECT 1) SELECT event FROM events",
      "INSERT INTO events VALUES (1)",
    ]) {
      await expect(sql(query), query).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
    // Quotes inside a string stay inside it: the condition is one comparison, matching nothing.
    for (const query of ["SELECT event FROM events WHERE event = 'a'' OR 1 = 1 OR event <> '''", "SELECT event FROM events WHERE event = 'a' -- ' OR 1=1"]) {
      const answer = await sql(query).then(
        (ok) => ok.results,
        (error: { code: string }) => error.code,
      );
      expect([[], "BAD_REQUEST"], query).toContainEqual(answer);
    }
  });

  it("bounds a runaway query: rows at most the limit, deep nesting and huge text refused", async () => {
    const answer = (await sql("SELECT event, distinct_id FROM events LIMIT 100000000")) as { results: unknown[]; hasMore?: boolean; limit?: number };
    expect(answer.results).toHaveLength(HOGQL_QUERY_LIMITS.maxLimit);
    expect(answer).toMatchObject({ hasMore: true, limit: HOGQL_QUERY_LIMITS.maxLimit });
    expect((await sql("SELECT event FROM events")).results).toHaveLength(HOGQL_QUERY_LIMITS.defaultLimit);
    await expect(sql(`SELECT event FROM events WHERE ${"(".repeat(5_000)}event = 'x'${")".repeat(5_000)}`)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(sql(`SELECT event FROM events WHERE event = '${"x".repeat(HOGQL_QUERY_LIMITS.maxQueryLength)}'`)).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
