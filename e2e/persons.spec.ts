/**
 * Persons (issue 18): a person made by events sent to /batch/ is found by e-mail in the
 * persons list, opened with their properties, distinct ids and events, a property set and
 * removed, and then deleted with their events behind a keyboard-driven confirmation — and
 * is gone from the list and the events explorer. Screenshots at 1280 and 390 px.
 */
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { screenshot, useBootstrappedSite } from "./support/site";

const USER = { email: "persons@example.com", password: "persons-password-123" };

test.describe("persons", () => {
  const site = useBootstrappedSite(USER);

  async function batch(events: object[]) {
    const response = await fetch(`${site.url}/batch/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: site.projectKey, batch: events }),
    });
    expect(await response.text()).toBe('{"status":1}');
  }

  async function searchFor(page: Page, text: string) {
    await page.getByTestId("persons-search").fill(text);
    await page.getByTestId("persons-search-submit").click();
  }

  test("find a person by e-mail, see their events, delete them and their events", async ({ page }) => {
    test.setTimeout(180_000);
    const at = (minutes: number) => new Date(Date.now() - (60 - minutes) * 60_000).toISOString();
    await batch([
      { event: "$pageview", distinct_id: "anon-zoe", timestamp: at(1), properties: { $current_url: "https://shop.example/", $browser: "Firefox" } },
      { event: "$identify", distinct_id: "zoe-42", timestamp: at(2), properties: { $anon_distinct_id: "anon-zoe", $set: { email: "zoe@example.org", plan: "trial" } } },
      { event: "purchase", distinct_id: "zoe-42", timestamp: at(3), properties: { amount: 42 } },
    ]);
    await batch([{ event: "$pageview", distinct_id: "ned-7", timestamp: at(4), properties: { $set: { email: "ned@other.test", name: "Ned" } } }]);

    await page.setViewportSize({ width: 1280, height: 900 });
    await signIn(page, USER, site.url);
    await page.getByTestId("nav-persons").click();
    await expect(page).toHaveURL(/\/persons$/);
    const rows = page.getByTestId("person-row");
    await expect(rows).toHaveCount(2);
    await screenshot(page, "persons-desktop");

    await searchFor(page, "ZOE@example");
    await expect(page).toHaveURL(/\/persons\?q=ZOE%40example$/);
    await expect(rows).toHaveCount(1);
    await expect(rows.first().getByTestId("person-link")).toHaveText("zoe@example.org");
    // A property column of the reader's choice, kept across visits.
    await page.getByTestId("persons-add-column").fill("plan");
    await page.getByTestId("persons-add-column").press("Enter");
    await expect(page.getByTestId("persons-table")).toContainText("trial");
    await page.reload();
    await expect(page.getByTestId("persons-table")).toContainText("trial");

    await rows.first().getByTestId("person-link").click();
    await expect(page).toHaveURL(/\/persons\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("zoe@example.org");
    await expect(page.getByTestId("person-distinct-ids")).toContainText("zoe-42");
    await expect(page.getByTestId("person-distinct-ids")).toContainText("anon-zoe");
    const events = page.getByTestId("person-events").getByTestId("event-row");
    await expect(events).toHaveCount(3);
    await expect(events.first().getByTestId("event-name")).toHaveText("purchase");

    // Set a property, then delete it.
    await page.getByTestId("person-property-key").fill("tier");
    await page.getByTestId("person-property-value").fill("42");
    await page.getByTestId("person-property-save").click();
    const tier = page.locator('[data-testid="person-property"][data-key="tier"]');
    await expect(tier).toContainText("42");
    await screenshot(page, "person-desktop");
    await tier.getByTestId("person-property-delete").click();
    await expect(tier).toHaveCount(0);

    // Delete, from the keyboard: Cancel has the focus; Tab to the confirm button, Enter.
    await page.getByTestId("person-delete").click();
    const dialog = page.getByTestId("person-delete-dialog");
    await expect(dialog).toBeVisible();
    await expect(page.getByTestId("person-delete-cancel")).toBeFocused();
    await expect(page.getByTestId("person-delete-events")).toBeChecked();
    await screenshot(page, "person-delete-dialog", { fullPage: false });
    await page.keyboard.press("Tab");
    await expect(page.getByTestId("person-delete-confirm")).toBeFocused();
    await page.keyboard.press("Enter");
    const result = page.getByTestId("person-deleted");
    await expect(result).toHaveAttribute("data-state", "done", { timeout: 20_000 });
    await expect(page.getByTestId("person-deletion-result")).toHaveText("All their events are deleted: 3 events.");
    await screenshot(page, "person-deleted");

    // Gone from the list, and their events from the explorer.
    await page.getByTestId("person-deleted-back").click();
    await searchFor(page, "zoe");
    await expect(page.getByTestId("persons-list")).toHaveAttribute("data-state", "empty");
    await page.goto(`${site.url}/events`);
    await expect(page.getByTestId("event-row")).toHaveCount(1);
    await expect(page.getByTestId("event-row").getByTestId("event-distinct-id")).toHaveText("ned-7");

    // Phone width.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${site.url}/persons`);
    await expect(rows).toHaveCount(1);
    await screenshot(page, "persons-phone");
    await rows.first().getByTestId("person-link").click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("ned@other.test");
    await expect(page.getByTestId("person-events").getByTestId("event-row")).toHaveCount(1);
    await screenshot(page, "person-phone");
  });
});
