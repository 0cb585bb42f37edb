/**
 * Several app nodes (issue 10): two built servers on one PostgreSQL database behave as one
 * service. Each node has its own DATA_DIR and port; they share AUTH_SECRET, as a deployment
 * behind a load balancer must. A flag or a transformation changed through node A is what
 * node B serves within a second (the change feed, PostgreSQL LISTEN/NOTIFY); events sent
 * to both nodes are listed once through either; a session made on A is good on B.
 *
 * And one node with its events in embedded ClickHouse (CLICKHOUSE_URL=chdb:<dir>): the built
 * server ingests from posthog-node and lists the events through the REST API. chdb lives in
 * its process, so it cannot be shared by two nodes; a cluster of nodes uses a ClickHouse server.
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { createDeployment, waitFor, type Deployment } from "./support/burrow";
import { tempDataDir, type RunningServer } from "./support/server";

const USER = { email: "sdk@example.com", password: "sdk-password-123" };
/** Within a second, as the issue asks; measured from the moment A answered the write. */
const PROPAGATION_MS = 1_000;

interface Api {
  get<T>(path: string): Promise<T>;
  send<T>(method: "POST" | "PATCH", path: string, body: unknown): Promise<T>;
}

/** The management API of one node, with the deployment's personal key. */
function apiOf(server: RunningServer, key: string): Api {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.ok, `${method} ${path} on ${server.url}: ${response.status} ${text}`).toBe(true);
    return JSON.parse(text) as T;
  };
  return { get: (path) => call("GET", path), send: (method, path, body) => call(method, path, body) };
}

/**
 * Polls `probe` until it holds; fails when a probe begun over `ms` after `since` does not.
 * Judged by when a probe began (its request or event was sent), not when its answer came: a
 * slow answer on a loaded machine is the test's time, not the change's.
 */
async function within(what: string, since: number, ms: number, probe: () => Promise<boolean>): Promise<number> {
  for (;;) {
    const begun = Date.now();
    if (await probe()) return Date.now() - since;
    if (begun - since > ms) throw new Error(`${what}: not seen by a probe begun ${begun - since} ms after the change`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Sends `count` events for `distinctId` to one node with posthog-node; returns their uuids. */
async function sendEvents(server: RunningServer, projectKey: string, distinctId: string, count: number, properties: Record<string, unknown> = {}) {
  const client = new PostHog(projectKey, { host: server.url, flushAt: 10, flushInterval: 0 });
  const errors: unknown[] = [];
  client.on("error", (error) => errors.push(error));
  const uuids: string[] = [];
  for (let i = 0; i < count; i++) {
    const uuid = randomUUID();
    uuids.push(uuid);
    client.capture({ distinctId, event: "two nodes", uuid, properties: { index: i, ...properties } });
  }
  await client.shutdown();
  expect(errors).toEqual([]);
  return uuids;
}

interface ListedEvent {
  id: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
}

/** Every event of the project listed through one node, following `next`. */
async function listAll(api: Api, projectId: number): Promise<ListedEvent[]> {
  const all: ListedEvent[] = [];
  let next: string | null = `/api/projects/${projectId}/events/?limit=100`;
  while (next) {
    const page: { results: ListedEvent[]; next: string | null } = await api.get(next);
    all.push(...page.results);
    next = page.next ? new URL(page.next).pathname + new URL(page.next).search : null;
  }
  return all;
}

test.describe("two app nodes on one PostgreSQL database", () => {
  let deployment: Deployment;
  let nodeA: RunningServer;
  let nodeB: RunningServer;
  let dataDirB: string;
  let a: Api;
  let b: Api;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    deployment = await createDeployment("postgres");
    // One secret for every node: sessions are JWT cookies signed with it. Without it each
    // node would generate its own in its DATA_DIR and refuse the other's sessions.
    const shared = { AUTH_SECRET: randomBytes(32).toString("base64url") };
    dataDirB = tempDataDir();
    [nodeA, nodeB] = await Promise.all([deployment.start(shared), deployment.start({ ...shared, DATA_DIR: dataDirB })]);
    a = apiOf(nodeA, deployment.personalKey);
    b = apiOf(nodeB, deployment.personalKey);
  });

  test.afterAll(async () => {
    const codes = await Promise.all([nodeA?.stop(), nodeB?.stop()]);
    expect(codes.filter((code) => code !== undefined)).toEqual(codes.filter((code) => code !== undefined).map(() => 0));
    await deployment?.dispose();
    fs.rmSync(dataDirB, { recursive: true, force: true });
  });

  test("a flag changed through node A is served by node B's /decide and /flags within a second", async () => {
    const projectId = deployment.projectId;
    const token = deployment.projectKey;
    const decideOnB = async (distinctId: string) => {
      const response = await fetch(`${nodeB.url}/decide/?v=3`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, distinct_id: distinctId }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { featureFlags: Record<string, string | boolean> }).featureFlags;
    };
    const flagsOnB = async (distinctId: string) => {
      const response = await fetch(`${nodeB.url}/flags/?v=2`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, distinct_id: distinctId }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { flags: Record<string, { enabled: boolean; variant: string | null }> }).flags;
    };

    // B has the project's definitions in memory before A writes: what B serves after must
    // come from the change feed, not from a first load.
    expect(await decideOnB("user-1")).toEqual({});

    // Created on A → on B.
    let since = Date.now();
    const flag = await a.send<{ id: number }>("POST", `/api/projects/${projectId}/feature_flags/`, {
      key: "two-nodes",
      name: "Two nodes",
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    });
    since = Date.now();
    const created = await within("a created flag on B's /decide", since, PROPAGATION_MS, async () => (await decideOnB("user-1"))["two-nodes"] === true);
    expect(await flagsOnB("user-1")).toMatchObject({ "two-nodes": { enabled: true } });

    // Switched off on A → off on B.
    await a.send("PATCH", `/api/projects/${projectId}/feature_flags/${flag.id}/`, { active: false });
    since = Date.now();
    const disabled = await within("a disabled flag on B's /decide", since, PROPAGATION_MS, async () => (await decideOnB("user-1"))["two-nodes"] === false);
    await within("a disabled flag on B's /flags", since, PROPAGATION_MS, async () => (await flagsOnB("user-1"))["two-nodes"]?.enabled === false);

    // A variant added on A → B answers the variant.
    await a.send("PATCH", `/api/projects/${projectId}/feature_flags/${flag.id}/`, {
      active: true,
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: { variants: [{ key: "only", rollout_percentage: 100 }] },
      },
    });
    since = Date.now();
    const variant = await within("a variant on B's /flags", since, PROPAGATION_MS, async () => (await flagsOnB("user-1"))["two-nodes"]?.variant === "only");
    expect(await decideOnB("user-1")).toEqual({ "two-nodes": "only" });
    test.info().annotations.push({ type: "propagation", description: `created ${created} ms, disabled ${disabled} ms, variant ${variant} ms` });
  });

  test("events sent to both nodes are all listed once through either node", async () => {
    test.setTimeout(90_000);
    const run = randomBytes(3).toString("hex");
    const [toA, toB] = await Promise.all([
      sendEvents(nodeA, deployment.projectKey, `via-a-${run}`, 40),
      sendEvents(nodeB, deployment.projectKey, `via-b-${run}`, 40),
    ]);
    const sent = [...toA, ...toB].sort();
    for (const [name, api] of [
      ["A", a],
      ["B", b],
    ] as const) {
      const listed = (await listAll(api, deployment.projectId)).filter((event) => event.event === "two nodes" && event.distinct_id.endsWith(run));
      const ids = listed.map((event) => event.id).sort();
      expect(ids, `listed through node ${name}`).toEqual(sent);
      expect(new Set(ids).size, `no duplicates through node ${name}`).toBe(ids.length);
    }
    // Both nodes wrote to the one database: each node's events carry that node's sender.
    const stored = await deployment.read((query) =>
      query<{ distinct_id: string; n: number }>(
        `SELECT distinct_id, count(*)::int AS n FROM events WHERE project_id = $1 AND event = 'two nodes' AND distinct_id LIKE $2 GROUP BY distinct_id ORDER BY distinct_id`,
        [deployment.projectId, `%${run}`],
      ),
    );
    expect(stored).toEqual([
      { distinct_id: `via-a-${run}`, n: 40 },
      { distinct_id: `via-b-${run}`, n: 40 },
    ]);
  });

  test("a transformation config changed on node A applies to events ingested by node B within a second", async () => {
    test.setTimeout(90_000);
    const projectId = deployment.projectId;
    const plugins = await a.get<{ results: { id: number; key?: string; name: string }[] }>(`/api/plugins/`);
    const addProperties = plugins.results.find((plugin) => plugin.name === "Add or override properties");
    expect(addProperties, JSON.stringify(plugins.results.map((p) => p.name))).toBeDefined();

    /** One event through B; the `stage` property it was stored with. */
    const stageOfAnEventThroughB = async () => {
      const distinctId = `pipeline-${randomBytes(4).toString("hex")}`;
      const [uuid] = await sendEvents(nodeB, deployment.projectKey, distinctId, 1);
      const stored = await waitFor("the event through B", async () => {
        const page = await b.get<{ results: ListedEvent[] }>(`/api/projects/${projectId}/events/?distinct_id=${distinctId}`);
        return page.results.find((event) => event.id === uuid);
      });
      return stored.properties.stage;
    };

    // B builds the project's (empty) chain before A writes.
    expect(await stageOfAnEventThroughB()).toBeUndefined();

    const config = await a.send<{ id: number }>("POST", `/api/projects/${projectId}/pipeline_transformation_configs/`, {
      plugin: addProperties!.id,
      enabled: true,
      config: { properties: { stage: "first" } },
    });
    let since = Date.now();
    await within("a new transformation on B", since, PROPAGATION_MS, async () => (await stageOfAnEventThroughB()) === "first");

    await a.send("PATCH", `/api/projects/${projectId}/pipeline_transformation_configs/${config.id}/`, { config: { properties: { stage: "second" } } });
    since = Date.now();
    await within("a changed transformation on B", since, PROPAGATION_MS, async () => (await stageOfAnEventThroughB()) === "second");

    await a.send("PATCH", `/api/projects/${projectId}/pipeline_transformation_configs/${config.id}/`, { enabled: false });
    since = Date.now();
    await within("a disabled transformation on B", since, PROPAGATION_MS, async () => (await stageOfAnEventThroughB()) === undefined);
  });

  test("a session made on node A is good on node B (one AUTH_SECRET)", async ({ page }, testInfo) => {
    await signIn(page, USER, nodeA.url);
    // Cookies do not depend on the port: the browser sends A's session cookie to B.
    await page.goto(`${nodeB.url}/events`);
    await expect(page).toHaveURL(`${nodeB.url}/events`);
    // B's pages and its tRPC calls accept the session: the events list loads there.
    await expect(page.getByTestId("event-row").first()).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("session-on-node-b.png"), fullPage: true });
  });
});

test.describe("one node with its events in embedded ClickHouse (chdb)", () => {
  test("the built server ingests from posthog-node into ClickHouse and lists the events through the REST API", async () => {
    test.setTimeout(180_000);
    const deployment = await createDeployment("embedded");
    const clickhouseDir = path.join(tempDataDir(), "clickhouse");
    try {
      const server = await deployment.start({ CLICKHOUSE_URL: `chdb:${clickhouseDir}` });
      try {
        expect(server.output()).toContain("ClickHouse");
        const api = apiOf(server, deployment.personalKey);
        const run = randomBytes(3).toString("hex");
        const sent = await sendEvents(server, deployment.projectKey, `ch-${run}`, 25, { plan: "pro" });
        const listed = (await listAll(api, deployment.projectId)).filter((event) => event.distinct_id === `ch-${run}`);
        expect(listed.map((event) => event.id).sort()).toEqual([...sent].sort());
        expect(listed.every((event) => event.properties.plan === "pro" && event.properties.$lib === "posthog-node")).toBe(true);
        // A property filter runs in ClickHouse too.
        const filtered = await api.get<{ results: ListedEvent[] }>(
          `/api/projects/${deployment.projectId}/events/?properties=${encodeURIComponent(JSON.stringify([{ key: "index", value: 3, operator: "exact", type: "event" }]))}`,
        );
        expect(filtered.results.map((event) => event.properties.index)).toEqual([3]);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      // The events are in ClickHouse, not in PostgreSQL's table.
      const inPostgres = await deployment.read((query) => query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1`, [deployment.projectId]));
      expect(inPostgres).toEqual([{ n: 0 }]);
      expect(fs.existsSync(clickhouseDir)).toBe(true);
    } finally {
      await deployment.dispose();
      fs.rmSync(path.dirname(clickhouseDir), { recursive: true, force: true });
    }
  });
});
