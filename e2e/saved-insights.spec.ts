/**
 * Saved insights (issue 34, item 1) at 1280×800 and 390×844: in the list, kind icons and a
 * menu per row — duplicate, delete with Undo; a saved insight's page marked saved, its CSV
 * export (the file's rows checked), added to a dashboard, deleted from its page and restored;
 * the prompt before leaving unsaved edits (declined, then accepted); a dashboard's
 * "Add insight" picking a saved insight by search.
 */
import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@saved-insights.test", password: "owner-password-123" };

test.describe("saved insights", () => {
  test.describe.configure({ mode: "serial" });
  const site = useBootstrappedSite(OWNER);
  let dashboardId = 0;
  let funnelShortId = "";

  async function rest(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${site.url}/api/projects/${site.projectId}/${path}`, {
      method,
      headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  async function expectNoSeriousAxe(page: Page) {
    const axe = await new AxeBuilder({ page }).analyze();
    const serious = axe.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
    expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)).toEqual([]);
  }

  const row = (page: Page, name: string) => page.getByTestId("insight-row").filter({ has: page.getByTestId("insight-link").getByText(name, { exact: true }) });

  test.beforeAll(async () => {
    const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3600_000).toISOString();
    const batch = [
      { event: "$pageview", distinct_id: "ann", timestamp: at(30), properties: { $current_url: "https://shop.example/", $pathname: "/" } },
      { event: "sign up", distinct_id: "ann", timestamp: at(29) },
      { event: "buy", distinct_id: "ann", timestamp: at(28) },
      { event: "$pageview", distinct_id: "ben", timestamp: at(5), properties: { $current_url: "https://shop.example/", $pathname: "/" } },
      { event: "sign up", distinct_id: "ben", timestamp: at(4) },
    ];
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(await sent.text()).toBe('{"status":1}');
    const trend = await rest("POST", "insights/", {
      name: "Pageviews",
      saved: true,
      query: { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "-7d" } } },
    });
    expect(trend.status, JSON.stringify(trend.json)).toBe(201);
    const funnel = await rest("POST", "insights/", {
      name: "Signup funnel",
      description: "Sign up, then buy.",
      saved: true,
      query: {
        kind: "InsightVizNode",
        source: { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "sign up" }, { kind: "EventsNode", event: "buy" }], dateRange: { date_from: "-7d" } },
      },
    });
    expect(funnel.status, JSON.stringify(funnel.json)).toBe(201);
    funnelShortId = String(funnel.json.short_id);
    const dashboard = await rest("POST", "dashboards/", { name: "Growth" });
    expect(dashboard.status).toBe(201);
    dashboardId = Number(dashboard.json.id);
  });

  test("duplicate, delete and undo in the list; a saved insight's page, its CSV, a dashboard, the leave prompt", async ({ page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights`);
    await expect(page.getByTestId("insight-row")).toHaveCount(2);
    await expect(row(page, "Signup funnel").locator("[data-kind]")).toHaveAttribute("data-kind", "funnels");
    await expect(row(page, "Pageviews").locator("[data-kind]")).toHaveAttribute("data-kind", "trends");

    // Duplicate from the row's menu.
    await row(page, "Pageviews").getByTestId("insight-row-actions").click();
    await screenshot(page, "01-list-row-menu", { fullPage: false });
    await row(page, "Pageviews").getByTestId("insight-duplicate").click();
    await expect(row(page, "Pageviews (copy)")).toHaveCount(1);
    await expect(page.getByTestId("insight-row")).toHaveCount(3);

    // Delete the copy, then Undo.
    await row(page, "Pageviews (copy)").getByTestId("insight-row-actions").click();
    await row(page, "Pageviews (copy)").getByTestId("insight-delete").click();
    const notice = page.getByTestId("insight-deleted-notice");
    await expect(notice).toContainText("“Pageviews (copy)” was deleted.");
    await expect(page.getByTestId("insight-row")).toHaveCount(2);
    await screenshot(page, "02-deleted-with-undo");
    await expectNoSeriousAxe(page);
    await notice.getByTestId("insight-undo-delete").click();
    await expect(notice).toBeHidden();
    await expect(row(page, "Pageviews (copy)")).toHaveCount(1);
    expect((await rest("GET", "insights/?saved=true")).json.count).toBe(3);

    // A saved insight's page says so.
    await row(page, "Signup funnel").getByTestId("insight-link").click();
    await expect(page).toHaveURL(new RegExp(`/insights/${funnelShortId}$`));
    await expect(page.getByTestId("insight-title")).toHaveText("Signup funnel");
    await expect(page.getByTestId("insight-saved-badge")).toHaveText("Saved");
    await expect(page.getByTestId("insight-saved-meta")).toContainText("Funnels · last modified");
    await expect(page.getByTestId("chart-area")).toHaveAttribute("data-state", "ready", { timeout: 30_000 });

    // Its result as CSV.
    await page.getByTestId("insight-actions").click();
    const downloading = page.waitForEvent("download");
    await page.getByTestId("insight-export-csv").click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe("Signup-funnel.csv");
    const csv = fs.readFileSync((await download.path())!, "utf8");
    expect(csv.split("\r\n")).toEqual(["step,event,breakdown,count,conversion from first step", "1,sign up,,2,100.0%", "2,buy,,1,50.0%", ""]);

    // Its chart as a PNG, drawn on the server.
    await page.getByTestId("insight-actions").click();
    const downloadingPng = page.waitForEvent("download");
    await page.getByTestId("insight-export-png").click();
    const pngDownload = await downloadingPng;
    expect(pngDownload.suggestedFilename()).toBe("signup-funnel.png");
    const png = fs.readFileSync((await pngDownload.path())!);
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 675]);

    // Onto a dashboard.
    await page.getByTestId("insight-actions").click();
    await page.getByTestId("insight-add-to-dashboard").click();
    const addDialog = page.getByTestId("add-to-dashboard-dialog");
    await addDialog.getByTestId("add-to-dashboard-select").selectOption({ label: "Growth" });
    await screenshot(page, "03-add-to-dashboard", { fullPage: false });
    await addDialog.getByTestId("add-to-dashboard-confirm").click();
    await expect(addDialog).toBeHidden();
    await expect(page.getByTestId("insight-actions-note")).toHaveText("Added to Growth.");
    await expect(page.getByTestId("insight-saved-meta")).toContainText("on 1 dashboard");
    await screenshot(page, "04-saved-insight-page");

    // An edit, then leaving: asked first; declined stays, accepted leaves.
    await page.getByTestId("kind-tab-trends").click();
    await expect(page.getByText("Unsaved changes")).toBeVisible();
    const messages: string[] = [];
    page.once("dialog", (dialog) => {
      messages.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByTestId("nav-insights").click();
    await expect.poll(() => messages).toEqual(["Leave this insight? Your unsaved changes will be lost."]);
    await expect(page).toHaveURL(new RegExp(`/insights/${funnelShortId}\\?q=`));
    await expect(page.getByText("Unsaved changes")).toBeVisible();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByTestId("nav-insights").click();
    await expect(page).toHaveURL(/\/insights$/);

    // Deleted from its own page: back to the list, with Undo.
    await row(page, "Pageviews (copy)").getByTestId("insight-link").click();
    await expect(page.getByTestId("insight-saved-badge")).toBeVisible();
    await page.getByTestId("insight-actions").click();
    await page.getByTestId("insight-delete").click();
    await expect(page).toHaveURL(/\/insights\?deleted=\d+/);
    await expect(page.getByTestId("insight-deleted-notice")).toContainText("“Pageviews (copy)” was deleted.");
    await expect(page.getByTestId("insight-row")).toHaveCount(2);
    await page.getByTestId("insight-undo-delete").click();
    await expect(page.getByTestId("insight-row")).toHaveCount(3);
  });

  test("a dashboard's Add insight picks a saved insight", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/dashboards/${dashboardId}`);
    await expect(page.getByTestId("insight-tile").filter({ hasText: "Signup funnel" })).toBeVisible();
    await page.getByTestId("add-insight").click();
    const picker = page.getByTestId("saved-insight-picker");
    await expect(picker.getByTestId("saved-insight-option")).toHaveCount(3);
    await expect(picker.getByTestId("saved-insight-option").filter({ hasText: "Signup funnel" })).toBeDisabled();
    await expect(picker.getByTestId("saved-insight-option").filter({ hasText: "Signup funnel" })).toContainText("already on this dashboard");
    await screenshot(page, "05-picker", { fullPage: false });
    await expectNoSeriousAxe(page);
    await picker.getByTestId("saved-insight-search").fill("copy");
    await expect(picker.getByTestId("saved-insight-option")).toHaveCount(1);
    await picker.getByTestId("saved-insight-option").click();
    await expect(page.getByTestId("add-insight-dialog")).toBeHidden();
    const tile = page.getByTestId("insight-tile").filter({ hasText: "Pageviews (copy)" });
    await expect(tile).toBeVisible({ timeout: 30_000 });
    await screenshot(page, "06-dashboard-with-picked");
  });

  test("at 390 px: the list, a row's menu, a saved insight and the picker", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights`);
    await expect(page.getByTestId("insight-row")).toHaveCount(3);
    await row(page, "Signup funnel").getByTestId("insight-row-actions").click();
    await expect(row(page, "Signup funnel").getByTestId("insight-export-csv")).toBeInViewport();
    await screenshot(page, "07-narrow-list-menu", { fullPage: false });
    await page.keyboard.press("Escape");
    await page.goto(`${site.url}/insights/${funnelShortId}`);
    await expect(page.getByTestId("insight-saved-badge")).toBeVisible();
    await expect(page.getByTestId("chart-area")).toHaveAttribute("data-state", "ready", { timeout: 30_000 });
    await screenshot(page, "08-narrow-saved-insight");
    await page.goto(`${site.url}/dashboards/${dashboardId}`);
    await page.getByTestId("add-insight").click();
    await expect(page.getByTestId("saved-insight-option")).toHaveCount(3);
    await screenshot(page, "09-narrow-picker", { fullPage: false });
  });
});
