/**
 * At least once across a crash: events acknowledged while the receiver is down wait in the
 * outbox (written in the events' own transaction); the server is killed with `kill -9` right
 * after the last acknowledgement and started again, and every matching event is delivered
 * once the receiver is back — and nothing that did not match.
 */
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { createDeployment, DATABASE_KINDS, type Deployment } from "./support/burrow";
import { startServer, type RunningServer } from "./support/server";
import { startSink, type Sink } from "./support/sink";

const BATCHES = 10;

for (const kind of DATABASE_KINDS) {
  test.describe(`destinations survive kill -9 (${kind})`, () => {
    let deployment: Deployment;
    let server: RunningServer | undefined;
    let sink: Sink;

    test.beforeAll(async () => {
      // The admin CLI and a first start on a busy machine.
      test.setTimeout(240_000);
      deployment = await createDeployment(kind);
      sink = await startSink();
    });
    test.afterAll(async () => {
      await server?.stop().catch(() => {});
      await sink?.close();
      await deployment?.dispose();
    });

    test("every acknowledged matching event is delivered after kill -9 and a restart", async () => {
      test.setTimeout(240_000);
      const env = { ...deployment.env, BURROW_OUTBOUND_ALLOWLIST: "127.0.0.1", BURROW_DESTINATION_BACKOFF_MS: "200" };
      server = await startServer(env, { processGroup: true });
      const created = await fetch(`${server.url}/api/projects/${deployment.projectId}/hog_functions/`, {
        method: "POST",
        headers: { authorization: `Bearer ${deployment.personalKey}`, "content-type": "application/json" },
        body: JSON.stringify({
          type: "destination",
          name: "crash sink",
          enabled: true,
          template_id: "template-webhook",
          inputs: { url: { value: `${sink.url}/hook` }, body: { value: { uuid: "{event.uuid}", event: "{event.event}" } } },
          filters: { events: [{ id: "paid", type: "events" }] },
        }),
      });
      expect(created.status, await created.clone().text()).toBe(201);

      // The receiver is down while the events arrive: they can only be waiting in the outbox.
      sink.answer = () => 503;
      const matching: string[] = [];
      for (let i = 0; i < BATCHES; i++) {
        const batch = [
          { uuid: randomUUID(), event: "paid", distinct_id: `buyer-${i}`, properties: { i } },
          { uuid: randomUUID(), event: "paid", distinct_id: `buyer-${i}`, properties: { i, second: true } },
          { uuid: randomUUID(), event: "$pageview", distinct_id: `buyer-${i}`, properties: { i } },
        ];
        const posted = await fetch(`${server.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: deployment.projectKey, batch }) });
        expect(await posted.text()).toBe('{"status":1}');
        matching.push(batch[0]!.uuid, batch[1]!.uuid);
      }
      // Right after the last acknowledgement.
      process.kill(-server.process.pid!, "SIGKILL");
      sink.answer = () => 200;
      server = await startServer(env, { processGroup: true });

      const delivered = () => new Set(sink.requests.filter((r) => r.status === 200).map((r) => (JSON.parse(r.body) as { uuid: string }).uuid));
      await expect.poll(() => matching.filter((uuid) => !delivered().has(uuid)).length, { timeout: 120_000, intervals: [250] }).toBe(0);
      const events = new Set(sink.requests.map((r) => (JSON.parse(r.body) as { event: string }).event));
      expect([...events]).toEqual(["paid"]);
      test.info().annotations.push({ type: "deliveries", description: `${matching.length} events, ${sink.requests.length} requests (${sink.requests.filter((r) => r.status === 200).length} answered 200)` });
    });
  });
}
