/**
 * Destinations end to end on a real database: the REST API (PostHog's hog-function fields,
 * the outbound check, sealed and masked secrets, 405 on DELETE), capture through the real
 * /batch/ handler writing an outbox batch only for matching events, and the worker fanning it out and delivering
 * to a real HTTP sink on loopback: 500, 500, then 200 delivers exactly once; a dead receiver
 * ends failed and opens the circuit; a hanging one does not slow capture.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testEventStoreKind } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";
import { reloadRoutes } from "./routing";
import { claimOutbox, fanOutBatches, pruneDeliveries } from "./store";
import type { DeliveryOptions } from "./options";
import { startDestinationWorker, stopDestinationWorker } from "./worker";

let db: Database;
let projectId: number;
let apiKey: string;
let token: string;
let sink: http.Server;
let port = 0;
const list = restRoute("projects", "hog_functions");
const one = restRoute("projects", "hog_functions/:id");
const logs = restRoute("projects", "hog_functions/:id/logs");
const deliveries = restRoute("projects", "hog_functions/:id/deliveries");
const totals = restRoute("projects", "hog_functions/:id/metrics/totals");

interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
/** Answers per path, in order; then 200. */
const script = new Map<string, number[]>();

const call = projectApiCaller(() => ({ projectId, apiKey }));

const create = (body: unknown) => call(list.POST, "POST", "hog_functions/", {}, body);
const webhook = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
  type: "destination",
  name,
  enabled: true,
  template_id: "template-webhook",
  inputs: { url: { value: url }, method: { value: "POST" }, ...((extra.inputs as object) ?? {}) },
  filters: extra.filters ?? {},
});

async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const outboxOf = async (id: string) => (await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM hog_function_outbox WHERE hog_function_id = $1::uuid`, [id]))[0]!.n;

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "destinations@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  token = owner.project_api_key;
  sink = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (path.startsWith("/hang")) return; // never answers
      const next = script.get(path)?.shift() ?? 200;
      res.writeHead(next, { "content-type": "text/plain" }).end(next >= 300 ? "receiver broke" : "ok");
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  port = (sink.address() as AddressInfo).port;
  process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
  startWorker();
});

afterAll(async () => {
  await stopDestinationWorker();
  sink.closeAllConnections();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  delete process.env.BURROW_OUTBOUND_ALLOWLIST;
  await closeDb();
});
/** Fast retries and a high rate limit, so that the tests wait for little. */
const startWorker = (options: Partial<DeliveryOptions> = {}) =>
  startDestinationWorker(db, { backoffMs: 30, pollMs: 50, maxAttempts: 4, breakerFailures: 6, breakerOpenMs: 60_000, timeoutMs: 1_000, ratePerSecond: 1000, ...options });

/** `work` with the worker stopped (so that what it looks at stays put), the worker started again after it. */
async function withWorkerStopped(work: () => Promise<void>): Promise<void> {
  await stopDestinationWorker();
  try {
    await work();
  } finally {
    startWorker();
  }
}


describe("destinations API", () => {
  it("refuses URLs reaching loopback or private addresses unless allowlisted", async () => {
    delete process.env.BURROW_OUTBOUND_ALLOWLIST;
    for (const url of [`http://127.0.0.1:${port}/`, "http://2130706433/", "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/latest", "http://localhost:9/", "file:///etc/passwd"]) {
      const response = await create(webhook("blocked", url));
      expect(response.status, url).toBe(400);
      expect(response.body.attr).toBe("inputs__url");
    }
    process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
    expect((await create(webhook("allowed", `http://127.0.0.1:${port}/ok`, { filters: { events: [{ id: "nothing-sends-this" }] } }))).status).toBe(201);
  });

  it("stores credentials sealed and never returns them in full; a masked value sent back keeps the secret", async () => {
    const created = await create(
      webhook("secret", `http://127.0.0.1:${port}/secret`, {
        inputs: { headers: { value: { Authorization: "Bearer sk_live_0123456789abcdef", "X-Plain": "visible" } } },
        filters: { events: [{ id: "never" }] },
      }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.inputs.headers.value).toEqual({ Authorization: "••••cdef", "X-Plain": "visible" });
    expect(JSON.stringify(created.body)).not.toContain("sk_live");
    const [stored] = await db.sql.query<{ inputs: string }>(`SELECT inputs::text FROM hog_functions WHERE id = $1::uuid`, [created.body.id]);
    expect(stored!.inputs).not.toContain("sk_live");
    expect(stored!.inputs).toContain("enc:v1:");
    const patched = await call(one.PATCH, "PATCH", `hog_functions/${created.body.id}/`, { id: created.body.id }, {
      inputs: { url: { value: `http://127.0.0.1:${port}/secret` }, headers: { value: { Authorization: "••••cdef" } } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.inputs.headers.value.Authorization).toBe("••••cdef");
  });

  it("follows PostHog's rules: 405 on DELETE, soft delete, type fixed, 404 for unknown ids, only the webhook template", async () => {
    const created = await create(webhook("rules", `http://127.0.0.1:${port}/rules`));
    const id = created.body.id as string;
    expect((await call(one.DELETE, "DELETE", `hog_functions/${id}/`, { id })).status).toBe(405);
    expect((await call(one.GET, "GET", "hog_functions/nope/", { id: "nope" })).status).toBe(404);
    expect((await call(one.GET, "GET", "hog_functions/0190c000-0000-7000-8000-000000000000/", { id: "0190c000-0000-7000-8000-000000000000" })).status).toBe(404);
    expect((await call(one.PATCH, "PATCH", `hog_functions/${id}/`, { id }, { type: "transformation" })).status).toBe(400);
    expect((await create({ ...webhook("x", `http://127.0.0.1:${port}/`), template_id: "template-slack" })).status).toBe(400);
    expect((await create({ ...webhook("x", `http://127.0.0.1:${port}/`), hog: "fetch('http://169.254.169.254')" })).status).toBe(400);
    expect((await create(webhook("x", `http://127.0.0.1:${port}/`, { filters: { actions: [{ id: 999999 }] } }))).body.attr).toBe("filters__actions");
    expect((await call(one.PATCH, "PATCH", `hog_functions/${id}/`, { id }, { deleted: true })).status).toBe(200);
    const listed = await call(list.GET, "GET", "hog_functions/", {});
    expect(listed.body.results.map((f: { id: string }) => f.id)).not.toContain(id);
    expect(listed.body.results.every((f: { type: string }) => f.type === "destination")).toBe(true);
  });
});

describe("delivery", () => {
  it("writes outbox rows only for matching events, and delivers after 500, 500 exactly once", async () => {
    const created = await create(
      webhook("flaky", `http://127.0.0.1:${port}/flaky?e={event.event}`, {
        inputs: {
          headers: { value: { Authorization: "Bearer hook-secret-123456", "Content-Type": "application/json" } },
          body: { value: { name: "{event.event}", plan: "{event.properties.plan}", email: "{person.properties.email}", project: "{project.name} #{project.id}", whole: "{event.properties}" } },
        },
        filters: { events: [{ id: "signed_up", properties: [{ key: "plan", value: ["pro"], operator: "exact", type: "event" }] }] },
      }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    script.set("/flaky?e=signed_up", [500, 500]);
    await sendBatch(token, [
      { event: "$identify", distinct_id: "ada", properties: { $set: { email: "ada@example.com" } } },
      { event: "signed_up", distinct_id: "ada", properties: { plan: "pro" } },
      { event: "signed_up", distinct_id: "bob", properties: { plan: "free" } },
      { event: "$pageview", distinct_id: "ada", properties: {} },
    ]);
    const delivered = await until("the delivery", async () => {
      const rows = (await call(deliveries.GET, "GET", `hog_functions/${id}/deliveries/`, { id })).body.results as { status: string }[];
      return rows.some((r) => r.status === "delivered") && rows;
    });
    expect(delivered.map((r) => r.status)).toEqual(["delivered", "retrying", "retrying"]);
    // Nothing more arrives: one event, three attempts, one success.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const hits = received.filter((r) => r.path.startsWith("/flaky"));
    expect(hits).toHaveLength(3);
    expect(await outboxOf(id)).toBe(0);
    const last = hits.at(-1)!;
    expect(last.method).toBe("POST");
    expect(last.headers.authorization).toBe("Bearer hook-secret-123456");
    expect(JSON.parse(last.body)).toEqual({ name: "signed_up", plan: "pro", email: "ada@example.com", project: expect.stringMatching(/ #\d+$/), whole: expect.objectContaining({ plan: "pro" }) });
    const entries = (await call(logs.GET, "GET", `hog_functions/${id}/logs/?level=WARN`, { id })).body.results as { level: string; message: string }[];
    expect(entries).toHaveLength(2);
    expect(entries[0]!.message).toContain("HTTP 500");
    const metrics = (await call(totals.GET, "GET", `hog_functions/${id}/metrics/totals/`, { id })).body;
    expect(metrics.totals).toMatchObject({ delivered: 1, retrying: 2, failed: 0, pending: 0 });
  });

  it("matches actions and person properties, and skips what no longer matches", async () => {
    const action = await db.prisma.action.create({ data: { projectId, name: "Checkout", steps: [{ event: "checkout", url: "/cart", url_matching: "contains" }] } });
    const byAction = await create(webhook("by action", `http://127.0.0.1:${port}/action`, { filters: { actions: [{ id: action.id, type: "actions" }] } }));
    const byPerson = await create(webhook("by person", `http://127.0.0.1:${port}/person`, { filters: { events: [{ id: "checkout" }], properties: [{ key: "email", value: "ada", operator: "icontains", type: "person" }] } }));
    expect(byPerson.status, JSON.stringify(byPerson.body)).toBe(201);
    await sendBatch(token, [
      { event: "checkout", distinct_id: "ada", properties: { $current_url: "https://shop.test/cart" } },
      { event: "checkout", distinct_id: "bob", properties: { $current_url: "https://shop.test/home" } },
    ]);
    await until("both", async () => received.filter((r) => r.path === "/action").length >= 1 && received.filter((r) => r.path === "/person").length >= 1);
    await until("the skip", async () => (await call(deliveries.GET, "GET", `hog_functions/${byPerson.body.id}/deliveries/`, { id: byPerson.body.id })).body.results.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received.filter((r) => r.path === "/action")).toHaveLength(1);
    expect(received.filter((r) => r.path === "/person")).toHaveLength(1);
    const personRows = (await call(deliveries.GET, "GET", `hog_functions/${byPerson.body.id}/deliveries/`, { id: byPerson.body.id })).body.results as { status: string }[];
    expect(personRows.map((r) => r.status).sort()).toEqual(["delivered", "skipped"]);
  });

  it("with filter_test_accounts leaves out the project's test accounts: by the event at capture, by the person at delivery", async () => {
    await db.prisma.project.update({
      where: { id: projectId },
      data: {
        testAccountFilters: [
          { key: "$host", operator: "not_regex", value: "^(localhost|127\\.0\\.0\\.1)($|:)", type: "event" },
          { key: "email", operator: "not_icontains", value: "@staff.test", type: "person" },
        ],
      },
    });
    try {
      const filtered = await create(webhook("no test accounts", `http://127.0.0.1:${port}/real-users`, { filters: { events: [{ id: "paid" }], filter_test_accounts: true } }));
      expect(filtered.status, JSON.stringify(filtered.body)).toBe(201);
      const everyone = await create(webhook("everyone", `http://127.0.0.1:${port}/everyone`, { filters: { events: [{ id: "paid" }] } }));
      await sendBatch(token, [
        { event: "$identify", distinct_id: "staffer", properties: { $set: { email: "sam@staff.test" } } },
        { event: "$identify", distinct_id: "carol", properties: { $set: { email: "carol@example.com" } } },
        { event: "paid", distinct_id: "carol", properties: { $host: "shop.test" } },
        { event: "paid", distinct_id: "developer", properties: { $host: "localhost:3000" } },
        { event: "paid", distinct_id: "staffer", properties: { $host: "shop.test" } },
      ]);
      await until("every delivery to the unfiltered one", async () => received.filter((r) => r.path === "/everyone").length >= 3);
      const filteredRows = await until("the filtered one's two rows", async () => {
        const rows = (await call(deliveries.GET, "GET", `hog_functions/${filtered.body.id}/deliveries/`, { id: filtered.body.id })).body.results as { status: string }[];
        return rows.length >= 2 && rows;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The localhost event never reached the outbox; the staff member's was skipped once their person was read.
      expect(filteredRows.map((r) => r.status).sort()).toEqual(["delivered", "skipped"]);
      expect(received.filter((r) => r.path === "/real-users")).toHaveLength(1);
      expect(received.filter((r) => r.path === "/everyone")).toHaveLength(3);
      expect(everyone.status).toBe(201);
    } finally {
      await db.prisma.project.update({ where: { id: projectId }, data: { testAccountFilters: [] } });
    }
  });

  it("gives up on a dead receiver after its attempts, and opens the circuit", async () => {
    const dead = http.createServer();
    await new Promise<void>((resolve) => dead.listen(0, "127.0.0.1", resolve));
    const deadPort = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const created = await create(webhook("dead", `http://127.0.0.1:${deadPort}/`, { filters: { events: [{ id: "to_dead" }] } }));
    const id = created.body.id as string;
    await sendBatch(token, [{ event: "to_dead", distinct_id: "ada" }]);
    const rows = await until("failures", async () => {
      const found = (await call(deliveries.GET, "GET", `hog_functions/${id}/deliveries/?level=failed`, { id })).body.results as { status: string; error: string; response_code: null }[];
      return found.length >= 1 && found;
    });
    expect(rows[0]!.error).toMatch(/ECONNREFUSED/);
    expect(rows[0]!.response_code).toBeNull();
    // 4 attempts failed; 2 more in a row (6) open the circuit: the rest wait rather than hammer the receiver.
    await sendBatch(token, [{ event: "to_dead", distinct_id: "bob" }]);
    const status = await until("the open circuit", async () => {
      const body = (await call(one.GET, "GET", `hog_functions/${id}/`, { id })).body;
      return body.status.state === 3 && body.status;
    });
    expect(status.tokens).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const attempts = (await call(deliveries.GET, "GET", `hog_functions/${id}/deliveries/`, { id })).body.results as unknown[];
    expect(attempts).toHaveLength(6);
    expect(await outboxOf(id)).toBe(1);
  });

  it("fails at once, saying why, a request its own settings cannot make (a header a template broke), without retries or touching the circuit", async () => {
    const created = await create(webhook("broken header", `http://127.0.0.1:${port}/broken`, { filters: { events: [{ id: "to_broken" }] }, inputs: { headers: { value: { "X-Name": "{event.properties.name}" } } } }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await sendBatch(token, [{ event: "to_broken", distinct_id: "cy", properties: { name: "a\r\nX-Injected: yes" } }]);
    const rows = await until("the failure", async () => {
      const found = (await call(deliveries.GET, "GET", `hog_functions/${id}/deliveries/?level=failed`, { id })).body.results as { error: string; attempt: number }[];
      return found.length >= 1 && found;
    });
    expect(rows[0]!.error).toBe("The header X-Name has a line break or control character once rendered.");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await call(deliveries.GET, "GET", `hog_functions/${id}/deliveries/`, { id })).body.results).toHaveLength(1);
    expect(received.filter((request) => request.path === "/broken")).toHaveLength(0);
    expect(await outboxOf(id)).toBe(0);
    expect((await call(one.GET, "GET", `hog_functions/${id}/`, { id })).body.status.state).not.toBe(3);
  });

  it("prunes the delivery log past its age in chunks until none is left, keeping newer lines", async () => {
    const created = await create(webhook("pruned", `http://127.0.0.1:${port}/pruned`, { filters: { events: [{ id: "never_sent" }] } }));
    const id = created.body.id as string;
    const insert = (n: number, at: string) =>
      db.sql.query(`INSERT INTO hog_function_deliveries (hog_function_id, project_id, event_uuid, attempt, status, created_at) SELECT $1::uuid, $2::int, gen_random_uuid(), 1, 'delivered', $3::timestamptz FROM generate_series(1, $4::int)`, [id, projectId, at, n]);
    await insert(7, "2020-01-01T00:00:00Z");
    await insert(3, new Date().toISOString());
    const before = new Date(Date.now() - 86_400_000);
    expect([await pruneDeliveries(db.sql, before, 5), await pruneDeliveries(db.sql, before, 5), await pruneDeliveries(db.sql, before, 5)]).toEqual([5, 2, 0]);
    expect((await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM hog_function_deliveries WHERE hog_function_id = $1::uuid`, [id]))[0]!.n).toBe(3);
  });

  it("does not slow capture when the receiver hangs", async () => {
    await create(webhook("hang", `http://127.0.0.1:${port}/hang`, { filters: { events: [{ id: "to_hang" }] } }));
    await sendBatch(token, [{ event: "to_hang", distinct_id: "ada" }]);
    await until("the hanging request", async () => received.some((r) => r.path === "/hang"));
    const started = performance.now();
    for (let i = 0; i < 5; i++) await sendBatch(token, [{ event: "to_hang", distinct_id: `p${i}` }]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("costs nothing for events no destination wants, and a disabled destination gets no rows", async () => {
    const created = await create({ ...webhook("off", `http://127.0.0.1:${port}/off`, { filters: { events: [{ id: "quiet" }] } }), enabled: false });
    await reloadRoutes(db);
    const waiting = async () => (await db.sql.query<{ n: number }>(`SELECT ((SELECT count(*) FROM hog_function_outbox) + (SELECT count(*) FROM hog_function_outbox_batches))::int AS n`))[0]!.n;
    const before = await waiting();
    await sendBatch(token, [{ event: "quiet", distinct_id: "ada" }, { event: "unrelated", distinct_id: "ada" }]);
    expect(await outboxOf(created.body.id)).toBe(0);
    expect(await waiting()).toBeLessThanOrEqual(before);
  });

  it("keeps a destination to its rate limit: a burst of its limit, then the rest spread out, each delivered once", async () => {
    await stopDestinationWorker();
    const arrivals: number[] = [];
    try {
      startWorker({ ratePerSecond: 4 });
      const created = await create(webhook("limited", `http://127.0.0.1:${port}/limited`, { filters: { events: [{ id: "limited" }] } }));
      await reloadRoutes(db);
      const started = performance.now();
      await sendBatch(token, Array.from({ length: 12 }, (_, i) => ({ event: "limited", distinct_id: `l${i}` })));
      await until(
        "the limited deliveries",
        async () => {
          const hits = received.filter((r) => r.path === "/limited").length;
          while (arrivals.length < hits) arrivals.push(performance.now() - started);
          return hits >= 12;
        },
        20_000,
      );
      // 4 at once (the bucket starts full), then 8 more at 4 a second: about 2 s.
      expect(arrivals[11]! - arrivals[0]!).toBeGreaterThan(1_500);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(received.filter((r) => r.path === "/limited")).toHaveLength(12);
      expect(await outboxOf(created.body.id)).toBe(0);
    } finally {
      await stopDestinationWorker();
      startWorker();
    }
  });

  it("acknowledges with one small batch per statement, fanned out into an event's row per destination as stored", async () => {
    await withWorkerStopped(async () => {
      // Earlier tests' batches (the hanging receiver's) out of the way.
      while ((await fanOutBatches(db.sql.worker, 10_000, 100)).rows > 0);
      const first = await create(webhook("fan a", `http://127.0.0.1:${port}/fan-a`, { filters: { events: [{ id: "fanned" }] } }));
      const second = await create(webhook("fan b", `http://127.0.0.1:${port}/fan-b`, { filters: { events: [{ id: "fanned" }] } }));
      const ids = [first.body.id as string, second.body.id as string];
      await reloadRoutes(db);
      await sendBatch(token, [
        { event: "fanned", distinct_id: "ada", properties: { n: 1 }, timestamp: "2026-11-20T10:00:00.123Z" },
        { event: "fanned", distinct_id: "bob", properties: { n: 2 } },
        { event: "unrelated", distinct_id: "ada" },
      ]);
      const batches = await db.sql.query<{ routes: { destinations: string[]; events: string[] }[] }>(`SELECT routes FROM hog_function_outbox_batches`);
      expect(batches, JSON.stringify(batches)).toHaveLength(1);
      expect(batches[0]!.routes).toHaveLength(1);
      expect([...batches[0]!.routes[0]!.destinations].sort()).toEqual([...ids].sort());
      expect(batches[0]!.routes[0]!.events).toHaveLength(2);
      expect(await outboxOf(ids[0]!)).toBe(0);
      // The backlog counts what waits in batches.
      expect((await call(totals.GET, "GET", `hog_functions/${ids[0]}/metrics/totals/`, { id: ids[0]! })).body.totals.pending).toBe(2);

      // Sliced: one event (its two rows) per step of 3 rows, the rest left in the batch.
      expect(await fanOutBatches(db.sql.worker, 3, 10)).toEqual({ rows: 2, batches: 1 });
      expect(await db.sql.query(`SELECT 1 FROM hog_function_outbox_batches`)).toHaveLength(1);
      expect(await fanOutBatches(db.sql.worker, 3, 10)).toEqual({ rows: 2, batches: 1 });
      expect(await db.sql.query(`SELECT 1 FROM hog_function_outbox_batches`)).toHaveLength(0);
      // Claimed (with no lease, so they stay due), each row has its event as stored.
      const claimed = (await claimOutbox(db.sql, 100, 0)).filter((row) => row.hog_function_id === ids[0]);
      expect(claimed.map((row) => row.payload).sort((a, b) => String(a?.distinct_id).localeCompare(String(b?.distinct_id)))).toEqual([
        expect.objectContaining({ event: "fanned", distinct_id: "ada", project_id: projectId, properties: expect.objectContaining({ n: 1 }), timestamp: "2026-11-20T10:00:00.123Z", elements_chain: "" }),
        expect.objectContaining({ event: "fanned", distinct_id: "bob", properties: expect.objectContaining({ n: 2 }), timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }),
      ]);
      expect(await outboxOf(ids[1]!)).toBe(2);
      expect(await fanOutBatches(db.sql.worker, 3, 10)).toEqual({ rows: 0, batches: 0 });
    });
    await until("the fanned deliveries", async () => received.filter((r) => r.path.startsWith("/fan-")).length === 4);
  });

  it("fans /capture/'s one-event batches out several to a step, as many as the step's rows hold", async () => {
    await withWorkerStopped(async () => {
      while ((await fanOutBatches(db.sql.worker, 10_000, 100)).rows > 0);
      const first = await create(webhook("step a", `http://127.0.0.1:${port}/step-a`, { filters: { events: [{ id: "stepped" }] } }));
      const second = await create(webhook("step b", `http://127.0.0.1:${port}/step-b`, { filters: { events: [{ id: "stepped" }] } }));
      const ids = [first.body.id as string, second.body.id as string];
      await reloadRoutes(db);
      for (const n of [1, 2, 3, 4, 5]) await sendBatch(token, [{ event: "stepped", distinct_id: `s${n}`, properties: { n } }]);
      const waiting = async () => (await db.sql.query(`SELECT 1 FROM hog_function_outbox_batches`)).length;
      expect(await waiting()).toBe(5);
      // 7 rows: three whole batches of two rows each; the fourth's event would not fit, so it stays as it is.
      expect(await fanOutBatches(db.sql.worker, 7, 10)).toEqual({ rows: 6, batches: 3 });
      expect(await waiting()).toBe(2);
      // No more batches than asked for.
      expect(await fanOutBatches(db.sql.worker, 100, 1)).toEqual({ rows: 2, batches: 1 });
      expect(await fanOutBatches(db.sql.worker, 100, 10)).toEqual({ rows: 2, batches: 1 });
      expect(await waiting()).toBe(0);
      const rows = await db.sql.query<{ hog_function_id: string; n: number; events: number }>(
        `SELECT hog_function_id::text, count(*)::int AS n, count(DISTINCT event_uuid)::int AS events FROM hog_function_outbox WHERE hog_function_id = ANY($1::uuid[]) GROUP BY 1 ORDER BY 1`,
        [ids],
      );
      expect(rows).toEqual([...ids].sort().map((id) => ({ hog_function_id: id, n: 5, events: 5 })));
    });
    await until("the stepped deliveries", async () => received.filter((r) => r.path.startsWith("/step-")).length === 10);
  });

  it("claims an event's rows for several destinations with the event read once, and an event deleted since as gone", async () => {
    // ClickHouse's batches carry their events: nothing is read, and nothing deleted since shows.
    const readsEvents = testEventStoreKind === "postgres";
    let ids: string[] = [];
    await withWorkerStopped(async () => {
      while ((await fanOutBatches(db.sql.worker, 10_000, 100)).rows > 0);
      const first = await create(webhook("read a", `http://127.0.0.1:${port}/read-a`, { filters: { events: [{ id: "read once" }] } }));
      const second = await create(webhook("read b", `http://127.0.0.1:${port}/read-b`, { filters: { events: [{ id: "read once" }] } }));
      ids = [first.body.id as string, second.body.id as string];
      await reloadRoutes(db);
      await sendBatch(token, [
        { event: "read once", distinct_id: "kept", properties: { n: 1 } },
        { event: "read once", distinct_id: "gone", properties: { n: 2 } },
      ]);
      while ((await fanOutBatches(db.sql.worker, 10_000, 100)).rows > 0);
      if (readsEvents) await db.sql.query(`DELETE FROM events WHERE project_id = $1 AND distinct_id = 'gone'`, [projectId]);
      const claimed = (await claimOutbox(db.sql, 100, 0)).filter((row) => ids.includes(row.hog_function_id));
      expect(claimed).toHaveLength(4);
      const kept = claimed.filter((row) => row.payload?.distinct_id === "kept");
      expect(kept.map((row) => row.hog_function_id).sort()).toEqual([...ids].sort());
      expect(kept.map((row) => row.payload)).toEqual([
        expect.objectContaining({ event: "read once", distinct_id: "kept", properties: expect.objectContaining({ n: 1 }) }),
        expect.objectContaining({ event: "read once", distinct_id: "kept", properties: expect.objectContaining({ n: 1 }) }),
      ]);
      expect(new Set(kept.map((row) => row.event_uuid)).size).toBe(1);
      const gone = claimed.filter((row) => row.payload?.distinct_id !== "kept");
      expect(gone.map((row) => row.hog_function_id).sort()).toEqual([...ids].sort());
      if (readsEvents) expect(gone.map((row) => row.payload)).toEqual([null, null]);
    });
    // The deleted event's rows are dropped, not sent.
    await until("the deliveries", async () => received.filter((r) => r.path.startsWith("/read-")).length === (readsEvents ? 2 : 4));
    await until("the outbox emptied", async () => (await outboxOf(ids[0]!)) + (await outboxOf(ids[1]!)) === 0);
    expect(received.filter((r) => r.path.startsWith("/read-"))).toHaveLength(readsEvents ? 2 : 4);
  });

  it("claims from a capped destination only its cap, oldest first, none of a skipped one's, and any number of the others'", async () => {
    let ids: string[] = [];
    await withWorkerStopped(async () => {
      while ((await fanOutBatches(db.sql.worker, 10_000, 100)).rows > 0);
      // Whatever earlier tests left due is not this test's.
      await db.sql.query(`DELETE FROM hog_function_outbox`);
      for (const name of ["capped", "skipped", "free"]) ids.push((await create(webhook(`scope ${name}`, `http://127.0.0.1:${port}/scope-${name}`, { filters: { events: [{ id: "scoped" }] } }))).body.id as string);
      await reloadRoutes(db);
      for (const n of [1, 2, 3, 4]) await sendBatch(token, [{ event: "scoped", distinct_id: `scope-${n}`, properties: { n } }]);
      while ((await fanOutBatches(db.sql.worker, 10_000, 100)).rows > 0);
      const [capped, skipped, free] = ids as [string, string, string];
      const claimed = await claimOutbox(db.sql, 100, 60_000, { skip: [skipped], caps: new Map([[capped, 2]]) });
      const of = (id: string) => claimed.filter((row) => row.hog_function_id === id).map((row) => row.payload?.distinct_id).sort();
      expect(of(capped)).toEqual(["scope-1", "scope-2"]);
      expect(of(skipped)).toEqual([]);
      expect(of(free)).toEqual(["scope-1", "scope-2", "scope-3", "scope-4"]);
      // A cap of 0 is a skip; the claimed rows are leased, not claimed again; the overall limit holds.
      expect(await claimOutbox(db.sql, 100, 60_000, { skip: [skipped], caps: new Map([[capped, 0], [free, 5]]) })).toEqual([]);
      const rest = await claimOutbox(db.sql, 3, 0, { skip: [], caps: new Map([[capped, 5], [skipped, 5]]) });
      expect(rest.map((row) => `${ids.indexOf(row.hog_function_id)} ${row.payload?.distinct_id}`).sort()).toEqual(["0 scope-3", "1 scope-1", "1 scope-2"]);
      await db.sql.query(`UPDATE hog_function_outbox SET next_attempt_at = now() WHERE hog_function_id = ANY($1::uuid[])`, [ids]);
    });
    await until("the scoped deliveries", async () => received.filter((r) => r.path.startsWith("/scope-")).length === 12);
  });
});
