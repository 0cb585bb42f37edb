/**
 * Suggestions from the data (issue 20): events sent to /batch/ become event and property
 * definitions; the events explorer's name filter offers the names containing what is typed,
 * most used first, picked with the keyboard; the cohort condition builder suggests a person
 * property's values. Desktop 1280×800 and phone 390×844, with screenshots.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { screenshot, useBootstrappedSite } from "./support/site";

const USER = { email: "definitions@example.com", password: "definitions-password-123" };

test.describe("definitions and suggestion inputs", () => {
  const site = useBootstrappedSite(USER);

  async function batch(events: object[]) {
    const response = await fetch(`${site.url}/batch/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: site.projectKey, batch: events }),
    });
    expect(await response.text()).toBe('{"status":1}');
  }

  /** Definitions follow ingestion within a flush interval: wait until the REST list has them. */
  async function definitionsInclude(name: string) {
    await expect
      .poll(async () => {
        const response = await fetch(`${site.url}/api/projects/${site.projectId}/event_definitions/?search=${encodeURIComponent(name)}`, {
          headers: { authorization: `Bearer ${site.personalKey}` },
        });
        const body = (await response.json()) as { results: { name: string }[] };
        return body.results.map((row) => row.name);
      })
      .toContain(name);
  }

  const activeOption = async (page: Page, testId: string) => {
    const input = page.getByTestId(testId);
    const id = await input.getAttribute("aria-activedescendant");
    return id ? page.locator(`[id="${id}"]`).innerText() : null;
  };

  // Once per worker (each worker has a site of its own): the events every test reads.
  test.beforeAll(async () => {
    test.setTimeout(180_000);
    const event = (name: string, distinctId: string, properties: Record<string, unknown> = {}) => ({ event: name, distinct_id: distinctId, properties });
    await batch([
      event("$pageview", "ann", { $browser: "Chrome" }),
      event("$pageview", "ben", { $browser: "Firefox" }),
      event("checkout started", "ann", { plan: "pro" }),
      event("checkout started", "ben", { plan: "free" }),
      event("checkout started", "cy", { plan: "pro" }),
      event("Checkout completed", "ann", { plan: "pro" }),
      event("$identify", "ann", { $set: { email: "ann@shop.example", plan: "enterprise" } }),
      event("$identify", "ben", { $set: { email: "ben@shop.example", plan: "entry" } }),
    ]);
    await definitionsInclude("checkout started");
  });

  test("the explorer's name filter suggests contains-matches, picked with the keyboard", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, USER, site.url);
    await page.getByTestId("nav-events").click();
    await expect(page).toHaveURL(/\/events$/);
    const rows = page.getByTestId("event-row");
    await expect(rows).toHaveCount(8);

    // Typing part of a name lists the names containing it, any case, most used first.
    const name = page.getByTestId("filter-event");
    await expect(name).toHaveAttribute("role", "combobox");
    await name.click();
    await page.keyboard.type("eckout");
    const list = page.getByTestId("filter-event-suggestions");
    await expect(list).toBeVisible();
    await expect(name).toHaveAttribute("aria-expanded", "true");
    const options = list.getByRole("option");
    await expect(options).toHaveCount(2);
    await expect(options.nth(0)).toContainText("checkout started");
    await expect(options.nth(0)).toContainText("3 in 30 days");
    await expect(options.nth(1)).toContainText("Checkout completed");
    await expect(options.nth(0).locator("mark")).toHaveText("eckout");

    // The keyboard: down, down, up, Enter picks the active option; the list closes.
    await page.keyboard.press("ArrowDown");
    expect(await activeOption(page, "filter-event")).toContain("checkout started");
    await page.keyboard.press("ArrowDown");
    expect(await activeOption(page, "filter-event")).toContain("Checkout completed");
    await expect(options.nth(1)).toHaveAttribute("aria-selected", "true");
    await page.keyboard.press("ArrowUp");
    expect(await activeOption(page, "filter-event")).toContain("checkout started");
    await screenshot(page, "definitions-event-suggestions-desktop", { fullPage: false });
    // The open combobox and its list pass axe with no serious or critical violation.
    const axe = await new AxeBuilder({ page }).include('[data-testid="events-filters"]').analyze();
    expect(axe.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical")).toEqual([]);
    await page.keyboard.press("Enter");
    await expect(name).toHaveValue("checkout started");
    await expect(list).toBeHidden();
    await expect(name).toHaveAttribute("aria-expanded", "false");

    // The filter itself stays an exact name: Enter now applies it.
    await page.keyboard.press("Enter");
    await expect(rows).toHaveCount(3);
    for (const text of await rows.getByTestId("event-name").allTextContents()) expect(text).toBe("checkout started");

    // Escape closes the list and keeps the text; free text is allowed.
    await name.fill("zzz-not-an-event");
    await page.keyboard.press("Escape");
    await expect(name).toHaveValue("zzz-not-an-event");

    // A property filter: key and value suggestions, the value picked with the keyboard.
    await page.getByTestId("add-property-filter").click();
    const key = page.getByTestId("property-filter-key");
    await key.click();
    await page.keyboard.type("bro");
    await expect(page.getByTestId("property-filter-key-suggestions").getByRole("option")).toHaveText([/^\$browser/]);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect(key).toHaveValue("$browser");
    const value = page.getByTestId("property-filter-value");
    await value.click();
    await page.keyboard.press("ArrowDown");
    const values = page.getByTestId("property-filter-value-suggestions").getByRole("option");
    await expect(values).toHaveText(["Chrome", "Firefox"]);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect(value).toHaveValue("Firefox");

    // Phone: the list fits the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await name.fill("");
    await name.click();
    await page.keyboard.type("out");
    await expect(list.getByRole("option")).toHaveCount(2);
    const box = await list.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await screenshot(page, "definitions-event-suggestions-phone", { fullPage: false });
  });

  test("the cohort condition builder suggests person property keys and values", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, USER, site.url);
    await page.getByRole("link", { name: "Cohorts" }).first().click();
    await page.getByTestId("new-cohort").click();
    await expect(page).toHaveURL(/\/cohorts\/new$/);
    const condition = page.getByTestId("cohort-group-0").getByTestId("cohort-condition").nth(0);
    const key = condition.getByTestId("property-key");
    await key.click();
    await page.keyboard.type("PL");
    await expect(condition.getByTestId("property-key-suggestions").getByRole("option")).toHaveText([/^plan/]);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect(key).toHaveValue("plan");

    const value = condition.getByTestId("property-value");
    await value.click();
    await page.keyboard.type("ent");
    const values = condition.getByTestId("property-value-suggestions").getByRole("option");
    await expect(values).toHaveText(["enterprise", "entry"]);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await screenshot(page, "definitions-cohort-values-desktop", { fullPage: false });
    await page.keyboard.press("Enter");
    await expect(value).toHaveValue("entry");

    await page.setViewportSize({ width: 390, height: 844 });
    await value.fill("");
    await value.click();
    await page.keyboard.type("e");
    await expect(values).toHaveCount(2);
    await value.evaluate((input) => input.scrollIntoView({ block: "center" }));
    await screenshot(page, "definitions-cohort-values-phone", { fullPage: false });
  });
});
