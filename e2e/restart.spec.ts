/**
 * Restarting the server on the embedded database right after it was killed, as an operator
 * (or a supervisor) does after a crash: `kill -9` of the server's process group, then start
 * again at once. The DATA_DIR lock must be free by then, and nothing acknowledged may be lost.
 * Also: what the server leaves in DATA_DIR is private to its owner.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { createDeployment, storedEvents, type Deployment } from "./support/burrow";
import { startServer, type RunningServer } from "./support/server";
import { openToOthers } from "@/test-support/open-to-others";

const RESTARTS = 20;
const EVENTS_PER_RUN = 3;

test.describe.configure({ mode: "serial" });

function processState(pid: number): string | null {
  try {
    return /\) (\S)/.exec(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))![1]!;
  } catch {
    return null;
  }
}

test.describe("kill -9 and restart at once, on the embedded database", () => {
  let deployment: Deployment;
  let server: RunningServer | undefined;

  test.beforeAll(async () => {
    deployment = await createDeployment("embedded");
  });
  test.afterAll(async () => {
    await server?.stop().catch(() => {});
    await deployment?.dispose();
  });

  test(`${RESTARTS} restarts at once after kill -9 each answer /_ready, and keep every acknowledged event`, async () => {
    test.setTimeout(900_000);
    const start = (startWhen?: Promise<void>) => startServer(deployment.env, { processGroup: true, startWhen });
    const acknowledged: string[] = [];
    const stillZombies: number[] = [];
    const listeningAfter: number[] = [];
    server = await start();
    for (let run = 1; run <= RESTARTS + 1; run++) {
      const ready = await fetch(`${server.url}/_ready`);
      expect(ready.status, `start ${run}: /_ready\n${server.output()}`).toBe(200);
      if (run > RESTARTS) break;

      const batch = Array.from({ length: EVENTS_PER_RUN }, (_, i) => ({ uuid: randomUUID(), event: "before the kill", distinct_id: `restart-${run}`, properties: { run, i } }));
      const posted = await fetch(`${server.url}/batch/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ api_key: deployment.projectKey, batch }),
      });
      expect(await posted.text()).toBe('{"status":1}');
      acknowledged.push(...batch.map((e) => e.uuid));

      const killedPid = Number(fs.readFileSync(path.join(deployment.dataDir, "burrow.lock"), "utf8"));
      // The next server's shell is forked before the kill and starts node on a line to its stdin:
      // a fork of this (large) process alone can take 100 ms on a loaded machine.
      let killed!: () => void;
      const starting = start(new Promise<void>((resolve) => (killed = resolve)));
      process.kill(-server.process.pid!, "SIGKILL");
      const killedAt = performance.now();
      killed();
      server = await starting;
      listeningAfter.push(performance.now() - killedAt);
      // Not needed for the test to pass; it says whether the case that used to fail happened.
      if (processState(killedPid) === "Z") stillZombies.push(killedPid);
    }
    test.info().annotations.push({
      type: "restarts",
      description: `next server listening ${Math.round(Math.min(...listeningAfter))}–${Math.round(Math.max(...listeningAfter))} ms after the kill; ${stillZombies.length} of ${RESTARTS} killed servers were still zombies when their successor was listening`,
    });

    expect(openToOthers(deployment.dataDir), "entries of DATA_DIR open to group or others").toEqual([]);

    const listed = await fetch(`${server.url}/api/projects/${deployment.projectId}/events/?limit=1000&event=before%20the%20kill`, {
      headers: { authorization: `Bearer ${deployment.personalKey}` },
    });
    expect(listed.status).toBe(200);
    const ids = ((await listed.json()) as { results: { id: string }[] }).results.map((e) => e.id);
    expect(ids.sort()).toEqual([...acknowledged].sort());
    expect(ids).toHaveLength(RESTARTS * EVENTS_PER_RUN);

    await server.stop();
    server = undefined;
    const stored = await deployment.read((query) => storedEvents(query, deployment.projectId));
    expect(stored.map((e) => e.uuid).sort()).toEqual([...acknowledged].sort());
  });
});
