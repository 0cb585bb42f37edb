/**
 * Shared by the injection tests (injection*.int.test.ts): a corpus of hostile text, a
 * project whose events carry that text as event name, distinct id, property key and value,
 * and request helpers that call the real route handlers.
 */
import { expect } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { parseListQuery } from "@/server/http/rest/resources/events-query";
import { personsByUuid } from "@/server/events/store";
import { restRoute } from "@/test-support/rest-routes";

const eventRoute = restRoute("projects", "events/:id");
const listRoute = restRoute("projects", "events");
const valuesRoute = restRoute("projects", "events/values");

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

export const CORPUS = [
  "'",
  "''",
  '"',
  "`",
  "'; DROP TABLE events; --",
  "x'); DELETE FROM events; --",
  "1' OR '1'='1",
  '" OR ""="',
  ") OR TRUE --",
  "-- comment",
  "/* comment */",
  "*/ SELECT 1 /*",
  ";",
  "; SELECT pg_sleep(1);",
  "\\",
  "\\'",
  "\\\\'; --",
  "$1",
  "$$",
  "$tag$ SELECT 1 $tag$",
  "%",
  "_",
  "%' AND '%'='",
  "e.properties ->> 'x'",
  "::text",
  "?",
  "NULL",
  "null",
  "ünïcödé",
  "😀 emoji",
  "\u202eright-to-left",
  "\u0000",
  "a\u0000b",
  "\ufffd",
  "line\nbreak\r\n",
  "x".repeat(200),
];

export interface StoredEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  person: Record<string, unknown> | null;
}

export interface Answer {
  status: number;
  /** Parsed JSON (or the text of a CSV), read loosely by the assertions. */
  body: any;
}

export interface InjectionFixture {
  db: Database;
  stored: StoredEvent[];
  list(query: Record<string, string>): Promise<Answer>;
  values(query: Record<string, string>): Promise<Answer>;
  event(id: string): Promise<Answer>;
  /** Row counts and a digest of every event: equal before and after means nothing was changed. */
  snapshot(): Promise<unknown>;
  close(): Promise<void>;
}

/** Every stored event of the project, through the event store. */
async function allEvents(db: Database, projectId: number) {
  const now = new Date();
  return db.events.list(projectId, parseListQuery(new URL("http://burrow.test/?limit=1000"), null, now), { limit: 1000, offset: 0, cursor: null, now });
}

/** A database with one event per corpus entry (NUL is stored as U+FFFD, as ingestion does). */
export async function injectionFixture(): Promise<InjectionFixture> {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  const db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "injection@example.com", password: "pw12345678" });
  const projectId = owner.project_id;
  await sendBatch(
    owner.project_api_key,
    CORPUS.map((text, i) => ({
      event: text,
      distinct_id: text,
      timestamp: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
      // Each event's distinct id is its own person, with the text as a person property too.
      properties: { [text]: text, label: text, n: i, $set: { [text]: text } },
    })),
  );
  // Read through the event store (PostgreSQL or ClickHouse), persons from PostgreSQL.
  const storedRows = await allEvents(db, projectId);
  const persons = await personsByUuid(db.sql, projectId, storedRows.map((row) => row.person_id));
  const stored: StoredEvent[] = storedRows.map((row) => ({
    uuid: row.uuid,
    event: row.event,
    distinct_id: row.distinct_id,
    properties: row.properties,
    person: row.person_id === null ? null : (persons.get(row.person_id)?.properties ?? null),
  }));
  expect(stored).toHaveLength(CORPUS.length);

  async function call(handler: Handler, path: string, params: Record<string, string>): Promise<Answer> {
    const request = new Request(`http://internal.test${path}`, { headers: { authorization: `Bearer ${owner.personal_api_key}` } });
    const answer = await handler(request, { params: Promise.resolve(params) });
    const text = await answer.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // CSV
    }
    return { status: answer.status, body };
  }
  const search = (query: Record<string, string>) => new URLSearchParams(query).toString();
  const project = { project_id: String(projectId) };
  return {
    db,
    stored,
    list: (query) => call(listRoute.GET as Handler, `/api/projects/${projectId}/events/?${search(query)}`, project),
    values: (query) => call(valuesRoute.GET as Handler, `/api/projects/${projectId}/events/values/?${search(query)}`, project),
    event: (id) => call(eventRoute.GET as Handler, `/api/projects/${projectId}/events/${encodeURIComponent(id)}/`, { ...project, id }),
    snapshot: async () => ({
      events: (await allEvents(db, projectId)).sort((a, b) => a.uuid.localeCompare(b.uuid)),
      rest: await db.sql.query(
        `SELECT (SELECT count(*)::int FROM persons) AS persons,
                (SELECT md5(string_agg(id::text || properties::text, ',' ORDER BY id)) FROM persons) AS persons_digest,
                (SELECT count(*)::int FROM person_distinct_ids) AS distinct_ids,
                (SELECT count(*)::int FROM projects) AS projects,
                (SELECT count(*)::int FROM users) AS users`,
      ),
    }),
    async close() {
      delete process.env.BURROW_API_RATE_LIMIT_PER_MINUTE;
      await closeDb();
    },
  };
}

/** A 400 with PostHog's validation body, or a 200 — never anything else. */
export function expectHandled(answer: Answer, label: string): void {
  expect([200, 400], `${label}: ${JSON.stringify(answer.body).slice(0, 300)}`).toContain(answer.status);
  if (answer.status === 400) expect(answer.body, label).toMatchObject({ type: "validation_error", code: "invalid_input", attr: expect.any(String) });
}

/** A 400, or a 200 listing exactly `expected`. */
export function expectEvents(answer: Answer, expected: StoredEvent[], label: string): void {
  expectHandled(answer, label);
  if (answer.status !== 200) return;
  const got = answer.body.results.map((e: { id: string }) => e.id).sort();
  expect(got, label).toEqual(expected.map((e) => e.uuid).sort());
}
