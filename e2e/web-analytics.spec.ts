/**
 * Web analytics and the first run, end to end on a Burrow of this spec's own: Home waits for
 * a first event and sees the test event arrive; then a page holding nothing but PostHog's
 * HTML snippet — copied from the snippet page — is visited on two paths in Chromium, and the
 * visits show on /web (overview, live count, the Page tab with its bounce rates) and on Home;
 * then visits and autocaptured clicks on a host of their own, whose bounce rates and top
 * clicks are known by hand. Screenshots of both pages at desktop and phone widths, and an
 * axe check of /web. The snippet's page is served from 127.0.0.1, which the project's
 * default test account filters leave out: /web first says every visitor is a test account,
 * and "Filter out internal and test users" (on by default, off in the URL) brings them back.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { waitFor } from "./support/burrow";
import { expectNoHorizontalScroll, screenshot, servePostHogJsPage, useBootstrappedSite } from "./support/site";

const OWNER = { email: "web-owner@example.com", password: "web-owner-password-1" };
// posthog-js drops the events of browsers that look like bots: Headless Chrome's user agent
// and brands, and a navigator.webdriver that Playwright sets. The page keeps PostHog's snippet
// unchanged, so the browser passes for an ordinary Chrome instead.
const DESKTOP_CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

test.describe.configure({ mode: "serial" });

test.describe("web analytics and the first run", () => {
  const site = useBootstrappedSite(OWNER);

  async function pageviewCount(): Promise<number> {
    const response = await fetch(`${site.url}/api/projects/${site.projectId}/events/?event=%24pageview&limit=100`, {
      headers: { authorization: `Bearer ${site.personalKey}` },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { results: unknown[] }).results.length;
  }

  test("a fresh project: Home waits for the first event, /web says to install the snippet, and a test event arrives", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    const status = page.getByTestId("install-status");
    await expect(status).toHaveAttribute("data-state", "waiting");
    await expect(page.getByTestId("install-waiting")).toHaveText("Waiting for your first event…");
    await screenshot(page, "home-waiting-1280");

    await page.goto(`${site.url}/web`);
    await expect(page.getByTestId("web-analytics")).toHaveAttribute("data-state", "empty");
    await expect(page.getByTestId("web-empty")).toContainText("No pageviews yet — install the snippet");
    await screenshot(page, "web-empty-1280");
    await page.getByTestId("web-install-link").click();
    await expect(page).toHaveURL(/\/settings\/project#install$/);
    await expect(page.getByTestId("snippet-html")).toBeVisible();
    await screenshot(page, "snippet-page-1280");

    await page.goto(`${site.url}/`);
    await expect(status).toHaveAttribute("data-state", "waiting");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "home-waiting-390");
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByTestId("send-test-event").click();
    // Home notices by itself, no reload (the button's own "Sent" note goes with the waiting state).
    await expect(status).toHaveAttribute("data-state", "arrived");
    // It is a $test_event, which no count includes (issue 34): Home says so.
    await expect(page.getByTestId("home-latest-event")).toContainText("$test_event");
    await expect(page.getByTestId("home-test-event-note")).toContainText("Test events are left out");
    await expect(page.getByTestId("home-event-count")).toHaveAttribute("data-value", "0");
    await expect(page.getByTestId("home-visitor-count")).toHaveAttribute("data-value", "0");
    await screenshot(page, "home-arrived-1280");
    expect(await pageviewCount()).toBe(0);
  });

  test("a page with only PostHog's snippet, from the snippet page, produces visits on /web and Home", async ({ browser, page }) => {
    test.setTimeout(180_000);
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/settings/project#install`);
    const snippet = (await page.getByTestId("snippet-html").textContent()) ?? "";
    expect(snippet).toContain(`api_host: '${site.url}'`);
    expect(snippet).toContain(`posthog.init('${site.projectKey}'`);

    const html = `<!doctype html>\n<html><head><meta charset="utf-8"><title>Shop</title>\n${snippet}\n</head><body><h1>Shop</h1></body></html>`;
    const shop = await servePostHogJsPage(html);
    const shopHost = new URL(shop.origin).host;
    const visitor = await browser.newContext({ userAgent: DESKTOP_CHROME, viewport: { width: 1280, height: 800 } });
    await visitor.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, "webdriver", { get: () => false });
      Object.defineProperty(Navigator.prototype, "userAgentData", { get: () => undefined });
    });
    try {
      const tab = await visitor.newPage();
      for (const path of ["/shop", "/shop/checkout"]) {
        // posthog-js batches for a few seconds: wait until Burrow has acknowledged this page's $pageview.
        const captured = tab.waitForResponse(
          (response) => response.url().startsWith(site.url) && response.request().method() === "POST" && /^\/(e|i\/v0\/e|batch|capture)\/?$/.test(new URL(response.url()).pathname),
          { timeout: 30_000 },
        );
        await tab.goto(`${shop.origin}${path}`);
        expect((await captured).status()).toBe(200);
      }
      await waitFor("both pageviews stored", async () => ((await pageviewCount()) >= 2 ? true : undefined));
    } finally {
      await visitor.close();
      await shop.close();
    }

    // Every visit so far came from 127.0.0.1: a test account by the project's default filters.
    // (Over the last 24 hours: the server keeps answers a minute, and the 7 days are read again below.)
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${site.url}/web?date_from=-24h`);
    await expect(page.getByTestId("web-analytics")).toHaveAttribute("data-state", "ready");
    const toggle = page.getByTestId("filter-test-accounts");
    await expect(toggle).toHaveAttribute("aria-checked", "true");
    await expect(page.getByTestId("test-accounts-hint")).toHaveText("2 filters from the project settings.");
    const notice = page.getByTestId("web-test-accounts-notice");
    await expect(notice).toContainText("No visitors in the last 24 hours once internal and test users are left out");
    await expect(page.getByTestId("web-overview-visitors")).toHaveAttribute("data-value", "0");
    await screenshot(page, "web-only-test-accounts-1280");
    await notice.getByTestId("web-include-test-accounts").click();
    await expect(page).toHaveURL(/filter_test_accounts=false/);
    await expect(toggle).toHaveAttribute("aria-checked", "false");
    await expect(notice).toHaveCount(0);
    await expect(page.getByTestId("web-table-paths").getByTestId("web-table-value").filter({ hasText: /^\/shop$/ })).toBeVisible();
    await expect(page.getByTestId("web-overview-visitors")).toHaveAttribute("data-value", "1");

    // A visitor of twelve more pages (through /batch/, on another host), so the Page table pages;
    // /z-01 three times, so that ordering by views moves it.
    const sessionId = "019ab000-0000-7000-8000-000000000001";
    const batch = ["/z-01", "/z-01", ...Array.from({ length: 12 }, (_, index) => `/z-${String(index + 1).padStart(2, "0")}`)].map((path, index) => {
      const timestamp = new Date(Date.now() - (14 - index) * 1000).toISOString();
      return { event: "$pageview", distinct_id: "batch-visitor", timestamp, properties: { $host: "batch.example", $pathname: path, $current_url: `https://batch.example${path}`, $session_id: sessionId } };
    });
    // And a visitor who saw "/" only: a bounced session.
    batch.push({
      event: "$pageview",
      distinct_id: "bouncer",
      timestamp: new Date(Date.now() - 20_000).toISOString(),
      properties: { $host: "batch.example", $pathname: "/", $current_url: "https://batch.example/", $session_id: "019ab000-0000-7000-8000-000000000002" },
    });
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(sent.status).toBe(200);

    // The switch on again (a new visit, without the URL's filter): the batch's visitors, not the shop's.
    await page.goto(`${site.url}/web`);
    await expect(page.getByTestId("web-analytics")).toHaveAttribute("data-state", "ready");
    await expect(toggle).toHaveAttribute("aria-checked", "true");
    const table = page.getByTestId("web-table-paths");
    await expect(table.getByTestId("web-table-value").filter({ hasText: /^\/z-01$/ })).toBeVisible();
    await expect(table.getByTestId("web-table-value").filter({ hasText: /^\/shop$/ })).toHaveCount(0);
    await expect(page.getByTestId("web-overview-visitors")).toHaveAttribute("data-value", "2");
    await expect(notice).toHaveCount(0);
    await screenshot(page, "web-without-test-accounts-1280");
    // Off from the keyboard: the shop's visits count again, for the rest of this test.
    await toggle.focus();
    await page.keyboard.press("Space");
    await expect(page).toHaveURL(/filter_test_accounts=false/);
    await expect(page.getByTestId("web-overview-visitors")).toHaveAttribute("data-value", "3");
    await expectOverview(page);
    await expect(table.getByRole("tab", { name: "Page" })).toHaveAttribute("aria-selected", "true");
    await expect(table.getByTestId("web-table-value").filter({ hasText: /^\/shop$/ })).toBeVisible();
    await expect(table.getByTestId("web-table-value").filter({ hasText: /^\/shop\/checkout$/ })).toBeVisible();
    const live = page.getByTestId("live-visitors");
    await expect(live).toHaveAttribute("data-state", "ready");
    expect(Number(await live.getAttribute("data-visitors"))).toBeGreaterThanOrEqual(2);
    await expect(page.getByTestId("web-chart")).toHaveAttribute("data-state", "ready");
    // Nobody has clicked anything yet: the top clicks card says where clicks come from.
    const clicks = page.getByTestId("web-top-clicks");
    await expect(clicks).toHaveAttribute("data-state", "empty");
    await expect(clicks).toContainText("No clicks yet");
    await expect(clicks).toContainText("autocapture");
    await screenshot(page, "web-1280");
    // Ten rows at first; "Show more" brings the rest (visitors, views, then the path, in order).
    await expect(table.getByTestId("web-table-row")).toHaveCount(10);
    await table.getByTestId("web-table-more").click();
    await expect(table.getByTestId("web-table-row")).toHaveCount(15);
    await expect(table.getByTestId("web-table-value").filter({ hasText: /^\/z-12$/ })).toBeVisible();
    await expect(table.getByTestId("web-table-more")).toHaveCount(0);
    await expectNoHorizontalScroll(page);

    // The figures' headers order the table (kept in the URL): Views from the most, then the fewest.
    const values = table.getByTestId("web-table-value");
    const [visitorsHeader, viewsHeader] = [table.getByRole("columnheader", { name: "Visitors" }), table.getByRole("columnheader", { name: "Views" })];
    await expect(values.first()).toHaveText("/z-01");
    await expect(visitorsHeader).toHaveAttribute("aria-sort", "descending");
    await expect(viewsHeader).toHaveAttribute("aria-sort", "none");
    await table.getByTestId("web-sort-Views").click();
    await expect(page).toHaveURL(/order=views-desc/);
    await expect(viewsHeader).toHaveAttribute("aria-sort", "descending");
    await expect(visitorsHeader).toHaveAttribute("aria-sort", "none");
    await expect(values.first()).toHaveText("/z-01");
    await table.getByTestId("web-sort-Views").click();
    await expect(page).toHaveURL(/order=views-asc/);
    await expect(viewsHeader).toHaveAttribute("aria-sort", "ascending");
    // Fifteen rows still, /z-01 (three views) last; the others tie at one visitor and one view, by path.
    await expect(table.getByTestId("web-table").first()).toHaveAttribute("data-state", "ready");
    await expect(values).toHaveCount(15);
    await expect(values.last()).toHaveText("/z-01");
    await expect(values.first()).toHaveText("/");
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "web-sorted-1280");
    // From the keyboard, the focus staying on the header.
    await table.getByTestId("web-sort-Views").focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/order=views-desc/);
    await expect(values.first()).toHaveText("/z-01");
    await expect(table.getByTestId("web-sort-Views")).toBeFocused();
    // Visitors, descending, is the default again: out of the URL.
    await table.getByTestId("web-sort-Visitors").click();
    await expect(page).not.toHaveURL(/order=/);
    await expect(visitorsHeader).toHaveAttribute("aria-sort", "descending");

    // Bounce rate, on the Entry tab (the Page tab has none: web-query.ts says why): the rate of
    // the sessions that began on each page. The bouncer's session ("/", one view) bounced;
    // the snippet's (/shop, then /shop/checkout) and the batch's (/z-01 first, fourteen views) did not.
    await expect(table.getByTestId("web-sort-BounceRate")).toHaveCount(0);
    await table.getByRole("tab", { name: "Entry" }).click();
    await expect(table.getByTestId("web-table")).toHaveAttribute("data-breakdown", "InitialPage");
    await expect(table.getByTestId("web-table")).toHaveAttribute("data-state", "ready");
    const rates = table.getByTestId("web-table-bounce-rate");
    const bounceHeader = table.getByRole("columnheader", { name: "Bounce rate" });
    await expect(bounceHeader).toHaveAttribute("aria-sort", "none");
    await table.getByTestId("web-sort-BounceRate").click();
    await expect(page).toHaveURL(/order=bounce-rate-desc/);
    await expect(bounceHeader).toHaveAttribute("aria-sort", "descending");
    await expect(table.getByRole("columnheader", { name: "Visitors" })).toHaveAttribute("aria-sort", "none");
    // The highest first, ties in the default order (/z-01's session has more views).
    await expect(values).toHaveText(["/", "/z-01", "/shop"]);
    await expect(rates).toHaveText(["100%", "0%", "0%"]);
    // From the keyboard: the lowest first.
    await table.getByTestId("web-sort-BounceRate").focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/order=bounce-rate-asc/);
    await expect(bounceHeader).toHaveAttribute("aria-sort", "ascending");
    await expect(values).toHaveText(["/z-01", "/shop", "/"]);
    await expect(rates).toHaveText(["0%", "0%", "100%"]);
    await expect(table.getByTestId("web-sort-BounceRate")).toBeFocused();
    // The Page tab keeps its default order meanwhile.
    await table.getByRole("tab", { name: "Page" }).click();
    await expect(table.getByTestId("web-table")).toHaveAttribute("data-breakdown", "Page");
    await expect(visitorsHeader).toHaveAttribute("aria-sort", "descending");
    await expect(values.first()).toHaveText("/z-01");
    // The tables without the column keep their own default order meanwhile.
    const devices = page.getByTestId("web-table-devices");
    await expect(devices.getByTestId("web-table")).toHaveAttribute("data-state", "ready");
    await expect(devices.getByTestId("web-sort-BounceRate")).toHaveCount(0);
    await expect(devices.getByRole("columnheader", { name: "Visitors" })).toHaveAttribute("aria-sort", "descending");
    // A click on a header orders by what the table shows: Visitors, descending here, flips; once more is the default again.
    await table.getByTestId("web-sort-Visitors").click();
    await expect(page).toHaveURL(/order=visitors-asc/);
    await table.getByTestId("web-sort-Visitors").click();
    await expect(page).not.toHaveURL(/order=/);

    // The tabs are a tablist: the arrow keys move between them.
    await table.getByRole("tab", { name: "Page" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect(table.getByRole("tab", { name: "Entry" })).toBeFocused();
    await expect(table.getByRole("tab", { name: "Entry" })).toHaveAttribute("aria-selected", "true");
    await expect(table.getByTestId("web-table-value").filter({ hasText: /^\/shop$/ })).toBeVisible();

    const axe = await new AxeBuilder({ page }).include('[data-testid="web-analytics"]').analyze();
    const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);

    // Filters live in the URL: Back undoes them.
    await page.getByTestId("web-filter-date").selectOption("-30d");
    await expect(page).toHaveURL(/date_from=-30d/);
    await page.getByTestId("web-filter-path").fill("/shop/checkout");
    await page.getByTestId("web-filter-path").press("Enter");
    await expect(page).toHaveURL(/path=%2Fshop%2Fcheckout/);
    await expect(table.getByTestId("web-table-value")).toHaveCount(1);
    await page.goBack();
    await expect(page).not.toHaveURL(/path=/);
    await expect(page.getByTestId("web-filter-path")).toHaveValue("");
    await expect(page.getByTestId("web-filter-date")).toHaveValue("-30d");
    await page.goBack();
    await expect(page.getByTestId("web-filter-date")).toHaveValue("-7d");
    // The host select offers the hosts pageviews came from: the shop's and the batch's (not Burrow's own: the test event is no pageview).
    const hostSelect = page.getByTestId("web-filter-host");
    await expect.poll(() => hostSelect.locator("option").allTextContents()).toEqual(expect.arrayContaining(["All hosts", shopHost]));
    await hostSelect.selectOption(shopHost);
    await expect(page).toHaveURL(new RegExp(`host=${encodeURIComponent(shopHost)}`));
    await expect(table.getByTestId("web-table-value").filter({ hasText: /^\/$/ })).toHaveCount(0);
    await expect(table.getByTestId("web-table-value").filter({ hasText: /^\/shop$/ })).toBeVisible();
    await expect(clicks).toHaveAttribute("data-state", "empty");

    await page.setViewportSize({ width: 390, height: 844 });
    await expectOverview(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "web-390");
    await expectNoHorizontalScroll(page);
    // The switch on a phone: on again, the shop's own host has no visitor left.
    await toggle.scrollIntoViewIfNeeded();
    await toggle.click();
    await expect(page).not.toHaveURL(/filter_test_accounts/);
    await expect(page).toHaveURL(new RegExp(`host=${encodeURIComponent(shopHost)}`));
    await expect(page.getByTestId("web-test-accounts-notice")).toBeVisible();
    await screenshot(page, "web-test-accounts-390", { fullPage: false });
    await expectNoHorizontalScroll(page);

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${site.url}/`);
    await expect(page.getByTestId("install-status")).toHaveAttribute("data-state", "arrived");
    await expect(page.getByTestId("install-waiting")).toHaveCount(0);
    await expect.poll(async () => Number(await page.getByTestId("home-event-count").getAttribute("data-value"))).toBeGreaterThanOrEqual(3);
    await expect.poll(async () => Number(await page.getByTestId("home-visitor-count").getAttribute("data-value"))).toBeGreaterThanOrEqual(2);
    await screenshot(page, "home-arrived-after-snippet-1280");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "home-arrived-390");
  });

  test("bounce rates by page and the top clicks, on visits to a host of their own whose figures are known by hand", async ({ page }) => {
    test.setTimeout(120_000);
    /*
     * Seven visitors of landing.example, a session each, a second between steps (no session
     * lasts 10 s, so only a second view or an autocaptured event saves one from bouncing):
     * began on /landing: two bounced, two did not → 50%; on /pricing: neither bounced → 0%;
     * on /about: bounced → 100%; none began on /docs → no rate.
     * Clicks: "Buy now" three times by two visitors, "Docs" and "Sign up" once each; a
     * submit is not a click.
     */
    const host = "landing.example";
    const sessions: [kind: "view" | "click" | "submit", value: string][][] = [
      [["view", "/landing"]],
      [["view", "/landing"]],
      [["view", "/landing"], ["click", "Buy now"], ["click", "Buy now"]],
      [["view", "/landing"], ["click", "Docs"], ["view", "/docs"]],
      [["view", "/pricing"], ["click", "Buy now"], ["click", "Sign up"], ["submit", "Subscribe"]],
      [["view", "/pricing"], ["view", "/pricing"]],
      [["view", "/about"]],
    ];
    const start = Date.now() - 10 * 60_000;
    const batch = sessions.flatMap((steps, visitor) => {
      const sessionId = `019ab000-0000-7000-8000-00000000020${visitor}`;
      let pathname = "";
      return steps.map(([kind, value], step) => {
        if (kind === "view") pathname = value;
        const common = { $host: host, $pathname: pathname, $current_url: `https://${host}${pathname}`, $session_id: sessionId };
        return {
          event: kind === "view" ? "$pageview" : "$autocapture",
          distinct_id: `landing-visitor-${visitor}`,
          timestamp: new Date(start + visitor * 60_000 + step * 1000).toISOString(),
          properties: kind === "view" ? common : { ...common, $event_type: kind, $el_text: value },
        };
      });
    });
    // And a visitor who saw "/" only: a bounced session.
    batch.push({
      event: "$pageview",
      distinct_id: "bouncer",
      timestamp: new Date(Date.now() - 20_000).toISOString(),
      properties: { $host: "batch.example", $pathname: "/", $current_url: "https://batch.example/", $session_id: "019ab000-0000-7000-8000-000000000002" },
    });
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(sent.status).toBe(200);

    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/web?host=${host}`);
    await expect(page.getByTestId("web-analytics")).toHaveAttribute("data-state", "ready");
    const table = page.getByTestId("web-table-paths");
    const values = table.getByTestId("web-table-value");
    const rates = table.getByTestId("web-table-bounce-rate");
    await expect(table.getByTestId("web-table")).toHaveAttribute("data-state", "ready");
    await expect(values).toHaveText(["/landing", "/pricing", "/about", "/docs"]);
    await expect(table.getByTestId("web-table-visitors")).toHaveText(["4", "2", "1", "1"]);
    await expect(rates).toHaveCount(0);
    // The Entry tab: the sessions that began on each page (none began on /docs).
    await table.getByRole("tab", { name: "Entry" }).click();
    await expect(table.getByTestId("web-table")).toHaveAttribute("data-breakdown", "InitialPage");
    await expect(values).toHaveText(["/landing", "/pricing", "/about"]);
    await expect(rates).toHaveText(["50%", "0%", "100%"]);

    const clicks = page.getByTestId("web-top-clicks");
    await expect(clicks).toHaveAttribute("data-state", "ready");
    await expect(clicks.getByTestId("web-top-click-text")).toHaveText(["Buy now", "Docs", "Sign up"]);
    await expect(clicks.getByTestId("web-top-click-clicks")).toHaveText(["3", "1", "1"]);
    await expect(clicks.getByTestId("web-top-click-visitors")).toHaveText(["2", "1", "1"]);
    await screenshot(page, "web-bounce-1280");

    await table.getByTestId("web-sort-BounceRate").click();
    await expect(page).toHaveURL(/order=bounce-rate-desc/);
    await expect(page).toHaveURL(/host=landing\.example/);
    await expect(values).toHaveText(["/about", "/landing", "/pricing"]);
    await expect(rates).toHaveText(["100%", "50%", "0%"]);
    await table.getByTestId("web-sort-BounceRate").click();
    await expect(page).toHaveURL(/order=bounce-rate-asc/);
    await expect(values).toHaveText(["/pricing", "/landing", "/about"]);
    await expect(rates).toHaveText(["0%", "50%", "100%"]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "web-bounce-sorted-1280");

    // Exit paths have no column, and their default order.
    await table.getByRole("tab", { name: "Exit" }).click();
    await expect(table.getByTestId("web-table")).toHaveAttribute("data-breakdown", "ExitPage");
    await expect(table.getByRole("columnheader", { name: "Visitors" })).toHaveAttribute("aria-sort", "descending");
    await expect(table.getByTestId("web-sort-BounceRate")).toHaveCount(0);
    await expect(rates).toHaveCount(0);

    // The top clicks follow the path filter: on /pricing, one "Buy now" and one "Sign up".
    await page.getByTestId("web-filter-path").fill("/pricing");
    await page.getByTestId("web-filter-path").press("Enter");
    await expect(page).toHaveURL(/path=%2Fpricing/);
    await expect(clicks).toHaveAttribute("data-state", "ready");
    await expect(clicks.getByTestId("web-top-click-text")).toHaveText(["Buy now", "Sign up"]);
    await expect(clicks.getByTestId("web-top-click-clicks")).toHaveText(["1", "1"]);
    await expect(clicks.getByTestId("web-top-click-visitors")).toHaveText(["1", "1"]);
    // On /about, nobody clicked.
    await page.getByTestId("web-filter-path").fill("/about");
    await page.getByTestId("web-filter-path").press("Enter");
    await expect(clicks).toHaveAttribute("data-state", "empty");
    await expect(clicks).toContainText("No clicks yet");

    await page.goto(`${site.url}/web?host=${host}`);
    await expect(clicks).toHaveAttribute("data-state", "ready");
    await table.getByRole("tab", { name: "Entry" }).click();
    await expect(rates).toHaveText(["50%", "0%", "100%"]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "web-bounce-390");
    await expectNoHorizontalScroll(page);
    // The short header on a phone keeps its whole name for assistive technology.
    await expect(table.getByRole("columnheader", { name: "Bounce rate" })).toBeVisible();
  });

  test("the project's data collection: enrichment is on until an admin turns it off, from the keyboard too", async ({ page }) => {
    const project = async () => {
      const response = await fetch(`${site.url}/api/projects/${site.projectId}/`, { headers: { authorization: `Bearer ${site.personalKey}` } });
      expect(response.status).toBe(200);
      return (await response.json()) as { enrich_events: boolean; anonymize_ips: boolean };
    };
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/settings/project`);
    const enrich = page.getByTestId("setting-enrich_events");
    await expect(enrich).toHaveAttribute("aria-checked", "true");
    await expect(page.getByTestId("setting-anonymize_ips")).toHaveAttribute("aria-checked", "false");
    await enrich.click();
    await expect(enrich).toHaveAttribute("aria-checked", "false");
    expect(await project()).toMatchObject({ enrich_events: false, anonymize_ips: false });
    await screenshot(page, "data-collection-1280");
    await enrich.focus();
    await page.keyboard.press("Space");
    await expect(enrich).toHaveAttribute("aria-checked", "true");
    expect(await project()).toMatchObject({ enrich_events: true });
  });
});

async function expectOverview(page: Page) {
  const overview = page.getByTestId("web-overview");
  await expect(overview).toHaveAttribute("data-state", "ready");
  await expect(page.getByTestId("web-overview-visitors")).not.toHaveAttribute("data-value", "");
  expect(Number(await page.getByTestId("web-overview-visitors").getAttribute("data-value"))).toBeGreaterThanOrEqual(1);
  expect(Number(await page.getByTestId("web-overview-views").getAttribute("data-value"))).toBeGreaterThanOrEqual(2);
  for (const key of ["visitors", "views", "sessions", "session-duration", "bounce-rate"]) {
    const card = page.getByTestId(`web-overview-${key}`);
    await expect(card).toBeVisible();
    // Every figure has its line: visitors, views and sessions from the graph's query, session
    // duration and bounce rate from the session-property one.
    await expect(card.getByTestId("overview-sparkline")).toBeVisible();
    expect(Number(await card.getByTestId("overview-sparkline").getAttribute("data-points"))).toBeGreaterThanOrEqual(1);
  }
}
