/**
 * The crash test: batches arrive concurrently, the server is killed with SIGKILL in the
 * middle of the stream, and restarted on the same data. Every event whose request got a
 * 200 is stored exactly once; no event is stored twice; a request that was not
 * acknowledged is stored entirely or not at all; and retrying the unacknowledged requests
 * after the restart (as the SDKs do, with the same uuids) stores each event once. Each
 * sender's page views are one session: its row counts exactly the stored page views (the
 * session deltas written with the events are merged after the restart).
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { DATABASE_KINDS, createDeployment, waitFor, type Deployment, type Query } from "./support/burrow";

const SENDERS = 8;
const EVENTS_PER_BATCH = 50;
const DISTINCT_IDS_PER_SENDER = 5;

interface SentBatch {
  uuids: string[];
  body: string;
  /** HTTP status, or "error" when the connection failed (the server died). */
  outcome: number | "error" | "pending";
}

function newBatch(projectKey: string, sender: number, seq: number): SentBatch {
  const now = new Date().toISOString();
  const batch = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => ({
    uuid: randomUUID(),
    event: i % 2 === 0 ? "$pageview" : "fault test",
    distinct_id: `fault-${sender}-${i % DISTINCT_IDS_PER_SENDER}`,
    timestamp: now,
    // One person update per distinct id and batch; the rest are plain events.
    properties: { sender, seq, i, $session_id: `fault-session-${sender}`, $current_url: `https://fault.example/${seq}`, ...(i < DISTINCT_IDS_PER_SENDER ? { $set: { last_seq: seq } } : {}) },
  }));
  return { uuids: batch.map((e) => e.uuid), body: JSON.stringify({ api_key: projectKey, batch, sent_at: now }), outcome: "pending" };
}

async function post(url: string, batch: SentBatch): Promise<number> {
  const response = await fetch(`${url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: batch.body });
  const text = await response.text();
  if (response.status === 200) expect(JSON.parse(text)).toEqual({ status: 1 });
  return response.status;
}

/** How often each uuid is stored, plus the person invariants every crash must keep. */
async function readState(deployment: Deployment) {
  return deployment.read(async (query: Query) => ({
    counts: new Map(
      (
        await query<{ uuid: string; n: number }>(`SELECT uuid::text AS uuid, count(*)::int AS n FROM events WHERE project_id = $1 GROUP BY uuid`, [
          deployment.projectId,
        ])
      ).map((row) => [row.uuid, row.n]),
    ),
    withoutPerson: await query(`SELECT e.uuid FROM events e LEFT JOIN persons p ON p.uuid = e.person_id WHERE e.project_id = $1 AND p.id IS NULL`, [
      deployment.projectId,
    ]),
    splitDistinctIds: await query(
      `SELECT distinct_id FROM events WHERE project_id = $1 GROUP BY distinct_id HAVING count(DISTINCT person_id) > 1`,
      [deployment.projectId],
    ),
    // Sessions whose page views differ from the stored events' (none once the deltas are merged).
    miscountedSessions: await query(
      `SELECT e.sid, e.n, s.pageview_count FROM (SELECT properties->>'$session_id' AS sid, count(*)::int AS n FROM events WHERE project_id = $1 AND event = '$pageview' GROUP BY 1) e
         LEFT JOIN sessions s ON s.project_id = $1 AND s.session_id = e.sid WHERE s.pageview_count IS DISTINCT FROM e.n`,
      [deployment.projectId],
    ),
  }));
}

/** A read of sessions through the API, which merges the session deltas first. */
async function readWebOverview(url: string, deployment: Deployment): Promise<void> {
  const response = await fetch(`${url}/api/projects/${deployment.projectId}/query/`, {
    method: "POST",
    headers: { authorization: `Bearer ${deployment.personalKey}`, "content-type": "application/json" },
    body: JSON.stringify({ query: { kind: "WebOverviewQuery", dateRange: { date_from: "-1d" }, properties: [] }, refresh: true }),
  });
  expect(response.status, await response.text()).toBe(200);
}

for (const kind of DATABASE_KINDS) {
  test.describe(`a server killed mid-stream on the ${kind} database`, () => {
    test("loses no acknowledged event, stores none twice, and takes retries idempotently", async () => {
      test.setTimeout(90_000);
      const deployment = await createDeployment(kind);
      const cleanup: Array<() => void> = [];
      try {
        const server = await deployment.start();
        cleanup.push(() => server.process.kill("SIGKILL"));
        const sent: SentBatch[] = [];
        const sender = async (id: number) => {
          for (let seq = 0; ; seq++) {
            const batch = newBatch(deployment.projectKey, id, seq);
            sent.push(batch);
            let status: number;
            try {
              status = await post(server.url, batch);
            } catch (error) {
              if (!(error instanceof TypeError)) throw error; // an assertion, not the connection
              batch.outcome = "error";
              return; // the server is gone
            }
            batch.outcome = status;
          }
        };
        const startedAt = Date.now();
        const senders = Promise.all(Array.from({ length: SENDERS }, (_, id) => sender(id)));
        senders.catch(() => {}); // awaited (and rethrown) below
        // Mid-stream: after two seconds of traffic, once every sender has had batches acknowledged.
        await waitFor(
          "two seconds of acknowledged traffic",
          () => (Date.now() - startedAt >= 2_000 && sent.filter((b) => b.outcome === 200).length >= 3 * SENDERS ? true : undefined),
          30_000,
        );
        const exited = new Promise((resolve) => server.process.once("exit", (_code, signal) => resolve(signal)));
        server.process.kill("SIGKILL");
        expect(await exited).toBe("SIGKILL");
        const killedAfter = Date.now() - startedAt;
        await senders;

        const acknowledged = sent.filter((b) => b.outcome === 200);
        const unacknowledged = sent.filter((b) => b.outcome !== 200);
        // Only 200s before the kill and connection errors after it: no 4xx/5xx under load.
        expect(sent.filter((b) => b.outcome !== 200 && b.outcome !== "error").map((b) => b.outcome)).toEqual([]);
        expect(acknowledged.length).toBeGreaterThanOrEqual(3 * SENDERS);
        expect(unacknowledged.length).toBeGreaterThanOrEqual(1);
        if (kind === "embedded") expect(fs.existsSync(path.join(deployment.dataDir, "burrow.lock"))).toBe(true);

        // Restart on the same data: the dead process's lock is taken over and the data is intact.
        const restarted = await deployment.start();
        expect((await fetch(`${restarted.url}/_ready`)).status).toBe(200);
        await readWebOverview(restarted.url, deployment);
        expect(await restarted.stop()).toBe(0);

        const afterCrash = await readState(deployment);
        const sentUuids = new Set(sent.flatMap((b) => b.uuids));
        expect([...afterCrash.counts].filter(([, n]) => n !== 1)).toEqual([]);
        expect([...afterCrash.counts.keys()].filter((uuid) => !sentUuids.has(uuid))).toEqual([]);
        const lost = acknowledged.flatMap((b) => b.uuids).filter((uuid) => afterCrash.counts.get(uuid) !== 1);
        expect(lost, `${lost.length} acknowledged events lost`).toEqual([]);
        const storedOfUnacknowledged = unacknowledged.map((b) => b.uuids.filter((uuid) => afterCrash.counts.has(uuid)).length);
        for (const n of storedOfUnacknowledged) expect([0, EVENTS_PER_BATCH]).toContain(n);
        expect(afterCrash.withoutPerson).toEqual([]);
        expect(afterCrash.splitDistinctIds).toEqual([]);
        expect(afterCrash.miscountedSessions).toEqual([]);

        // The clients retry what was not acknowledged (same bodies, same uuids), and go on.
        const again = await deployment.start();
        try {
          const fresh = newBatch(deployment.projectKey, SENDERS, 0);
          sent.push(fresh);
          for (const batch of [...unacknowledged, fresh]) expect(await post(again.url, batch)).toBe(200);
          await readWebOverview(again.url, deployment);
        } finally {
          expect(await again.stop()).toBe(0);
        }
        const afterRetry = await readState(deployment);
        const allUuids = sent.flatMap((b) => b.uuids);
        expect(afterRetry.counts.size).toBe(allUuids.length);
        expect(allUuids.filter((uuid) => afterRetry.counts.get(uuid) !== 1)).toEqual([]);
        expect(afterRetry.withoutPerson).toEqual([]);
        expect(afterRetry.splitDistinctIds).toEqual([]);
        expect(afterRetry.miscountedSessions).toEqual([]);

        console.log(
          `fault (${kind}): SIGKILL after ${killedAfter} ms with ${acknowledged.length} batches acknowledged and ` +
            `${unacknowledged.length} in flight (${storedOfUnacknowledged.filter((n) => n > 0).length} of those stored whole); ` +
            `${afterCrash.counts.size} events after the crash, ${afterRetry.counts.size} after the retries`,
        );
      } finally {
        for (const step of cleanup) step();
        await deployment.dispose();
      }
    });
  });
}
