/**
 * Session replay (issue 35) with the real posthog-js, loaded by PostHog's snippet from Burrow
 * (which also serves the recorder posthog-js lazy-loads). While recording is off, remote
 * config says `false` and a visit stores no recording. Once it is on, a scripted page on
 * another origin is recorded: typing in a masked input, clicks, a client-side navigation
 * (pushState; the page sets `capture_pageview: 'history_change'` as a single-page app does, so
 * posthog-js marks it in the recording). The session is listed within seconds with its
 * duration and clicks, the player reproduces the page's heading and lists the navigation, the
 * "events performed" filter and /web's "Watch recordings" find it, and once the server is
 * stopped the database is read: the typed text is stored nowhere. Screenshots at 1280 and
 * 390 px.
 */
import fs from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { expect, test, type Page } from "@playwright/test";
import { gzipBomb, pageItems, snapshotEvent } from "@/test-support/recordings";
import { signIn } from "./support/accounts";
import { createDeployment, waitFor } from "./support/burrow";
import { freePort, type RunningServer } from "./support/server";
import { screenshot, servePostHogJsPage, snippetPage } from "./support/site";

/** The user `createDeployment` bootstraps. */
const USER = { email: "sdk@example.com", password: "sdk-password-123" };
const SECRET = "typed-secret-4242";
/** A recording sent by hand with a gzip bomb in it. */
const BOMB_SESSION = "0190c1d2-aaaa-7bbb-8ccc-000000000b0b";

const SHOP_BODY = `
  <style>body{font-family:sans-serif;margin:2rem} h1{color:#5b21b6} button,input{font-size:1rem;padding:.4rem}</style>
  <h1 id="title">Replay shop</h1>
  <label>Card holder <input id="holder" name="holder" autocomplete="off"></label>
  <button id="buy" onclick="document.getElementById('status').textContent='Added to cart'">Add to cart</button>
  <p id="status">Cart is empty</p>
  <a id="checkout" href="/shop/checkout" onclick="event.preventDefault(); history.pushState({}, '', '/shop/checkout'); document.getElementById('title').textContent='Checkout';">Checkout</a>`;

type Json = Record<string, any>;

test.describe("session replay", () => {
  test("posthog-js records a session; it is listed, filtered and played back, and the typed text is stored nowhere", async ({ page, browser }) => {
    test.setTimeout(240_000);
    const deployment = await createDeployment("embedded");
    const port = await freePort();
    let server: RunningServer | null = await deployment.start({ PORT: String(port), SITE_URL: `http://127.0.0.1:${port}` });
    const url = server.url;
    const api = async (method: string, resource: string, body?: unknown) => {
      const response = await fetch(`${url}/api/projects/${deployment.projectId}/${resource}`, {
        method,
        headers: { authorization: `Bearer ${deployment.personalKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, text, json: (text.startsWith("{") ? JSON.parse(text) : null) as Json };
    };
    const remoteRecording = async () => ((await (await fetch(`${url}/array/${deployment.projectKey}/config`)).json()) as { sessionRecording: unknown }).sessionRecording;
    const shop = await servePostHogJsPage(snippetPage(deployment.projectKey, url, SHOP_BODY, { autocapture: false, capture_pageview: "history_change" }));
    let offSession = "";
    let sessionId = "";
    try {
      // ── Recording off (the default): remote config says false; a visit sends no snapshot and stores no recording.
      expect(await remoteRecording()).toBe(false);
      const off = await visit(browser, `${shop.origin}/shop?visit=off`, url);
      try {
        offSession = await off.page.evaluate(() => (window as unknown as { posthog: { get_session_id(): string } }).posthog.get_session_id());
        await off.page.locator("#buy").click();
        await waitFor("the unrecorded visit's pageview", async () => {
          const events = await api("GET", "events/?event=%24pageview");
          return events.json.results.some((event: Json) => event.properties.$session_id === offSession) ? true : undefined;
        });
        expect(await off.page.evaluate(() => (window as unknown as { posthog: { sessionRecordingStarted(): boolean } }).posthog.sessionRecordingStarted())).toBe(false);
      } finally {
        await off.page.context().close();
      }
      expect(off.snapshots).toEqual([]);
      expect((await api("GET", "session_recordings/?date_from=-1d")).json.results).toEqual([]);

      // ── Recording on.
      const on = await api("PATCH", "", { session_recording_opt_in: true });
      expect(on.status, on.text).toBe(200);
      expect(await remoteRecording()).toMatchObject({ endpoint: "/s/", recorderVersion: "v2", masking: { maskAllInputs: true } });
      const visitor = await visit(browser, `${shop.origin}/shop`, url);
      let listedAfterMs = 0;
      try {
        await visitor.page.waitForFunction(() => (window as unknown as { posthog: { sessionRecordingStarted(): boolean } }).posthog.sessionRecordingStarted(), undefined, { timeout: 20_000 });
        sessionId = await visitor.page.evaluate(() => (window as unknown as { posthog: { get_session_id(): string } }).posthog.get_session_id());
        await visitor.page.locator("#holder").click();
        await visitor.page.keyboard.type(SECRET, { delay: 20 });
        await visitor.page.locator("#buy").click();
        await expect(visitor.page.locator("#status")).toHaveText("Added to cart");
        await visitor.page.locator("#checkout").click();
        await expect(visitor.page.locator("#title")).toHaveText("Checkout");
        await visitor.page.mouse.move(200, 200);
        const done = Date.now();
        // posthog-js flushes its buffer after 2 s and its queue every 3 s: listed, with both clicks and the navigation, within seconds.
        await waitFor(
          "the recording listed with its clicks and the navigation in its snapshots",
          async () => {
            const listed = await api("GET", `session_recordings/${sessionId}/`);
            if (listed.status !== 200 || listed.json.click_count < 2) return undefined;
            const sources = await api("GET", `session_recordings/${sessionId}/snapshots/`);
            const last = sources.json.sources.length - 1;
            const blocks = await api("GET", `session_recordings/${sessionId}/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=${last}`);
            return blocks.text.includes("/shop/checkout") ? true : undefined;
          },
          30_000,
        );
        listedAfterMs = Date.now() - done;
      } finally {
        await visitor.page.context().close();
      }
      expect(visitor.failures).toEqual([]);
      expect(visitor.snapshots.length).toBeGreaterThan(0);
      // Within seconds of the last interaction (posthog-js's own timers are 2 s + 3 s).
      expect(listedAfterMs).toBeLessThan(15_000);

      // What the API answers: the metadata, and snapshots without the typed text.
      const recording = await api("GET", `session_recordings/${sessionId}/`);
      expect(recording.json).toMatchObject({ id: sessionId, start_url: expect.stringContaining("/shop"), snapshot_source: "web" });
      expect(recording.json.click_count).toBeGreaterThanOrEqual(2);
      expect(recording.json.keypress_count).toBeGreaterThan(0);
      expect(recording.json.recording_duration).toBeGreaterThan(0);
      const sources = await api("GET", `session_recordings/${sessionId}/snapshots/`);
      const last = Math.max(...(sources.json.sources as { blob_key: string }[]).map((source) => Number(source.blob_key)));
      const blocks = await api("GET", `session_recordings/${sessionId}/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=${last}`);
      expect(blocks.status).toBe(200);
      // posthog-js packs snapshots (cv "2024-10": gzip inside the JSON): read unpacked, the page is there and the typed text is not.
      const unpackedBlocks = unpacked(blocks.text);
      expect(unpackedBlocks).toContain("Replay shop");
      expect(unpackedBlocks).not.toContain(SECRET);
      // "Events performed" through the API: the navigation's $pageview (posthog-js sent it to /e/ with the session id).
      const performed = (events: unknown) => api("GET", `session_recordings/?date_from=-1d&events=${encodeURIComponent(JSON.stringify(events))}`);
      const checkout = [{ id: "$pageview", type: "events", properties: [{ key: "$pathname", value: "/shop/checkout", operator: "exact", type: "event" }] }];
      await waitFor("the navigation's $pageview to be stored", async () => ((await performed(checkout)).json.results.length > 0 ? true : undefined));
      expect((await performed(checkout)).json.results.map((row: Json) => row.id)).toEqual([sessionId]);
      expect((await performed([{ id: "purchase", type: "events" }])).json.results).toEqual([]);

      // ── The Replay page: listed with its duration and clicks.
      await page.setViewportSize({ width: 1280, height: 900 });
      await signIn(page, USER, url);
      await page.goto(`${url}/replay`);
      const rows = page.getByTestId("recording-row");
      await expect(rows).toHaveCount(1);
      await expect(rows.first().getByTestId("recording-clicks")).toHaveText(/^[2-9]\d* clicks$/);
      await expect(rows.first().getByTestId("recording-duration")).toContainText("active");
      await expect(page.getByTestId("replay-usage")).toContainText("per recorded minute");
      // The "events performed" field: a name no session has lists none.
      await page.getByTestId("recordings-event").fill("purchase");
      await page.getByTestId("recordings-event").press("Enter");
      await expect(page).toHaveURL(/event=purchase/);
      await expect(rows).toHaveCount(0);
      await page.getByTestId("recordings-event").fill("$pageview");
      await page.getByTestId("recordings-event").press("Enter");
      await expect(rows).toHaveCount(1);
      await screenshot(page, "replay-list-desktop");

      // ── /web: "Watch recordings" from the page row of /shop/checkout finds the session that viewed it.
      // (The shop is served from 127.0.0.1, a test account by the project's default filters: the page counts it with its switch off.)
      await page.goto(`${url}/web?filter_test_accounts=false`);
      const pageRow = page.getByTestId("web-table-row").filter({ has: page.getByTestId("web-table-value").filter({ hasText: /^\/shop\/checkout$/ }) });
      await expect(pageRow.first().getByTestId("web-table-recordings")).toBeVisible({ timeout: 30_000 });
      await screenshot(page, "web-watch-recordings-desktop");
      await pageRow.first().getByTestId("web-table-recordings").click();
      await expect(page).toHaveURL(/\/replay\?.*event=%24pageview.*path=%2Fshop%2Fcheckout/);
      await expect(page.getByTestId("recordings-path")).toHaveText("Viewed /shop/checkout");
      await expect(rows).toHaveCount(1);

      // ── The player: the heading, and the navigation beside it.
      await rows.first().click();
      await expect(page).toHaveURL(new RegExp(`/replay/${sessionId}$`));
      await playerShowsHeading(page);
      const timeline = page.getByTestId("recording-timeline");
      await expect(timeline).toContainText("/shop");
      await expect(timeline.getByTestId("recording-timeline-item").filter({ hasText: "/shop/checkout" })).toHaveCount(1);
      await screenshot(page, "replay-player-desktop");

      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await playerShowsHeading(page);
      await screenshot(page, "replay-player-mobile");
      await page.goto(`${url}/replay`);
      await expect(rows).toHaveCount(1);
      await screenshot(page, "replay-list-mobile");

      // ── A recording with a packed value that inflates past the player's bound: it plays without it, and says so.
      const items = [...pageItems(Date.now() - 60_000), { type: 2, cv: "2024-10", data: gzipBomb(48 * 1024 * 1024), timestamp: Date.now() - 30_000 }];
      const sent = await fetch(`${url}/s/`, { method: "POST", headers: { "content-type": "text/plain" }, body: JSON.stringify([snapshotEvent({ token: deployment.projectKey, sessionId: BOMB_SESSION, distinctId: "mallory", items })]) });
      expect(sent.status).toBe(200);
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${url}/replay/${BOMB_SESSION}`);
      await expect(page.getByTestId("recording-truncated")).toContainText("too large to play");
      await expect(page.frameLocator("[data-testid=recording-player] iframe").locator("h1")).toHaveText("Cart", { timeout: 20_000 });
      await screenshot(page, "replay-player-truncated");
    } finally {
      await shop.close();
      if (server) expect(await server.stop()).toBe(0);
      server = null;
    }

    // ── The database, read with the server stopped: the typed text is in no table, no snapshot, no file.
    try {
      const stored = await deployment.read(async (query) => ({
        chunks: await query<{ session_id: string; data: Uint8Array }>("SELECT session_id, data FROM recording_chunks WHERE project_id = $1", [deployment.projectId]),
        recordings: await query<{ session_id: string; row: string }>("SELECT session_id, row_to_json(r)::text AS row FROM recordings r WHERE project_id = $1", [deployment.projectId]),
        events: await query<{ event: string; row: string }>("SELECT event, row_to_json(e)::text AS row FROM events e WHERE project_id = $1", [deployment.projectId]),
      }));
      expect(stored.recordings.map((row) => row.session_id).sort()).toEqual([sessionId, BOMB_SESSION].sort());
      const chunks = stored.chunks.filter((chunk) => chunk.session_id === sessionId);
      expect(chunks.length).toBeGreaterThan(0);
      const snapshotText = unpacked(chunks.map((chunk) => gunzipSync(Buffer.from(chunk.data)).toString("utf8")).join(""));
      expect(snapshotText).toContain("Replay shop");
      expect(snapshotText).toContain("/shop/checkout");
      expect(snapshotText).not.toContain(SECRET);
      expect(stored.recordings.some((row) => row.row.includes(SECRET))).toBe(false);
      // Snapshots are never stored as events; the unrecorded visit's events are there, its recording is not.
      expect(stored.events.some((row) => row.event === "$snapshot")).toBe(false);
      expect(stored.events.some((row) => row.row.includes(offSession))).toBe(true);
      expect(stored.events.some((row) => row.row.includes(SECRET))).toBe(false);
      // Nor in any file of the data directory (WAL included), as plain bytes.
      expect(filesContaining(deployment.dataDir, Buffer.from(SECRET))).toEqual([]);
    } finally {
      await deployment.dispose();
    }
  });
});

/** A visitor in a browser context of its own, on `address`, with posthog-js loaded; its /s/ requests are counted. */
async function visit(browser: import("@playwright/test").Browser, address: string, burrow: string) {
  const page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
  const snapshots: number[] = [];
  const failures: string[] = [];
  page.on("response", (response) => {
    if (!response.url().startsWith(burrow) || new URL(response.url()).pathname !== "/s/") return;
    if (response.status() === 200) snapshots.push(Date.now());
    else failures.push(`${response.status()}`);
  });
  await page.goto(address);
  await page.waitForFunction(() => (window as unknown as { posthog: { __loaded?: boolean } }).posthog.__loaded === true);
  return { page, snapshots, failures };
}

/** JSONL of `[windowId, event]` lines with every packed value (posthog-js's gzip, as latin1 text) unpacked, as text. */
function unpacked(jsonl: string): string {
  const open = (value: unknown): unknown => {
    if (typeof value === "string" && value.startsWith("\u001f\u008b")) return open(JSON.parse(gunzipSync(Buffer.from(value, "latin1")).toString("utf8")));
    if (Array.isArray(value)) return value.map(open);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, open(item)]));
    return value;
  };
  return jsonl
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.stringify(open(JSON.parse(line))))
    .join("\n");
}

/** Files under `dir` whose bytes contain `needle`. */
function filesContaining(dir: string, needle: Buffer): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (fs.readFileSync(file).includes(needle)) found.push(path.relative(dir, file));
  }
  return found;
}

/** The rrweb player rebuilt the recorded page in its iframe: the shop's heading is there. */
async function playerShowsHeading(page: Page): Promise<void> {
  const replay = page.frameLocator("[data-testid=recording-player] iframe");
  await expect(replay.locator("h1")).toHaveText(/Replay shop|Checkout/, { timeout: 20_000 });
}
