/**
 * The SQL editor (issue 34, item 4) at 1280×800 and 390×844: a query typed into CodeMirror
 * (highlighted, completed from the events table), run with Ctrl+Enter, its rows in pages; a
 * field picked from the schema browser; another table refused inline; saved as an insight,
 * listed as SQL and opened again from the list.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { signIn } from "./support/accounts";
import { expectNoHorizontalScroll, screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@sql-editor.test", password: "owner-password-123" };

test.describe("the SQL editor", () => {
  test.describe.configure({ mode: "serial" });
  const site = useBootstrappedSite(OWNER);

  test.beforeAll(async () => {
    const base = Date.now() - 3600_000;
    const batch = Array.from({ length: 60 }, (_, i) => ({
      event: i % 3 === 0 ? "sign up" : "$pageview",
      distinct_id: `user-${String(i).padStart(2, "0")}`,
      timestamp: new Date(base + i * 1000).toISOString(),
      properties: { plan: i % 2 ? "pro" : "free", $pathname: `/p${i}` },
    }));
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(await sent.text()).toBe('{"status":1}');
  });

  test("type, complete, run, page, refuse, save and reopen", async ({ page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights`);
    await page.getByTestId("new-sql").click();
    await expect(page).toHaveURL(/\/sql$/);
    const editor = page.getByTestId("sql-input").locator(".cm-content");
    await expect(editor).toContainText("SELECT event, count()");

    // Typed from scratch, with completion of a column.
    await editor.click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.press("Delete");
    await page.keyboard.type("SELECT event, dist");
    const completion = page.locator(".cm-tooltip-autocomplete");
    await expect(completion).toContainText("distinct_id");
    await completion.getByText("distinct_id", { exact: true }).click();
    await page.keyboard.type(" FROM events ORDER BY timestamp DESC LIMIT 60");
    await expect(editor).toHaveText("SELECT event, distinct_id FROM events ORDER BY timestamp DESC LIMIT 60");
    // Highlighted: keywords are their own styled spans.
    await expect(editor.locator("span", { hasText: /^SELECT$/ }).first()).toBeVisible();
    await page.keyboard.press("ControlOrMeta+Enter");
    const results = page.getByTestId("sql-results");
    await expect(results).toHaveAttribute("data-state", "ready", { timeout: 30_000 });
    await expect(page.getByTestId("sql-row-count")).toHaveText("60 rows");
    await expect(page.getByTestId("sql-row")).toHaveCount(25);
    await expect(page.getByTestId("sql-row").first()).toContainText("user-59");
    await page.getByTestId("sql-page-next").click();
    await expect(page.getByTestId("sql-page-range")).toHaveText("Rows 26–50");
    await expect(page.getByTestId("sql-row").first()).toContainText("user-34");
    await screenshot(page, "01-sql-results");
    const axe = await new AxeBuilder({ page }).include('[data-testid="sql-editor"]').analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);

    // The schema browser inserts a property.
    await page.getByTestId("schema-field").filter({ hasText: "properties.plan" }).click();
    await expect(editor).toContainText("LIMIT 60 properties.plan");

    // Another table: refused inline.
    await editor.click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("SELECT name FROM system.tables");
    await page.getByTestId("sql-run").click();
    await expect(page.getByTestId("sql-error")).toContainText("only FROM events is supported");
    await screenshot(page, "02-sql-refused");

    // Saved as an insight, listed as SQL, opened again.
    await editor.click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("SELECT properties.plan, count() FROM events GROUP BY properties.plan ORDER BY count() DESC");
    await page.getByTestId("sql-run").click();
    await expect(page.getByTestId("sql-row")).toHaveCount(2, { timeout: 30_000 });
    // Its chart: count() over the plan, as bars, then as a line.
    await expect(page.getByTestId("sql-chart")).toHaveCount(0);
    await page.getByTestId("sql-view-bar").click();
    await expect(page.getByTestId("sql-chart")).toHaveAttribute("data-kind", "bar");
    await expect(page.getByTestId("sql-chart-y")).toHaveValue("1");
    await expect(page.getByTestId("sql-chart").locator(".recharts-bar-rectangle")).toHaveCount(2);
    await screenshot(page, "04-sql-chart-bar");
    const chartAxe = await new AxeBuilder({ page }).include('[data-testid="sql-results"]').analyze();
    expect(chartAxe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
    await page.getByTestId("sql-view-line").click();
    await expect(page.getByTestId("sql-chart")).toHaveAttribute("data-kind", "line");
    await expect(page.getByTestId("sql-chart").locator(".recharts-line-curve")).toHaveCount(1);
    await page.getByTestId("sql-save").click();
    await page.getByTestId("sql-insight-name").fill("Events by plan");
    await page.getByTestId("sql-save-confirm").click();
    await expect(page).toHaveURL(/\/sql\?insight=\w+/);
    await expect(page.getByTestId("sql-title")).toHaveText("Events by plan");
    await page.goto(`${site.url}/insights`);
    const row = page.getByTestId("insight-row").filter({ hasText: "Events by plan" });
    await expect(row.getByTestId("insight-kind")).toHaveText("SQL", { timeout: 30_000 });
    await expect(row.locator("[data-kind]")).toHaveAttribute("data-kind", "sql");
    await row.getByTestId("insight-link").click();
    await expect(page.getByTestId("sql-title")).toHaveText("Events by plan");
    await expect(page.getByTestId("sql-row")).toHaveCount(2, { timeout: 30_000 });
    // Both plans have 30 events: the order between them is the store's.
    await expect(page.getByTestId("sql-row").filter({ hasText: "pro" })).toHaveCount(1);
  });

  test("at 390 px", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/sql`);
    await page.getByTestId("sql-run").click();
    await expect(page.getByTestId("sql-results")).toHaveAttribute("data-state", "ready", { timeout: 30_000 });
    await screenshot(page, "03-sql-narrow");
    // The chart fits a phone too: count() by event as a line.
    await page.getByTestId("sql-view-line").click();
    await expect(page.getByTestId("sql-chart")).toHaveAttribute("data-kind", "line");
    await page.getByTestId("sql-chart").scrollIntoViewIfNeeded();
    await screenshot(page, "05-sql-chart-390");
    await expectNoHorizontalScroll(page);
  });
});
