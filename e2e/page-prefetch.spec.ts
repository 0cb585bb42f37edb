/**
 * Signed-in pages come with their data (issue 34, 8): each page's server render prefetches its
 * first queries (src/trpc/server.ts), so the HTML already holds the content — shown here with
 * JavaScript off — and the browser, once it runs, asks none of them again (the keys it builds
 * match the server's).
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { useBootstrappedSite } from "./support/site";

const OWNER = { email: "prefetch@example.com", password: "prefetch-password-123" };

/** Each page, a text its server HTML must hold (and one it must not), and the procedures whose answers came with it. */
const PAGES: readonly { path: string; text: string; absent?: string; procedures: readonly string[] }[] = [
  { path: "/dashboards", text: "Launch metrics board", procedures: ["dashboards.list", "dashboards.tags"] },
  { path: "/feature-flags", text: "prefetched-checkout-flag", procedures: ["flags.list"] },
  { path: "/actions", text: "Completed a checkout", procedures: ["actions.list"] },
  { path: "/persons", text: "buyer-1", procedures: ["persons.list"] },
  // Both sections: the list (empty) and the shared metrics (none).
  { path: "/experiments", text: "None yet: add one below", procedures: ["experiments.list", "experiments.savedMetrics"] },
  { path: "/events", text: "checkout completed", procedures: ["events.list", "events.count", "events.cohorts"] },
  // The URL's filters, read on the server as the browser reads them.
  { path: "/events?event=%24pageview", text: "/pricing", absent: "checkout completed", procedures: ["events.list", "events.count"] },
  // Home's counts (query.run) are keyed on the newest event, a key of Home's own over the procedure.
  { path: "/", text: "Launch metrics board", procedures: ["dashboards.list", "insights.list", "system.status", "query.run"] },
  // The tiles: in the HTML when answered in time, else streamed after it; either way never asked again.
  { path: "/web", text: "Web analytics", procedures: ["query.run"] },
  // It says what time it is in the project's zone: the browser's minute, not the server's.
  { path: "/settings/project", text: "Test account filters", procedures: ["account.project", "recordings.settings"] },
];

test.describe("pages prefetched on the server", () => {
  const site = useBootstrappedSite(OWNER);

  /** When "checkout completed" happened (whole seconds: the table shows seconds). */
  const checkoutAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);

  test.beforeAll(async () => {
    const now = Date.now();
    const batch = [
      { event: "checkout completed", distinct_id: "buyer-1", timestamp: checkoutAt.toISOString(), properties: { amount: 12 } },
      { event: "$pageview", distinct_id: "buyer-1", timestamp: new Date(now - 120_000).toISOString(), properties: { $current_url: "https://shop.example/pricing", $pathname: "/pricing" } },
    ];
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(sent.status).toBe(200);
    const headers = { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" };
    const api = `${site.url}/api/projects/${site.projectId}`;
    for (const [path, body] of [
      ["dashboards/", { name: "Launch metrics board" }],
      ["feature_flags/", { key: "prefetched-checkout-flag", filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }],
      ["actions/", { name: "Completed a checkout", steps: [{ event: "checkout completed" }] }],
    ] as const) {
      const created = await fetch(`${api}/${path}`, { method: "POST", headers, body: JSON.stringify(body) });
      expect(created.status, await created.text()).toBe(201);
    }
    // The events are written by a background writer: wait until the list has them.
    await expect
      .poll(async () => ((await (await fetch(`${api}/events/`, { headers })).json()) as { results: unknown[] }).results.length, { timeout: 15_000 })
      .toBe(2);
  });

  async function signedInWithoutScripts(browser: Browser): Promise<Page> {
    const signingIn = await browser.newContext();
    await signIn(await signingIn.newPage(), OWNER, site.url);
    const storageState = await signingIn.storageState();
    await signingIn.close();
    const context = await browser.newContext({ javaScriptEnabled: false, storageState });
    return context.newPage();
  }

  test("with JavaScript off, each page's HTML holds its data", async ({ browser }) => {
    const page = await signedInWithoutScripts(browser);
    for (const { path, text, absent } of PAGES) {
      const response = await page.goto(`${site.url}${path}`);
      expect(response?.status(), path).toBe(200);
      // Text outside scripts (the data also rides along in the RSC payload's <script>s, which
      // getByText skips). A page whose content sits in a <Suspense> (useSearchParams) streams
      // it later in the same HTML, in a hidden <div> that React's inline script swaps in:
      // present, but only shown with JavaScript on.
      await expect(page.getByText(text).first(), path).toBeAttached();
      if (absent) await expect(page.getByText(absent), path).toHaveCount(0);
    }
    // The project itself comes with the layout, as before.
    await expect(page.getByTestId("current-project-name")).not.toHaveText("Loading…");
    await page.context().close();
  });

  test("analytics answered within a moment are drawn in the HTML itself, not streamed after it", async ({ browser }) => {
    const page = await signedInWithoutScripts(browser);
    // Home's counts and /web's tiles are waited for (streamed, they made hydration mismatch the
    // HTML on a slow machine). Without scripts nothing swaps skeletons for data, so what shows
    // is what the HTML held.
    const drawn = async (path: string, testId: string, text: string) => {
      await expect
        .poll(
          async () => {
            await page.goto(`${site.url}${path}`);
            // Attached, not visible: /web's content sits in a <Suspense> (see above).
            const found = page.getByTestId(testId).first();
            return (await found.count()) > 0 && ((await found.textContent()) ?? "").includes(text);
          },
          { message: `${path}: ${testId} in the HTML`, timeout: 30_000 },
        )
        .toBe(true);
    };
    await drawn("/", "home-event-count", "2");
    await drawn("/", "home-visitor-count", "1");
    await drawn("/web", "web-table-paths", "/pricing");
    await page.context().close();
  });

  test("with JavaScript on, the browser asks none of the prefetched queries again", async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, OWNER, site.url);
    const asked: string[] = [];
    page.on("request", (request) => {
      const match = /\/api\/trpc\/([^?]+)/.exec(request.url());
      if (match) asked.push(...decodeURIComponent(match[1]!).split(","));
    });
    for (const { path, text, procedures } of PAGES) {
      asked.length = 0;
      await page.goto(`${site.url}${path}`);
      await expect(page.locator("main"), path).toContainText(text);
      // Hydrated, and past the moment its queries would have gone out.
      await page.waitForLoadState("networkidle");
      for (const procedure of procedures) expect(asked, `${path} asked ${procedure} again`).not.toContain(procedure);
    }
    await context.close();
  });

  test("outside UTC, with a clock minutes off the server's, the server's HTML hydrates without a mismatch and then shows the reader's time", async ({ browser }) => {
    const context = await browser.newContext({ timezoneId: "America/New_York" });
    const page = await context.newPage();
    // A page drawn by the server at 14:05 and hydrated at 14:06 (a slow machine) must not
    // differ: on a mismatch React throws the server's HTML away and draws the page again, and
    // an element found before then is gone.
    await page.clock.setFixedTime(new Date(Date.now() + 7 * 60_000));
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await signIn(page, OWNER, site.url);
    // The pages above, then every other page whose server render prefetches (its <h1> shown).
    const others = ["/cohorts", "/destinations", "/early-access", "/insights", "/pipeline", "/replay", "/sql", "/surveys", "/settings/organization"];
    for (const { path, text } of [...PAGES, ...others.map((path) => ({ path, text: null }))]) {
      errors.length = 0;
      await page.goto(`${site.url}${path}`);
      if (text === null) await expect(page.locator("main h1"), path).toBeVisible();
      else await expect(page.locator("main"), path).toContainText(text);
      await page.waitForLoadState("networkidle");
      // React's error 418: the text the browser rendered at hydration differs from the server's.
      expect(errors, path).toEqual([]);
    }
    await page.goto(`${site.url}/events`);
    const local = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "medium", timeZone: "America/New_York" }).format(checkoutAt);
    await expect(page.locator("tr", { hasText: "checkout completed" }).locator("time")).toHaveText(local);
    await context.close();
  });
});
