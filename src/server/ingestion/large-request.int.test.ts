/**
 * A large request shares the server's thread: while one `/batch/` of 30,000 events is
 * validated, resolved to persons and written (on PGlite every query runs in this thread
 * too), timers — and so other requests — keep getting turns. Before, the whole request ran
 * as one chain of microtasks and nothing else ran until it was stored.
 * e2e/big-batch.spec.ts checks the same on the built server with 100,000 events.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { decodeRequest } from "@/server/http/body/decode";
import { createIngestionServices, ingestDecoded } from "./service";

const EVENTS = 30_000;

let db: Database;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  key = (await bootstrap(db.prisma, { email: "large@example.com", password: "pw12345678" })).project_api_key;
});

afterAll(async () => {
  await db.close();
});

describe(`one large request (${testDbKind})`, () => {
  it("lets timers run while its events are ingested, and stores them all", async () => {
    const now = new Date().toISOString();
    const batch = Array.from({ length: EVENTS }, (_, i) => ({ uuid: randomUUID(), event: "large", distinct_id: `large-${i % 300}`, timestamp: now, properties: { i } }));
    const body = new TextEncoder().encode(JSON.stringify({ api_key: key, batch }));
    const decoded = await decodeRequest("POST", new URL("http://burrow.test/batch/"), new Headers({ "content-type": "application/json" }), body);

    let ticks = 0;
    let last = performance.now();
    let longestGap = 0;
    const timer = setInterval(() => {
      const at = performance.now();
      longestGap = Math.max(longestGap, at - last);
      last = at;
      ticks++;
    }, 5);
    const started = performance.now();
    try {
      const result = await ingestDecoded(createIngestionServices(db), decoded, { path: "batch", ip: null, now: new Date() });
      expect(result).toEqual({ stored: EVENTS, dropped: [] });
    } finally {
      clearInterval(timer);
    }
    const took = performance.now() - started;
    // Relative to the request's own duration, so a slow machine does not decide the outcome.
    expect(ticks, `${ticks} timer turns in ${Math.round(took)} ms`).toBeGreaterThanOrEqual(10);
    expect(longestGap, `longest wait ${Math.round(longestGap)} ms of ${Math.round(took)} ms`).toBeLessThan(took / 4);

    const [row] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE event = 'large'`);
    expect(row!.n).toBe(EVENTS);
  }, 120_000);
});
