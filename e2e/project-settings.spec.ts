/**
 * Settings → Project (issue 34, item 3) at 1280×800 and 390×844: the project renamed and its
 * time zone set from the page — the top bar and the REST API see both — and back to UTC.
 * Test account filters (issue 37): the bootstrapped project starts with PostHog's defaults
 * (the owner's domain, the local hosts), shown in the settings; cleared, the insight editor's
 * "Filter out internal and test users" is disabled with a link, a filter set in the settings,
 * and the toggle changing a trend's count.
 */
import AxeBuilder from "@axe-core/playwright";
import LZString from "lz-string";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { expectNoHorizontalScroll, screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@project-settings.test", password: "owner-password-123" };

test.describe("project settings", () => {
  test.describe.configure({ mode: "serial" });
  const site = useBootstrappedSite(OWNER);

  async function project(): Promise<Record<string, unknown>> {
    const response = await fetch(`${site.url}/api/projects/${site.projectId}/`, { headers: { authorization: `Bearer ${site.personalKey}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  test("rename the project and set its time zone", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/settings/project`);
    const card = page.getByTestId("project-general");
    await expect(card.getByTestId("project-timezone")).toHaveValue("UTC");
    await expect(card.getByTestId("project-general-save")).toBeDisabled();
    await card.getByTestId("project-name-input").fill("Storefront EU");
    await card.getByTestId("project-timezone").selectOption("Europe/Berlin");
    await expect(card).toContainText("Now: ");
    await screenshot(page, "01-settings-edited");
    await card.getByTestId("project-general-save").click();
    await expect(card.getByTestId("project-general-status")).toHaveText("Saved.");
    await expect(card.getByTestId("project-name")).toHaveText("Storefront EU");
    await expect(page.getByTestId("current-project-name")).toHaveText("Storefront EU");
    expect(await project()).toMatchObject({ name: "Storefront EU", timezone: "Europe/Berlin" });
    const axe = await new AxeBuilder({ page }).include('[data-testid="project-general"]').analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
    await page.reload();
    await expect(card.getByTestId("project-timezone")).toHaveValue("Europe/Berlin");
    await screenshot(page, "02-settings-saved");
  });

  test("at 390 px, back to UTC", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/settings/project`);
    const card = page.getByTestId("project-general");
    await expect(card.getByTestId("project-timezone")).toHaveValue("Europe/Berlin");
    await card.getByTestId("project-timezone").selectOption("UTC");
    await card.getByTestId("project-general-save").click();
    await expect(card.getByTestId("project-general-status")).toHaveText("Saved.");
    expect(await project()).toMatchObject({ timezone: "UTC" });
    await screenshot(page, "03-settings-narrow");
    await expectNoHorizontalScroll(page);
  });

  test.describe("test account filters", () => {
    // 5 page views from the app, 3 from local development
    test.beforeAll(async () => {
      const at = (minutes: number) => new Date(Date.now() - 3600_000 + minutes * 60_000).toISOString();
      const view = (distinct_id: string, minutes: number, host: string) => ({ event: "$pageview", distinct_id, timestamp: at(minutes), properties: { $host: host, $current_url: `https://${host}/` } });
      const batch = [
        ...["ann", "ben", "cy", "dee", "eve"].map((who, i) => view(who, i, "shop.example")),
        ...["dev-1", "dev-2", "dev-3"].map((who, i) => view(who, 10 + i, "localhost:3000")),
      ];
      const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
      expect(await sent.text()).toBe('{"status":1}');
    });

    test("a new project starts with PostHog's default filters, shown in the settings", async ({ page }) => {
      test.setTimeout(120_000);
      expect((await project()).test_account_filters).toEqual([
        { key: "email", type: "person", operator: "not_icontains", value: "@project-settings.test" },
        { key: "$host", type: "event", operator: "not_regex", value: "^(localhost|127\\.0\\.0\\.1)($|:)" },
      ]);
      await page.setViewportSize({ width: 1280, height: 800 });
      await signIn(page, OWNER, site.url);
      await page.goto(`${site.url}/settings/project#test-account-filters`);
      const card = page.getByTestId("test-account-settings");
      await expect(card.getByRole("combobox", { name: "Test account filter 1: person property" })).toHaveValue("email");
      await expect(card.getByRole("combobox", { name: "Test account filter 2: event property" })).toHaveValue("$host");
      await expect(card.getByTestId("test-accounts-save")).toBeDisabled();
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, "03b-default-test-account-filters", { fullPage: false });
      // Cleared, for the tests below to start from none
      const cleared = await fetch(`${site.url}/api/projects/${site.projectId}/`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
        body: JSON.stringify({ test_account_filters: [] }),
      });
      expect(cleared.status).toBe(200);
    });

    const toggle = (page: Page) => page.getByTestId("filter-test-accounts");
    const total = (page: Page) => page.getByTestId("chart-area").getByTestId("legend-total");
    async function chartReady(page: Page) {
      await expect(page.getByTestId("chart-area")).toHaveAttribute("data-state", "ready", { timeout: 30_000 });
    }

    test("set a filter in the settings, then toggle it in a trend and see the count change", async ({ page }) => {
      test.setTimeout(180_000);
      await page.setViewportSize({ width: 1280, height: 800 });
      await signIn(page, OWNER, site.url);

      // No filters yet: the toggle is off, disabled, and says where to set them
      await page.goto(`${site.url}/insights/new`);
      await chartReady(page);
      await expect(total(page)).toHaveText("8");
      await expect(toggle(page)).toBeDisabled();
      await expect(toggle(page)).toHaveAttribute("aria-checked", "false");
      await expect(page.getByTestId("test-accounts-hint")).toContainText("This project has no test account filters yet.");
      await screenshot(page, "04-toggle-without-filters");
      await page.getByTestId("test-accounts-settings-link").click();
      await expect(page).toHaveURL(/\/settings\/project#test-account-filters$/);

      const card = page.getByTestId("test-account-settings");
      await expect(card.getByTestId("test-accounts-empty")).toBeVisible();
      await expect(card.getByTestId("test-accounts-save")).toBeDisabled();
      await card.getByTestId("add-filter").click();
      // An unfinished row is named and keeps the list from saving
      await expect(card.getByTestId("test-accounts-problems")).toHaveText("Filter 1 needs a property.");
      await expect(card.getByTestId("test-accounts-save")).toBeDisabled();
      await card.getByRole("combobox", { name: "Test account filter 1: event property" }).fill("$host");
      await card.getByTestId("property-operator").selectOption("is_not");
      await card.getByRole("combobox", { name: "Test account filter 1: value" }).fill("localhost:3000");
      await expect(card.getByTestId("test-accounts-problems")).toHaveCount(0);
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, "05-test-account-filter-edited", { fullPage: false });
      await card.getByTestId("test-accounts-save").click();
      await expect(card.getByTestId("test-accounts-status")).toHaveText("Saved");
      await expect(card.getByTestId("test-accounts-save")).toBeDisabled();
      expect(await project()).toMatchObject({ test_account_filters: [{ key: "$host", operator: "is_not", type: "event", value: ["localhost:3000"] }] });
      const axe = await new AxeBuilder({ page }).include('[data-testid="test-account-settings"]').analyze();
      expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
      await screenshot(page, "06-test-account-filter-saved", { fullPage: false });

      // The trend: 8 page views, 5 once the test accounts are left out (by keyboard), 8 again
      await page.goto(`${site.url}/insights/new`);
      await chartReady(page);
      await expect(total(page)).toHaveText("8");
      await expect(page.getByTestId("test-accounts-hint")).toContainText("1 filter from the project settings");
      await toggle(page).focus();
      await page.keyboard.press("Space");
      await expect(toggle(page)).toHaveAttribute("aria-checked", "true");
      await chartReady(page);
      await expect(total(page)).toHaveText("5");
      await expect.poll(() => {
        const param = new URL(page.url()).searchParams.get("q");
        return param ? (JSON.parse(LZString.decompressFromEncodedURIComponent(param) ?? "null") as { source?: Record<string, unknown> })?.source?.filterTestAccounts : null;
      }).toBe(true);
      await screenshot(page, "07-trend-without-test-accounts");
      // Every kind carries it: on the stickiness tab the flag stays on
      await page.getByTestId("kind-tab-stickiness").click();
      await expect(toggle(page)).toHaveAttribute("aria-checked", "true");
      await page.getByTestId("kind-tab-trends").click();
      await toggle(page).click();
      await chartReady(page);
      await expect(total(page)).toHaveText("8");
    });

    test("at 390 px: the settings card and the toggle fit", async ({ page }) => {
      test.setTimeout(120_000);
      await page.setViewportSize({ width: 390, height: 844 });
      await signIn(page, OWNER, site.url);
      await page.goto(`${site.url}/settings/project#test-account-filters`);
      const card = page.getByTestId("test-account-settings");
      await expect(card.getByRole("combobox", { name: "Test account filter 1: event property" })).toHaveValue("$host");
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, "08-test-account-filters-narrow", { fullPage: false });
      await expectNoHorizontalScroll(page);
      await page.goto(`${site.url}/insights/new`);
      await chartReady(page);
      await toggle(page).click();
      await chartReady(page);
      await expect(total(page)).toHaveText("5");
      await toggle(page).scrollIntoViewIfNeeded();
      await screenshot(page, "09-toggle-narrow", { fullPage: false });
      await expectNoHorizontalScroll(page);
    });
  });
});
