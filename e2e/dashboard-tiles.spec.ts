/**
 * Dashboard tiles (issue 9) in the browser: events sent with posthog-node, a dashboard
 * created from the "Product analytics" template charts them, each tile shown as its result
 * streams in (seen on a slow link, some tiles ready while others load); a text tile is added and
 * moved with the keyboard, a chart resized with the mouse, a number insight added; then the
 * dashboard is shared and the link, opened in a fresh browser with no session, shows the
 * same charts — also on a 390px screen, where the tiles stack.
 */
import { expect, test, type Locator, type Page } from "@playwright/test";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@tiles.test", password: "owner-password-123" };

test.describe("dashboard tiles and charts", () => {
  const site = useBootstrappedSite(OWNER);

  /** The tile titled `title`, once its chart is computed. */
  async function readyTile(page: Page, title: string): Promise<Locator> {
    const tile = page.getByTestId("insight-tile").filter({ has: page.getByTestId("tile-title").getByText(title, { exact: true }) });
    await expect(tile.getByTestId("tile-body")).toHaveAttribute("data-state", "ready", { timeout: 30_000 });
    return tile;
  }

  /** What each chart says in words (its text alternative), by title. */
  async function chartSummaries(page: Page): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const title of ["Pageviews", "Daily active users", "Top pages", "Feature flag calls"]) {
      const tile = await readyTile(page, title);
      out[title] = (await tile.getByTestId("insight-chart").getAttribute("aria-label")) ?? "";
    }
    return out;
  }

  test("template charts from posthog-node events, edited on the grid, shared with the same charts", async ({ page, browser }) => {
    test.setTimeout(240_000);
    const client = new PostHog(site.projectKey, { host: site.url, flushAt: 1, flushInterval: 0 });
    const errors: unknown[] = [];
    client.on("error", (error) => errors.push(error));
    const pageviews = [
      ["ann", "/"],
      ["ann", "/pricing"],
      ["ben", "/"],
      ["ben", "/docs"],
      ["cy", "/"],
    ] as const;
    for (const [distinctId, path] of pageviews) client.capture({ distinctId, event: "$pageview", properties: { $pathname: path, $current_url: `https://shop.example${path}` } });
    client.capture({ distinctId: "ann", event: "$feature_flag_called", properties: { $feature_flag: "new-nav", $feature_flag_response: true } });
    client.capture({ distinctId: "ben", event: "$feature_flag_called", properties: { $feature_flag: "new-nav", $feature_flag_response: false } });
    client.capture({ distinctId: "ben", event: "$feature_flag_called", properties: { $feature_flag: "beta-checkout", $feature_flag_response: true } });
    await client.shutdown();
    expect(errors).toEqual([]);

    // From the template.
    await signIn(page, OWNER, site.url);
    await page.getByTestId("nav-dashboards").click();
    await page.getByTestId("new-dashboard").click();
    const form = page.getByTestId("dashboard-form-dialog");
    await form.getByTestId("dashboard-template").selectOption("DEFAULT_APP");
    await expect(form.getByTestId("dashboard-name")).toHaveValue("Product analytics");
    await screenshot(page, "01-create-from-template");
    await form.getByTestId("dashboard-form-submit").click();
    await expect(page).toHaveURL(/\/dashboards\/\d+$/);
    await expect(page.getByTestId("dashboard-title")).toHaveText("Product analytics");
    await expect(page.getByTestId("insight-tile")).toHaveCount(4);

    const summaries = await chartSummaries(page);
    expect(summaries["Pageviews"]).toBe("$pageview: 5");
    expect(summaries["Daily active users"]).toBe("$pageview: 3");
    expect(summaries["Top pages"]).toBe("/: 3; /docs: 1; /pricing: 1");
    expect(summaries["Feature flag calls"]).toBe("new-nav: 2; beta-checkout: 1");
    await expect(page.getByTestId("tile-computed-at").first()).toHaveText(/^Computed /);

    // Refresh recomputes; the chart stays.
    await page.getByTestId("refresh-all").click();
    await readyTile(page, "Pageviews");

    // The results stream: on a slow link, tiles show their fresh charts one by one, some while others still load.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 100, downloadThroughput: 2 * 1024, uploadThroughput: 64 * 1024 });
    const tileStates = () => page.getByTestId("insight-tile").getByTestId("tile-body").evaluateAll((bodies) => bodies.map((body) => body.getAttribute("data-state")));
    await page.getByTestId("refresh-all").click();
    await expect.poll(async () => tileStates(), { timeout: 60_000, intervals: [50] }).toEqual(expect.arrayContaining(["ready", "loading"]));
    await screenshot(page, "01b-tiles-streaming-in");
    await expect(page.getByTestId("refresh-done")).toHaveText("Refreshed 4 tiles", { timeout: 60_000 });
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    expect(await tileStates()).toEqual(["ready", "ready", "ready", "ready"]);

    // A text tile, moved right with the keyboard (saved: it stays after a reload).
    await page.getByTestId("add-text").click();
    await page.getByTestId("text-tile-body").fill("Traffic and flags for the shop.\nUpdated every 15 minutes.");
    await page.getByTestId("text-tile-submit").click();
    const text = page.getByTestId("dashboard-tile").filter({ has: page.getByTestId("text-tile") });
    await expect(text).toHaveAttribute("data-x", "0");
    await expect(text).toHaveAttribute("data-y", "10");
    await text.getByTestId("tile-move").focus();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    await expect(text).toHaveAttribute("data-x", "2");
    await expect(page.getByTestId("tile-announcement")).toContainText("column 3, row 11");
    await expect(page.getByText("Saving…")).toHaveCount(0);

    // The pageviews chart made wider by dragging its corner; the tile beside it is pushed down.
    const pageviewsCell = page.getByTestId("dashboard-tile").filter({ has: page.getByTestId("tile-title").getByText("Pageviews", { exact: true }) });
    const handle = pageviewsCell.getByTestId("tile-resize");
    const box = (await handle.boundingBox())!;
    const grid = (await page.getByTestId("dashboard-tiles").boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + grid.width / 4, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    await expect(pageviewsCell).toHaveAttribute("data-w", "9");
    const usersCell = page.getByTestId("dashboard-tile").filter({ has: page.getByTestId("tile-title").getByText("Daily active users", { exact: true }) });
    await expect(usersCell).toHaveAttribute("data-y", "5");
    await expect(page.getByText("Saving…")).toHaveCount(0);

    // A number insight through the form (the dialog opens on the saved insights' picker).
    await page.getByTestId("add-insight").click();
    await page.getByTestId("add-insight-new").click();
    const add = page.getByTestId("add-insight-dialog");
    await add.getByTestId("insight-name").fill("Flag calls this week");
    await add.getByTestId("insight-kind-number").check();
    await add.getByTestId("insight-event").fill("$feature_flag_called");
    await add.getByTestId("insight-filter-key").fill("$feature_flag");
    await add.getByTestId("insight-filter-value").fill("new-nav");
    await screenshot(page, "02-add-insight");
    await add.getByTestId("add-insight-submit").click();
    await expect(add).toBeHidden();
    const number = await readyTile(page, "Flag calls this week");
    await expect(number.getByTestId("bold-number")).toHaveText("2");

    await page.reload();
    await expect(text).toHaveAttribute("data-x", "2");
    await expect(pageviewsCell).toHaveAttribute("data-w", "9");
    await readyTile(page, "Flag calls this week");
    await chartSummaries(page);
    await screenshot(page, "03-dashboard-with-charts");

    // Share, and open the link in a fresh browser with no session.
    await page.getByTestId("open-share").click();
    const share = page.getByTestId("share-dialog");
    await share.getByTestId("share-toggle").click();
    const link = await share.getByTestId("share-url").inputValue();
    await page.keyboard.press("Escape");

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const visitor = await context.newPage();
    const response = await visitor.goto(link);
    expect(response?.status()).toBe(200);
    await expect(visitor.getByTestId("shared-title")).toHaveText("Product analytics");
    await expect(visitor.getByTestId("insight-tile")).toHaveCount(5);
    expect(await chartSummaries(visitor)).toEqual(summaries);
    await expect((await readyTile(visitor, "Flag calls this week")).getByTestId("bold-number")).toHaveText("2");
    await expect(visitor.getByTestId("text-tile")).toContainText("Traffic and flags for the shop.");
    // The same places as on the dashboard page; nothing to drag.
    await expect(visitor.getByTestId("dashboard-tile").filter({ has: visitor.getByTestId("text-tile") })).toHaveAttribute("data-x", "2");
    await expect(visitor.getByTestId("tile-move")).toHaveCount(0);
    await expect(visitor.locator("nav")).toHaveCount(0);
    const html = await visitor.content();
    expect(html).not.toContain(OWNER.email);
    expect(html).not.toContain("short_id");
    await screenshot(visitor, "04-shared-page");

    // 390px: the tiles stack in reading order, full width.
    await visitor.setViewportSize({ width: 390, height: 844 });
    const cells = visitor.getByTestId("dashboard-tile");
    const boxes = await Promise.all((await cells.all()).map((cell) => cell.boundingBox()));
    for (const cellBox of boxes) {
      expect(cellBox!.x).toBeCloseTo(boxes[0]!.x, 0);
      expect(cellBox!.width).toBeCloseTo(boxes[0]!.width, 0);
    }
    for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.y).toBeGreaterThan(boxes[i - 1]!.y);
    await screenshot(visitor, "05-shared-page-390");

    // The dashboard page at 390px too.
    await page.setViewportSize({ width: 390, height: 844 });
    await readyTile(page, "Pageviews");
    await screenshot(page, "06-dashboard-390");
    await context.close();
  });
});
