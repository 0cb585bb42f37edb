/**
 * Dashboards an analyst works in (issue 20), at 1280×800 and 390×844: a dashboard-wide date
 * filter that lives in the URL (reload, back/forward) until saved, shown in every tile's
 * caption; a Markdown text tile whose hostile payloads stay inert; tiles moved and removed
 * with no holes left, on the page and on the public share page; a throttled network that
 * shows chart-shaped skeletons (one request for all tiles), not a spinner per tile; and axe
 * finding no serious accessibility violation on the dashboard page. "Internal and test
 * users" for every tile (or each insight's own), in the URL, saved, and said while the project
 * has no test account filters.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { signIn } from "./support/accounts";
import { expectNoHorizontalScroll, screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@dashboard-filters.test", password: "owner-password-123" };
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const MARKDOWN = [
  "# Weekly notes",
  "",
  "Read **this** first.",
  "",
  "- first item",
  "- second item",
  "",
  "[Docs](https://example.com/docs) and [bad](javascript:window.__xss=1)",
  "",
  '<img src="x" onerror="window.__xss=1"> <script>window.__xss=1</script>',
].join("\n");

test.describe("dashboard filters, grid and text tiles", () => {
  const site = useBootstrappedSite(OWNER);
  let dashboardId = 0;

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${site.url}/api/projects/${site.projectId}/${path}`, {
      method,
      headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.status, text).toBeLessThan(300);
    return JSON.parse(text) as Record<string, any>;
  };

  test.beforeAll(async () => {
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();
    const batch = [
      ...[1, 1, 2].map((days) => ({ event: "$pageview", distinct_id: "ann", timestamp: at(days), properties: { $pathname: "/", $browser: "Chrome" } })),
      ...[20, 21].map((days) => ({ event: "$pageview", distinct_id: "ben", timestamp: at(days), properties: { $pathname: "/docs", $browser: "Safari" } })),
    ].map((event) => ({ uuid: randomUUID(), ...event }));
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(sent.status).toBe(200);
    const dashboard = await api("POST", "dashboards/", { use_template: "DEFAULT_APP", name: "Shop analytics" });
    dashboardId = dashboard.id;
    await api("PATCH", `dashboards/${dashboardId}/`, { tiles: [{ text: { body: MARKDOWN } }] });
  });

  async function openDashboard(page: Page, query = "") {
    await page.goto(`${site.url}/dashboards/${dashboardId}${query}`);
    await expect(page.getByTestId("dashboard-title")).toHaveText("Shop analytics");
    await expect(page.locator('[data-testid="tile-body"]:not([data-state="loading"])')).toHaveCount(4, { timeout: 30_000 });
  }

  const captions = (page: Page) => page.getByTestId("tile-filters");

  test("a date filter lives in the URL across reloads and back/forward, then is saved; tiles caption it; axe is clean", async ({ page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(DESKTOP);
    await signIn(page, OWNER, site.url);
    await openDashboard(page);
    const before = await captions(page).allInnerTexts();
    expect(before.every((caption) => !caption.includes("Last 14 days"))).toBe(true);
    await expect(page.getByTestId("tile-computed-at").first()).toHaveText(/^Computed (just now|\d+ min ago)$/);

    await page.getByTestId("dashboard-date-range").selectOption("-14d");
    await expect(page).toHaveURL(/date_from=-14d/);
    await expect(page.getByTestId("filters-unsaved")).toBeVisible();
    await expect(captions(page).first()).toHaveText(/^Last 14 days/);
    await expect(page.locator('[data-testid="tile-body"]:not([data-state="loading"])')).toHaveCount(4, { timeout: 30_000 });
    await expect(captions(page)).toHaveText(Array(4).fill(/^Last 14 days/));

    // The caption opens to list what the tile is computed under.
    await captions(page).first().click();
    await expect(page.getByTestId("tile-filters-panel").first()).toContainText("Date range: Last 14 days");
    await screenshot(page, "01-date-filter-in-url");
    await page.keyboard.press("Escape");

    await page.reload();
    await expect(page).toHaveURL(/date_from=-14d/);
    await expect(page.getByTestId("dashboard-date-range")).toHaveValue("-14d");
    await expect(captions(page)).toHaveText(Array(4).fill(/^Last 14 days/), { timeout: 30_000 });

    await page.goBack();
    await expect(page).not.toHaveURL(/date_from/);
    await expect(page.getByTestId("dashboard-date-range")).toHaveValue("");
    await expect(captions(page)).toHaveText(before, { timeout: 30_000 });
    await page.goForward();
    await expect(page.getByTestId("dashboard-date-range")).toHaveValue("-14d");

    await page.getByTestId("save-filters").click();
    await expect(page).not.toHaveURL(/date_from/);
    await expect(page.getByTestId("filters-unsaved")).toHaveCount(0);
    await page.reload();
    await expect(page.getByTestId("dashboard-date-range")).toHaveValue("-14d");
    await expect(captions(page)).toHaveText(Array(4).fill(/^Last 14 days/), { timeout: 30_000 });
    expect((await api("GET", `dashboards/${dashboardId}/`)).filters).toMatchObject({ date_from: "-14d", date_to: null, properties: [] });

    // A property filter, ANDed with each tile's own: in the URL, in the captions.
    await page.getByTestId("add-dashboard-filter").click();
    const row = page.getByTestId("dashboard-filter-row");
    await row.getByTestId("property-key").fill("$browser");
    await row.getByTestId("property-value").fill("Chrome");
    await page.getByTestId("apply-dashboard-filters").click();
    await expect(page).toHaveURL(/properties=.*%24browser/);
    await expect(captions(page)).toHaveText(Array(4).fill("Last 14 days · 1 filter"), { timeout: 30_000 });
    await captions(page).first().click();
    await expect(page.getByTestId("tile-filters-panel").first()).toContainText("$browser equals Chrome");
    await page.keyboard.press("Escape");
    await page.reload();
    await expect(page.getByTestId("dashboard-filter-row").getByTestId("property-value")).toHaveValue("Chrome");
    await expect(captions(page)).toHaveText(Array(4).fill("Last 14 days · 1 filter"), { timeout: 30_000 });
    await page.getByTestId("discard-filters").click();
    await expect(page).not.toHaveURL(/properties/);
    await expect(page.getByTestId("dashboard-filter-row")).toHaveCount(0);
    await expect(captions(page)).toHaveText(Array(4).fill("Last 14 days"), { timeout: 30_000 });

    // The Markdown tile: headings, lists, a safe link; the hostile parts inert.
    const text = page.getByTestId("tile-text");
    await expect(text.getByRole("heading", { name: "Weekly notes" })).toBeVisible();
    await expect(text.locator("li")).toHaveText(["first item", "second item"]);
    await expect(text.locator("strong")).toHaveText("this");
    const docs = text.getByRole("link", { name: "Docs" });
    await expect(docs).toHaveAttribute("href", "https://example.com/docs");
    await expect(docs).toHaveAttribute("rel", "noopener noreferrer");
    await expect(text.getByRole("link", { name: "bad" })).toHaveCount(0);
    await expect(text.locator("img, script, [onerror]")).toHaveCount(0);
    await text.getByText("bad").click();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await screenshot(page, "02-saved-filter-and-markdown");

    const axe = await new AxeBuilder({ page }).include('[data-testid="dashboard-page"]').analyze();
    const serious = axe.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
    expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)).toEqual([]);

    await page.setViewportSize(PHONE);
    await expect(captions(page).first()).toHaveText(/^Last 14 days/);
    const phoneAxe = await new AxeBuilder({ page }).include('[data-testid="dashboard-page"]').analyze();
    expect(phoneAxe.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical").map((violation) => violation.id)).toEqual([]);
    await screenshot(page, "03-filters-390");
  });

  /** Every tile on row 0 or right under a tile sharing a column (from the grid's places), and on screen where its place says. */
  async function expectPacked(page: Page) {
    const cells = await page.getByTestId("dashboard-tile").all();
    const rects = await Promise.all(
      cells.map(async (cell) => ({
        x: Number(await cell.getAttribute("data-x")),
        y: Number(await cell.getAttribute("data-y")),
        w: Number(await cell.getAttribute("data-w")),
        h: Number(await cell.getAttribute("data-h")),
        box: (await cell.boundingBox())!,
      })),
    );
    const grid = (await page.getByTestId("dashboard-tiles").boundingBox())!;
    for (const rect of rects) {
      const under = rects.some((other) => other !== rect && other.x < rect.x + rect.w && rect.x < other.x + other.w && other.y + other.h === rect.y);
      expect(rect.y === 0 || under, `tile at ${JSON.stringify({ ...rect, box: undefined })} has a hole above it`).toBe(true);
      // 60 px rows and 16 px gaps.
      expect(rect.box.y - grid.y).toBeCloseTo(rect.y * 76, -1);
    }
    return rects;
  }

  /** On a phone: one column, each tile right under the previous one. */
  async function expectStacked(page: Page) {
    const boxes = await Promise.all((await page.getByTestId("dashboard-tile").all()).map(async (cell) => (await cell.boundingBox())!));
    for (let i = 1; i < boxes.length; i++) {
      expect(boxes[i]!.x).toBeCloseTo(boxes[0]!.x, 0);
      expect(boxes[i]!.y - (boxes[i - 1]!.y + boxes[i - 1]!.height)).toBeCloseTo(16, 0);
    }
  }

  const tileTitled = (page: Page, title: string): Locator =>
    page.getByTestId("dashboard-tile").filter({ has: page.getByTestId("tile-title").getByText(title, { exact: true }) });

  test("moving and removing tiles leaves no holes, on the page and the share page, desktop and phone", async ({ page, browser }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(DESKTOP);
    await signIn(page, OWNER, site.url);
    await openDashboard(page);
    await expectPacked(page);

    // The template's tiles chart 30 days; the saved dashboard filter makes them 14.
    // Drag "Pageviews" (top left) down past the tile under it: the two swap, nothing floats.
    const pageviews = tileTitled(page, "Pageviews");
    await expect(pageviews).toHaveAttribute("data-y", "0");
    const handle = (await pageviews.getByTestId("tile-move").boundingBox())!;
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2 + 6 * 76, { steps: 10 });
    await page.mouse.up();
    await expect(pageviews).toHaveAttribute("data-y", "5");
    await expect(page.getByText("Saving…")).toHaveCount(0);
    await expectPacked(page);

    // Remove the tile at the top right: the one under it rises.
    const topRight = page.locator('[data-testid="dashboard-tile"][data-x="6"][data-y="0"]');
    const risingTitle = await page.locator('[data-testid="dashboard-tile"][data-x="6"][data-y="5"]').getByTestId("tile-title").innerText();
    await topRight.getByTestId("tile-menu").click();
    await topRight.getByTestId("tile-remove").click();
    await expect(page.getByTestId("insight-tile")).toHaveCount(3);
    await expect(tileTitled(page, risingTitle)).toHaveAttribute("data-y", "0");
    await expect(page.getByText("Saving…")).toHaveCount(0);
    await expectPacked(page);
    await screenshot(page, "04-moved-and-removed");

    // Saved so: after a reload, and on the share page.
    await page.reload();
    await expect(page.getByTestId("insight-tile")).toHaveCount(3);
    const placed = await expectPacked(page);
    await page.setViewportSize(PHONE);
    await expectStacked(page);
    await screenshot(page, "05-dashboard-390");

    const sharing = await api("PATCH", `dashboards/${dashboardId}/sharing/`, { enabled: true });
    const context = await browser.newContext({ viewport: DESKTOP });
    const visitor = await context.newPage();
    await visitor.goto(`${site.url}/shared/${sharing.access_token}`);
    await expect(visitor.getByTestId("insight-tile")).toHaveCount(3);
    const shared = await expectPacked(visitor);
    expect(shared.map(({ x, y, w, h }) => [x, y, w, h]).sort()).toEqual(placed.map(({ x, y, w, h }) => [x, y, w, h]).sort());
    await expect(visitor.getByTestId("tile-filters").first()).toHaveText(/^Last 14 days/);
    await screenshot(visitor, "06-shared-packed");
    await visitor.setViewportSize(PHONE);
    await expectStacked(visitor);
    await screenshot(visitor, "07-shared-390");
    await context.close();
  });

  test("on a slow network the tiles show skeletons, not spinners, and come in one request", async ({ page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(PHONE);
    await signIn(page, OWNER, site.url);
    const calls: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/trpc/")) calls.push(new URL(request.url()).pathname);
    });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 1500, downloadThroughput: 40 * 1024, uploadThroughput: 20 * 1024 });
    await page.goto(`${site.url}/dashboards/${dashboardId}`);
    await expect(page.getByTestId("tile-skeleton").first()).toBeVisible({ timeout: 60_000 });
    expect(await page.getByTestId("tile-skeleton").count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator(".animate-spin").count()).toBeLessThanOrEqual(1);
    await screenshot(page, "08-slow-network-skeletons");
    await expect(page.locator('[data-testid="tile-body"]:not([data-state="loading"])')).toHaveCount(3, { timeout: 90_000 });
    await expect(page.getByTestId("tile-skeleton")).toHaveCount(0);
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const resultCalls = calls.filter((path) => path.includes("dashboards.results"));
    expect(resultCalls).toHaveLength(1);
    expect(calls.filter((path) => path.includes("insights.compute"))).toEqual([]);
    await screenshot(page, "09-slow-network-filled");
  });
  test("internal and test users: each insight's own setting, or one for every tile, in the URL and saved; on a phone; without filters it says where to set them", async ({ page }) => {
    test.setTimeout(180_000);
    // Two views from local development yesterday, beside ann's three of this week: a test account by the project's default filters
    const at = new Date(Date.now() - 86_400_000).toISOString();
    const batch = [0, 1].map(() => ({ uuid: randomUUID(), event: "$pageview", distinct_id: "dev", timestamp: at, properties: { $host: "localhost:3000", $pathname: "/", $browser: "Chrome" } }));
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(sent.status).toBe(200);
    const board = await api("POST", "dashboards/", { name: "Test users" });
    const number = (filterTestAccounts?: boolean) => ({
      kind: "InsightVizNode",
      source: {
        kind: "TrendsQuery",
        series: [{ kind: "EventsNode", event: "$pageview", math: "total" }],
        dateRange: { date_from: "-7d" },
        trendsFilter: { display: "BoldNumber" },
        ...(filterTestAccounts === undefined ? {} : { filterTestAccounts }),
      },
    });
    await api("POST", "insights/", { name: "Views, its own setting", query: number(), dashboards: [board.id] });
    await api("POST", "insights/", { name: "Views without test users", query: number(true), dashboards: [board.id] });
    const own = (page: Page) => tileTitled(page, "Views, its own setting").getByTestId("bold-number");
    const without = (page: Page) => tileTitled(page, "Views without test users").getByTestId("bold-number");
    const choice = page.getByTestId("dashboard-test-accounts");

    await page.setViewportSize(DESKTOP);
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/dashboards/${board.id}`);
    await expect(own(page)).toHaveText("5", { timeout: 30_000 });
    await expect(without(page)).toHaveText("3");
    await expect(choice).toHaveValue("");
    await expect(choice).toBeEnabled();
    // The project has filters: nothing to say about them
    await expect(page.getByTestId("test-accounts-hint")).toHaveCount(0);

    await choice.selectOption("true");
    await expect(page).toHaveURL(/filter_test_accounts=true/);
    await expect(page.getByTestId("filters-unsaved")).toBeVisible();
    await expect(own(page)).toHaveText("3", { timeout: 30_000 });
    await expect(without(page)).toHaveText("3");
    await tileTitled(page, "Views, its own setting").getByTestId("tile-filters").click();
    await expect(page.getByTestId("tile-test-accounts")).toHaveText("Internal and test users: filtered out");
    await screenshot(page, "10-test-users-filtered-on-every-tile", { fullPage: false });
    await page.keyboard.press("Escape");

    // Included on every tile, saved for everyone
    await choice.selectOption("false");
    await expect(page).toHaveURL(/filter_test_accounts=false/);
    await expect(without(page)).toHaveText("5", { timeout: 30_000 });
    await expect(own(page)).toHaveText("5");
    await page.getByTestId("save-filters").click();
    await expect(page).not.toHaveURL(/filter_test_accounts/);
    await expect(page.getByTestId("filters-unsaved")).toHaveCount(0);
    expect((await api("GET", `dashboards/${board.id}/`)).filters).toMatchObject({ filterTestAccounts: false });
    await page.reload();
    await expect(choice).toHaveValue("false");
    await expect(without(page)).toHaveText("5", { timeout: 30_000 });

    await page.setViewportSize(PHONE);
    await page.goto(`${site.url}/dashboards/${board.id}`);
    await choice.selectOption("");
    await expect(without(page)).toHaveText("3", { timeout: 30_000 });
    await expect(own(page)).toHaveText("5");
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "11-test-users-390", { fullPage: false });
    await expectNoHorizontalScroll(page);

    // A project without test account filters: the saved setting can only go back to each insight's own, and the bar says where to set them
    const project = await fetch(`${site.url}/api/projects/${site.projectId}/`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
      body: JSON.stringify({ test_account_filters: [] }),
    });
    expect(project.status).toBe(200);
    await page.setViewportSize(DESKTOP);
    await page.goto(`${site.url}/dashboards/${board.id}`);
    await expect(choice).toHaveValue("false");
    await expect(choice).toBeEnabled();
    await expect(page.getByTestId("test-accounts-hint")).toHaveText("This project has no test account filters yet. Set them in project settings.");
    await choice.selectOption("");
    await expect(choice).toBeDisabled();
    await expect(own(page)).toHaveText("5", { timeout: 30_000 });
    await expect(without(page)).toHaveText("5");
    await screenshot(page, "12-test-users-without-filters", { fullPage: false });
    await page.getByTestId("test-accounts-settings-link").click();
    await expect(page).toHaveURL(/\/settings\/project#test-account-filters$/);
  });
});
