/**
 * The real posthog-js browser bundle, unmodified, in Chromium: a test page on another
 * origin initialises it against a running Burrow, captures, identifies, and the events
 * it sent (and Burrow acknowledged) are read back from the database.
 */
import { gunzipSync } from "node:zlib";
import { expect, test, type Page, type Request } from "@playwright/test";
import { createDeployment, personOf, storedEvents, waitFor, type DatabaseKind } from "./support/burrow";
import { servePostHogJsPage } from "./support/site";

/** A page server of the test's own (a different origin from Burrow's, so CORS applies). */
async function servePage(init: { key: string; apiHost: string; requestBatching: boolean }) {
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>Burrow SDK test page</title>
<script src="/posthog.js"></script>
<script>
  posthog.init(${JSON.stringify(init.key)}, {
    api_host: ${JSON.stringify(init.apiHost)},
    opt_out_useragent_filter: true,
    autocapture: false,
    capture_pageview: true,
    disable_session_recording: true,
    request_batching: ${init.requestBatching},
    loaded: function () { window.__posthogLoaded = true; },
  });
</script></head>
<body><h1>Shop</h1><button id="buy">Buy</button></body></html>`;
  const page = await servePostHogJsPage(html);
  return { url: `${page.origin}/shop?campaign=e2e`, close: page.close };
}

interface BrowserEvent {
  uuid: string;
  event: string;
  properties: Record<string, unknown>;
}

/** The events in one capture request body, whatever encoding posthog-js chose. */
function eventsInBody(request: Request): BrowserEvent[] {
  const raw = request.postDataBuffer();
  if (!raw) return [];
  const text = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw).toString("utf8") : raw.toString("utf8");
  let payload: unknown;
  if (text.startsWith("data=")) {
    const data = new URLSearchParams(text).get("data") ?? "";
    payload = JSON.parse(Buffer.from(data, "base64").toString("utf8"));
  } else payload = JSON.parse(text);
  const batch = Array.isArray(payload) ? payload : ((payload as { batch?: unknown[] }).batch ?? [payload]);
  return batch as BrowserEvent[];
}

const CAPTURE_PATHS = new Set(["/e/", "/e", "/i/v0/e/", "/i/v0/e", "/capture/", "/batch/", "/track/"]);

/** Watches what the page asks Burrow for: every request, and the capture bodies that got a 200. */
function watchBurrow(page: Page, burrowUrl: string) {
  const requested: string[] = [];
  const sent: BrowserEvent[] = [];
  const acknowledged: BrowserEvent[] = [];
  const failures: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(burrowUrl)) return;
    const url = new URL(request.url());
    requested.push(`${request.method()} ${url.pathname}`);
    if (CAPTURE_PATHS.has(url.pathname) && request.method() === "POST") sent.push(...eventsInBody(request));
  });
  page.on("response", async (response) => {
    const request = response.request();
    if (!request.url().startsWith(burrowUrl)) return;
    const url = new URL(request.url());
    const at = requested.lastIndexOf(`${request.method()} ${url.pathname}`);
    if (at !== -1) requested[at] += ` → ${response.status()}`;
    if (!CAPTURE_PATHS.has(url.pathname) || request.method() !== "POST") return;
    if (response.status() === 200) acknowledged.push(...eventsInBody(request));
    else failures.push(`${url.pathname} ${response.status()} ${await response.text().catch(() => "")}`);
  });
  page.on("requestfailed", (request) => {
    if (!request.url().startsWith(burrowUrl)) return;
    const url = new URL(request.url());
    const at = requested.lastIndexOf(`${request.method()} ${url.pathname}`);
    if (at !== -1) requested[at] += ` → ${request.failure()?.errorText}`;
    // Only capture must work; /flags and the remote config may be missing (no CORS on a 404).
    if (CAPTURE_PATHS.has(url.pathname)) failures.push(`${request.method()} ${request.url()} failed: ${request.failure()?.errorText}`);
  });
  return { requested, sent, acknowledged, failures };
}

const variants: Array<{ kind: DatabaseKind; requestBatching: boolean }> = [
  { kind: "postgres", requestBatching: false },
  { kind: "embedded", requestBatching: true },
];

for (const { kind, requestBatching } of variants) {
  test.describe(`posthog-js in Chromium against Burrow on the ${kind} database`, () => {
    test(`pageview, capture and identify (request_batching: ${requestBatching}) are stored, the anonymous person merged`, async ({ page }) => {
      test.setTimeout(90_000);
      const deployment = await createDeployment(kind);
      const server = await deployment.start();
      let serverRunning = true;
      const testPage = await servePage({ key: deployment.projectKey, apiHost: server.url, requestBatching });
      const email = `user-1-${kind}@example.com`;
      const watched = watchBurrow(page, server.url);
      let anonId = "";
      try {
        const consoleErrors: string[] = [];
        page.on("console", (message) => {
          if (message.type() === "error") consoleErrors.push(message.text());
        });
        await page.goto(testPage.url);
        await page.waitForFunction(() => (window as unknown as { __posthogLoaded?: boolean }).__posthogLoaded === true);
        anonId = await page.evaluate(() => (window as unknown as { posthog: { get_distinct_id(): string } }).posthog.get_distinct_id());
        expect(anonId).not.toBe("user-1");
        await page.evaluate(() => {
          (window as unknown as { posthog: { capture(name: string, props: object): void } }).posthog.capture("clicked", { button: "buy", price: 9.99, tags: ["a", "b"] });
        });
        await page.evaluate((email) => {
          (window as unknown as { posthog: { identify(id: string, props: object): void } }).posthog.identify("user-1", { email });
        }, email);
        expect(await page.evaluate(() => (window as unknown as { posthog: { get_distinct_id(): string } }).posthog.get_distinct_id())).toBe("user-1");

        // Burrow answers only after committing: a 200 for a body means its events are stored.
        await waitFor("Burrow to acknowledge $pageview, clicked and $identify", () => {
          const names = new Set(watched.acknowledged.map((e) => e.event));
          return ["$pageview", "clicked", "$identify"].every((name) => names.has(name)) ? true : undefined;
        }, 20_000).catch((error: Error) => {
          throw new Error(`${error.message}\nrequests: ${watched.requested.join("; ")}\nfailures: ${watched.failures.join("; ")}\nconsole: ${consoleErrors.join("; ")}`);
        });
        expect(watched.failures).toEqual([]);

        // Leaving the page: posthog-js sends $pageleave with navigator.sendBeacon (the body
        // encoded as for fetch; 1.449 falls back to base64 only if gzip fails). Beacons sent
        // while a page unloads are invisible to Playwright (and to CDP), so on PostgreSQL the
        // test waits for the row itself.
        if (kind === "postgres") {
          await page.goto("about:blank");
          await waitFor("the $pageleave beacon to be stored", async () => {
            const rows = await deployment.read((query) => query(`SELECT 1 FROM events WHERE project_id = $1 AND event = '$pageleave'`, [deployment.projectId]));
            return rows.length > 0 ? true : undefined;
          });
        }
        expect(watched.failures).toEqual([]);
        // The embedded database can be read only once the server has let go of it.
        if (kind === "embedded") {
          serverRunning = false;
          expect(await server.stop()).toBe(0);
        }

        const stored = await deployment.read(async (query) => ({
          events: await storedEvents(query, deployment.projectId),
          duplicates: await query(`SELECT uuid FROM events GROUP BY uuid HAVING count(*) > 1`),
          person: await personOf(query, deployment.projectId, "user-1"),
        }));
        console.log(`posthog-js (${kind}, request_batching: ${requestBatching}) asked Burrow for: ${watched.requested.join("; ")}`);

        // Everything acknowledged is stored once; nothing is stored that the page did not send.
        expect(stored.duplicates).toEqual([]);
        const storedUuids = stored.events.map((e) => e.uuid);
        for (const event of watched.acknowledged) expect(storedUuids, `${event.event} ${event.uuid}`).toContain(event.uuid.toLowerCase());
        const sentUuids = new Set(watched.sent.map((e) => e.uuid.toLowerCase()));
        for (const event of stored.events.filter((e) => e.event !== "$pageleave")) {
          expect(sentUuids.has(event.uuid), `stored ${event.event} ${event.uuid} was sent by the page`).toBe(true);
        }

        const one = (name: string) => {
          const matching = stored.events.filter((e) => e.event === name);
          expect(matching, name).toHaveLength(1);
          return matching[0]!;
        };
        const pageview = one("$pageview");
        const clicked = one("clicked");
        const identify = one("$identify");
        expect(pageview.distinct_id).toBe(anonId);
        expect(clicked.distinct_id).toBe(anonId);
        expect(identify.distinct_id).toBe("user-1");
        for (const event of [pageview, clicked, identify]) {
          expect(event.project_id).toBe(deployment.projectId);
          expect(event.historical_migration).toBe(false);
          expect(event.properties).toMatchObject({ $lib: "web", $lib_version: expect.any(String), $current_url: testPage.url, $ip: "127.0.0.1" });
          expect(event.properties.token).toBeUndefined();
          expect(Math.abs(event.timestamp.getTime() - Date.now())).toBeLessThan(60_000);
        }
        expect(pageview.properties).toMatchObject({ $pathname: "/shop", title: "Burrow SDK test page" });
        expect(clicked.properties).toMatchObject({ button: "buy", price: 9.99, tags: ["a", "b"] });
        expect(identify.properties).toMatchObject({ $anon_distinct_id: anonId, $set: { email } });
        if (kind === "postgres") {
          // The beacon, sent after identify, so as user-1.
          const leave = one("$pageleave");
          expect(leave.distinct_id).toBe("user-1");
          expect(leave.properties).toMatchObject({ $lib: "web", $current_url: testPage.url, $ip: "127.0.0.1", $prev_pageview_pathname: "/shop" });
        }

        // The anonymous person became user-1's: one person, both ids, identified, with the email;
        // the events sent before identify carry the same person_id.
        expect(stored.person).not.toBeNull();
        expect(stored.person!.distinct_ids.sort()).toEqual([anonId, "user-1"].sort());
        expect(stored.person!.is_identified).toBe(true);
        expect(stored.person!.properties).toMatchObject({ email });
        for (const event of stored.events.filter((e) => e.distinct_id === anonId || e.distinct_id === "user-1")) {
          expect(event.person_id, `${event.event}`).toBe(stored.person!.uuid);
        }
      } finally {
        await page.close();
        if (serverRunning) await server.stop();
        await testPage.close();
        await deployment.dispose();
      }
    });
  });
}
