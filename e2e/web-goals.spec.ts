/**
 * Conversion goals on /web (issue 34, item 9) at 1280×800 and 390×844: a goal picked from the
 * picker (an action), then an event goal and a page goal from the URL, and a page typed as a
 * full URL; the overview's goal cards and the paths table's conversions and rates, known by
 * hand; ordered by the rate; axe.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { signIn } from "./support/accounts";
import { expectNoHorizontalScroll, screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@web-goals.test", password: "owner-password-123" };
const HOST = "goals.example";

test.describe("conversion goals on /web", () => {
  test.describe.configure({ mode: "serial" });
  const site = useBootstrappedSite(OWNER);
  let actionId = 0;

  /*
   * Four visitors of goals.example, a session each: v0 views /pricing and signs up there;
   * v1 views /pricing and /signup and signs up on /signup; v2 views /pricing; v3 /about.
   * Goal "signup" (or the action "Signed up", its one step the event): 4 visitors, 2
   * conversions by 2 visitors, 50%. By path: /pricing 3 visitors, 1 conversion, 33%;
   * /signup 1, 1, 100%; /about 1, 0, 0%. Page goal /signup: 1 of 4, 25%. Every view's URL is
   * https://goals.example + its path (v1's /signup with ?plan=pro): the URL goal
   * "https://goals.example/" (contained in every view's URL) converts all 4 visitors with 5
   * views, 100%, where the path "/" would match none; "?plan=pro" matches v1's view alone.
   */
  test.beforeAll(async () => {
    const visits: [string, string][][] = [
      [["$pageview", "/pricing"], ["signup", "/pricing"]],
      [["$pageview", "/pricing"], ["$pageview", "/signup"], ["signup", "/signup"]],
      [["$pageview", "/pricing"]],
      [["$pageview", "/about"]],
    ];
    const start = Date.now() - 30 * 60_000;
    const batch = visits.flatMap((steps, visitor) =>
      steps.map(([event, path], step) => ({
        event,
        distinct_id: `goal-visitor-${visitor}`,
        timestamp: new Date(start + visitor * 60_000 + step * 1000).toISOString(),
        properties: {
          $host: HOST,
          $pathname: path,
          $current_url: `https://${HOST}${path}${visitor === 1 && path === "/signup" ? "?plan=pro" : ""}`,
          $session_id: `019ab000-0000-7000-8000-00000000030${visitor}`,
        },
      })),
    );
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(sent.status).toBe(200);
    const created = await fetch(`${site.url}/api/projects/${site.projectId}/actions/`, {
      method: "POST",
      headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Signed up", steps: [{ event: "signup" }] }),
    });
    expect(created.status).toBe(201);
    actionId = ((await created.json()) as { id: number }).id;
  });

  test("pick a goal: the overview and every table count conversions and their rate", async ({ page }) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/web?host=${HOST}`);
    await expect(page.getByTestId("web-analytics")).toHaveAttribute("data-state", "ready");
    const overview = page.getByTestId("web-overview");
    const table = page.getByTestId("web-table-paths");
    const values = table.getByTestId("web-table-value");
    await expect(overview).toHaveAttribute("data-state", "ready");

    // The picker lists the project's actions; picking one is a new URL.
    await page.getByTestId("web-filter-goal").selectOption(`action:${actionId}`);
    await expect(page).toHaveURL(new RegExp(`goal=action%3A${actionId}`));
    await expect(page.getByTestId("web-overview-total-conversions")).toHaveAttribute("data-value", "2");
    await expect(page.getByTestId("web-overview-unique-conversions")).toHaveAttribute("data-value", "2");
    await expect(page.getByTestId("web-overview-conversion-rate")).toHaveAttribute("data-value", "50");
    await expect(page.getByTestId("web-overview-visitors")).toHaveAttribute("data-value", "4");
    await expect(page.getByTestId("web-overview-views")).toHaveCount(0);
    await expect(table.getByTestId("web-table")).toHaveAttribute("data-state", "ready");
    await expect(values).toHaveText(["/pricing", "/signup", "/about"]);
    await expect(table.getByTestId("web-table-visitors")).toHaveText(["3", "1", "1"]);
    await expect(table.getByTestId("web-table-conversions")).toHaveText(["1", "1", "0"]);
    await expect(table.getByTestId("web-table-converters")).toHaveText(["1", "1", "0"]);
    await expect(table.getByTestId("web-table-conversion-rate")).toHaveText(["33%", "100%", "0%"]);
    await expect(table.getByRole("columnheader", { name: "Unique conversions" })).toHaveAttribute("aria-sort", "descending");
    await screenshot(page, "web-goal-action-1280");
    const axe = await new AxeBuilder({ page }).include('[data-testid="web-analytics"]').analyze();
    const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);

    // Ordered by the rate, highest first (kept in the URL).
    await table.getByTestId("web-sort-ConversionRate").click();
    await expect(page).toHaveURL(/order=conversion-rate-desc/);
    await expect(values).toHaveText(["/signup", "/pricing", "/about"]);

    // An event goal from a shared link; the entry pages' tab counts too.
    await page.goto(`${site.url}/web?host=${HOST}&goal=event%3Asignup`);
    await expect(page.getByTestId("web-filter-goal")).toHaveValue("event:signup");
    await expect(page.getByTestId("web-overview-conversion-rate")).toHaveAttribute("data-value", "50");
    await table.getByRole("tab", { name: "Entry" }).click();
    await expect(table.getByTestId("web-table")).toHaveAttribute("data-breakdown", "InitialPage");
    await expect(values).toHaveText(["/pricing", "/about"]);
    await expect(table.getByTestId("web-table-conversion-rate")).toHaveText(["67%", "0%"]);

    // A page goal: reaching /signup.
    await page.getByTestId("web-filter-goal").selectOption("page:/signup");
    await expect(page.getByTestId("web-overview-unique-conversions")).toHaveAttribute("data-value", "1");
    await expect(page.getByTestId("web-overview-conversion-rate")).toHaveAttribute("data-value", "25");
    // The goal's page field says what a path matches.
    const goalPage = page.getByTestId("web-goal-page");
    await expect(goalPage).toHaveValue("/signup");
    await expect(goalPage).toHaveAttribute("data-match", "path");
    await expect(page.getByTestId("web-goal-page-hint")).toContainText("path ($pathname) is exactly this");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "web-goal-page-390");
    // Phones keep who converted and the rate; the total waits for a wider screen.
    await expect(table.getByTestId("web-table-conversions").first()).toBeHidden();
    await expect(table.getByTestId("web-table-conversion-rate").first()).toBeVisible();
    await expectNoHorizontalScroll(page);

    // A page typed as a full URL matches every view whose URL contains it (the path "/" would match none).
    await page.getByTestId("web-filter-goal").selectOption("type-a-page");
    await expect(goalPage).toBeFocused();
    await goalPage.fill("pricing");
    await goalPage.press("Enter");
    await expect(page.getByTestId("web-goal-page-error")).toContainText("Give a path (/thanks) or a full URL");
    await goalPage.fill(`https://${HOST}/`);
    await expect(goalPage).toHaveAttribute("data-match", "url");
    await expect(page.getByTestId("web-goal-page-hint")).toContainText("full URL ($current_url) contains this");
    await goalPage.press("Enter");
    await expect(page).toHaveURL(/goal=page%3Ahttps%3A%2F%2Fgoals\.example%2F(&|$)/);
    await expect(page.getByTestId("web-filter-goal")).toHaveValue(`page:https://${HOST}/`);
    await expect(page.getByTestId("web-overview-unique-conversions")).toHaveAttribute("data-value", "4");
    await expect(page.getByTestId("web-overview-total-conversions")).toHaveAttribute("data-value", "5");
    await expect(page.getByTestId("web-overview-conversion-rate")).toHaveAttribute("data-value", "100");
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "web-goal-url-390");
    await expectNoHorizontalScroll(page);
    // A path with a query string is matched on the URL too: v1's view of /signup?plan=pro alone.
    await goalPage.fill("/signup?plan=pro");
    await expect(goalPage).toHaveAttribute("data-match", "url");
    await goalPage.press("Enter");
    await expect(page.getByTestId("web-overview-unique-conversions")).toHaveAttribute("data-value", "1");
    await page.setViewportSize({ width: 1280, height: 800 });
    // (The entry pages' tab is still open: v1's session entered at /pricing.)
    await expect(values).toHaveText(["/pricing", "/about"]);
    await expect(table.getByTestId("web-table-conversions")).toHaveText(["1", "0"]);
    await screenshot(page, "web-goal-url-1280");
    const urlAxe = await new AxeBuilder({ page }).include('[data-testid="web-filters"]').analyze();
    expect(urlAxe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

    // No goal: back to views and bounce rates.
    await page.getByTestId("web-filter-goal").selectOption("");
    await expect(page.getByTestId("web-overview-views")).toBeVisible();
    await expect(page).not.toHaveURL(/goal=/);
  });
});
