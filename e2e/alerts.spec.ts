/**
 * Insight alerts (issue 38, item 2) in the browser: on a trends insight's page, the Alerts
 * control's empty state, a threshold refused by the form (the API's schema), an alert
 * created, "Check now" turning it Firing on the events sent (5 signups yesterday against an
 * upper bound of 3), its check history; then the project's Alerts page with the same state
 * and history, at 1280 px and 390 px. Then turning it off and on (list and form), snoozing it
 * for a day and until a date, unsnoozing it, and "Skip weekends", at 1280 px and 390 px.
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

  test("turn an alert off and on, snooze it (presets and a date), unsnooze it, skip weekends", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/alerts`);
    const row = page.getByTestId("alert-row").filter({ hasText: "Signup spike" });
    const toggle = row.getByTestId("alert-enabled");

    // Off: the row says so, and so does the API; on again, by keyboard.
    await expect(toggle).toHaveAttribute("aria-checked", "true");
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-checked", "false");
    await expect(row).toHaveAttribute("data-enabled", "false");
    await expect(row).toContainText("Disabled");
    const stored = async () => {
      const answer = await fetch(`${site.url}/api/projects/${site.projectId}/alerts/`, { headers: { authorization: `Bearer ${site.personalKey}` } });
      return ((await answer.json()) as { results: { name: string; enabled: boolean; snoozed_until: string | null; skip_weekend: boolean }[] }).results.find((a) => a.name === "Signup spike")!;
    };
    expect((await stored()).enabled).toBe(false);
    await toggle.focus();
    await page.keyboard.press("Space");
    await expect(toggle).toHaveAttribute("aria-checked", "true");
    await expect(row).toHaveAttribute("data-enabled", "true");

    // Snooze for a day: "Snoozed until" tomorrow; Unsnooze lifts it.
    await row.getByTestId("alert-snooze").click();
    await page.getByTestId("alert-snooze-menu").getByTestId("alert-snooze-day").click();
    await expect(row.getByTestId("alert-state").first()).toHaveAttribute("data-state", "Snoozed");
    await expect(row.getByTestId("alert-snoozed-until")).toBeVisible();
    const day = new Date((await stored()).snoozed_until!).getTime() - Date.now();
    expect(day).toBeGreaterThan(23 * 3_600_000);
    expect(day).toBeLessThanOrEqual(24 * 3_600_000);
    await screenshot(page, "alerts-snoozed");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "alerts-snoozed-narrow");
    await page.setViewportSize({ width: 1280, height: 800 });
    await row.getByTestId("alert-unsnooze").click();
    await expect(row.getByTestId("alert-snoozed-until")).toHaveCount(0);
    await expect(row.getByTestId("alert-state").first()).not.toHaveAttribute("data-state", "Snoozed");
    expect((await stored()).snoozed_until).toBeNull();

    // Until a date: a time in the past is refused in the dialog; a future one is kept.
    await row.getByTestId("alert-snooze").click();
    await page.getByTestId("alert-snooze-menu").getByTestId("alert-snooze-date").click();
    const dialog = page.getByTestId("alert-snooze-dialog");
    await dialog.getByTestId("alert-snooze-until").fill("2020-01-01T09:00");
    await dialog.getByTestId("alert-snooze-save").click();
    await expect(dialog.getByTestId("alert-snooze-until-error")).toContainText("future");
    await dialog.getByTestId("alert-snooze-until").fill("2099-03-04T09:30");
    await screenshot(page, "alerts-snooze-date", { fullPage: false });
    await dialog.getByTestId("alert-snooze-save").click();
    await expect(dialog).toBeHidden();
    await expect(row.getByTestId("alert-snoozed-until")).toContainText("Mar 4, 2099");
    await row.getByTestId("alert-unsnooze").click();
    await expect(row.getByTestId("alert-snoozed-until")).toHaveCount(0);

    // The form: skip weekends, and off from there too.
    await row.getByTestId("alert-edit").click();
    const form = page.getByTestId("alert-form");
    await form.getByTestId("alert-skip-weekend").check();
    await form.getByTestId("alert-form-enabled").click();
    await screenshot(page, "alerts-form-options", { fullPage: false });
    await form.getByTestId("alert-save").click();
    await expect(form).toBeHidden();
    await expect(row).toContainText("not on weekends");
    await expect(row).toHaveAttribute("data-enabled", "false");
    expect(await stored()).toMatchObject({ enabled: false, skip_weekend: true, snoozed_until: null });
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "alerts-options-narrow");
  });
});
