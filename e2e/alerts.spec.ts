/**
 * Insight alerts (issue 38, item 2) in the browser: on a trends insight's page, the Alerts
 * control's empty state, a threshold refused by the form (the API's schema), an alert
 * created, "Check now" turning it Firing on the events sent (5 signups yesterday against an
 * upper bound of 3), its check history; then the project's Alerts page with the same state
 * and history, at 1280 px and 390 px.
 */
import { expect, test } from "@playwright/test";
import { signIn } from "./support/accounts";
import { screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@alerts.test", password: "owner-password-123" };
const DAY = 86_400_000;

test.describe("insight alerts", () => {
  test.describe.configure({ mode: "serial" });
  const site = useBootstrappedSite(OWNER);
  let shortId = "";

  test.beforeAll(async () => {
    // signup: 2 the day before yesterday, 5 yesterday (noon UTC, the project's zone).
    const today = Math.floor(Date.now() / DAY) * DAY;
    const at = (daysAgo: number) => new Date(today - daysAgo * DAY + 12 * 3_600_000).toISOString();
    const batch = [
      ...Array.from({ length: 2 }, (_, i) => ({ event: "signup", distinct_id: `old-${i}`, timestamp: at(2) })),
      ...Array.from({ length: 5 }, (_, i) => ({ event: "signup", distinct_id: `new-${i}`, timestamp: at(1) })),
    ];
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(await sent.text()).toBe('{"status":1}');
    const created = await fetch(`${site.url}/api/projects/${site.projectId}/insights/`, {
      method: "POST",
      headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Daily signups",
        saved: true,
        query: { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "signup" }], interval: "day", dateRange: { date_from: "-7d" } } },
      }),
    });
    expect(created.status).toBe(201);
    shortId = ((await created.json()) as { short_id: string }).short_id;
  });

  test("create an alert from an insight, check it now, see it firing and its history", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights/${shortId}`);
    await page.getByTestId("insight-alerts").click();
    const dialog = page.getByTestId("insight-alerts-dialog");
    await expect(dialog.getByTestId("insight-alerts-empty")).toBeVisible();
    await screenshot(page, "alerts-insight-empty", { fullPage: false });

    await dialog.getByTestId("new-alert").click();
    const form = page.getByTestId("alert-form");
    await form.getByTestId("alert-name").fill("Signup spike");
    // No bound at all: the contract's message, before anything is sent.
    await form.getByTestId("alert-save").click();
    await expect(form.getByTestId("alert-threshold-error")).toContainText("lower bound, an upper bound or both");
    await form.getByTestId("alert-upper").fill("3");
    await screenshot(page, "alerts-form", { fullPage: false });
    await form.getByTestId("alert-save").click();

    const row = dialog.getByTestId("alert-row").filter({ hasText: "Signup spike" });
    await expect(row).toBeVisible();
    await expect(row).toContainText("Value above 3");
    await row.getByTestId("alert-check-now").click();
    await expect(row.getByTestId("alert-state").first()).toHaveAttribute("data-state", "Firing");
    const check = row.getByTestId("alert-check").first();
    await expect(check).toHaveAttribute("data-state", "Firing");
    await expect(check.getByTestId("alert-check-value")).toHaveText("5");
    await screenshot(page, "alerts-insight-firing", { fullPage: false });
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("insight-alerts")).toContainText("Alerts (1)");

    // The project's list: the same alert, its insight, state and history.
    await page.goto(`${site.url}/alerts`);
    const listed = page.getByTestId("alert-row").filter({ hasText: "Signup spike" });
    await expect(listed.getByTestId("alert-state").first()).toHaveAttribute("data-state", "Firing");
    await expect(listed.getByTestId("alert-insight-link")).toHaveText("Daily signups");
    await listed.getByTestId("alert-history-toggle").click();
    await expect(listed.getByTestId("alert-check").first()).toHaveAttribute("data-state", "Firing");
    await screenshot(page, "alerts-page");

    // Edit: raise the bound, check again: resolved.
    await listed.getByTestId("alert-edit").click();
    await page.getByTestId("alert-form").getByTestId("alert-upper").fill("10");
    await page.getByTestId("alert-form").getByTestId("alert-save").click();
    await expect(page.getByTestId("alert-form")).toBeHidden();
    await listed.getByTestId("alert-check-now").click();
    await expect(listed.getByTestId("alert-state").first()).toHaveAttribute("data-state", "Not firing");
    await expect(listed.getByTestId("alert-check").first()).toHaveAttribute("data-state", "Not firing");

    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "alerts-page-narrow");
  });
});
