/**
 * One very large `/batch/` must not freeze the server: while 100,000 events of one request
 * are validated, resolved to persons and written, every other request (here `/_health`,
 * polled every 100 ms) is still answered within a second. The batch is then acknowledged
 * (200 `{"status": 1}`) with all 100,000 events stored once. On the embedded database
 * (PGlite runs in the server's own thread) and on PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { DATABASE_KINDS, createDeployment, type Deployment } from "./support/burrow";
import type { RunningServer } from "./support/server";

const EVENTS = 100_000;
/** Small events from many users, as an SDK or an import sends them. */
const DISTINCT_IDS = 1_000;
const HEALTH_EVERY_MS = 100;
const SLOWEST_HEALTH_MS = 1_000;

function bigBatch(projectKey: string): Uint8Array<ArrayBuffer> {
  const now = new Date().toISOString();
  const batch = Array.from({ length: EVENTS }, (_, i) => ({
    uuid: randomUUID(),
    event: "big batch",
    distinct_id: `big-${i % DISTINCT_IDS}`,
    timestamp: now,
    properties: { i },
  }));
  return new Uint8Array(gzipSync(JSON.stringify({ api_key: projectKey, batch, sent_at: now })));
}

/** Polls `/_health` every 100 ms until `stop` settles; returns each answer's time in ms. */
async function pollHealth(url: string, stop: Promise<unknown>): Promise<number[]> {
  let stopped = false;
  void stop.finally(() => (stopped = true));
  const times: number[] = [];
  while (!stopped) {
    const started = performance.now();
    const response = await fetch(`${url}/_health`);
    await response.text();
    expect(response.status).toBe(200);
    const took = performance.now() - started;
    times.push(took);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, HEALTH_EVERY_MS - took)));
  }
  return times;
}

for (const kind of DATABASE_KINDS) {
  test.describe(`one /batch/ of ${EVENTS.toLocaleString("en")} events (${kind})`, () => {
    test.describe.configure({ timeout: 300_000 });
    let deployment: Deployment;
    let server: RunningServer | null = null;

    test.beforeAll(async () => {
      deployment = await createDeployment(kind);
    });

    test.afterAll(async () => {
      await server?.stop();
      await deployment?.dispose();
    });

    test("keeps answering other requests within a second, then acknowledges all of it", async () => {
      server = await deployment.start();
      const body = bigBatch(deployment.projectKey);
      const started = performance.now();
      const posted = fetch(`${server.url}/batch/`, { method: "POST", headers: { "content-type": "application/json", "content-encoding": "gzip" }, body });
      const health = await pollHealth(server.url, posted);
      const response = await posted;
      const took = performance.now() - started;
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 1 });

      const slowest = Math.max(...health);
      console.log(`${kind}: batch of ${EVENTS} took ${Math.round(took)} ms; ${health.length} health answers, slowest ${Math.round(slowest)} ms`);
      // The batch took long enough for the polling to mean something.
      expect(health.length).toBeGreaterThanOrEqual(5);
      expect(slowest).toBeLessThan(SLOWEST_HEALTH_MS);

      await server.stop();
      server = null;
      const stored = await deployment.read((query) =>
        query<{ n: number; uuids: number }>(`SELECT count(*)::int AS n, count(DISTINCT uuid)::int AS uuids FROM events WHERE project_id = $1`, [deployment.projectId]),
      );
      expect(stored[0]).toEqual({ n: EVENTS, uuids: EVENTS });
    });
  });
}
