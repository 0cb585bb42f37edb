/**
 * The events explorer (issue 5): events sent with the real posthog-node SDK are listed,
 * filtered by event name and by a property, opened in the detail drawer, refreshed live,
 * and exported as CSV with the current filter.
 */
import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { expectNoHorizontalScroll, screenshot, useBootstrappedSite } from "./support/site";

const USER = { email: "explorer@example.com", password: "explorer-password-123" };

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n") {
      row.push(field.replace(/\r$/, ""));
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

test.describe("events explorer", () => {
  const site = useBootstrappedSite(USER);

  async function send(events: { distinctId: string; event: string; properties?: Record<string, unknown> }[]) {
    const client = new PostHog(site.projectKey, { host: site.url, flushAt: 1, flushInterval: 0 });
    const errors: unknown[] = [];
    client.on("error", (error) => errors.push(error));
    for (const event of events) client.capture(event);
    await client.shutdown();
    expect(errors).toEqual([]);
  }

  test("lists, filters, shows and exports events sent with posthog-node", async ({ page }) => {
    test.setTimeout(120_000);
    await send([
      { distinctId: "user-ann", event: "$pageview", properties: { $current_url: "https://shop.example/", $browser: "Chrome" } },
      { distinctId: "user-ann", event: "signed up", properties: { plan: "pro" } },
      { distinctId: "user-ben", event: "$pageview", properties: { $current_url: "https://shop.example/pricing", $browser: "Firefox" } },
      { distinctId: "user-ann", event: "purchase", properties: { plan: "pro", amount: 42, note: 'say "hi", then go' } },
      { distinctId: "user-ben", event: "purchase", properties: { plan: "free", amount: 5 } },
      { distinctId: "user-cy", event: "purchase", properties: { plan: "free", amount: 7 } },
    ]);

    await signIn(page, USER, site.url);
    await page.getByTestId("nav-events").click();
    await expect(page).toHaveURL(/\/events$/);
    const rows = page.getByTestId("event-row");
    await expect(rows).toHaveCount(6);
    await expect(page.getByTestId("events-count")).toHaveText(/^Showing 6 of 6 matching events/);
    // Newest first: the last one sent is on top.
    await expect(rows.first().getByTestId("event-distinct-id")).toHaveText("user-cy");
    await screenshot(page, "events-desktop");

    // Event name.
    await page.getByTestId("filter-event").fill("purchase");
    await page.getByTestId("apply-filters").click();
    await expect(rows).toHaveCount(3);
    for (const name of await rows.getByTestId("event-name").allTextContents()) expect(name).toBe("purchase");

    // And a property filter (a row added, then a spare one added and removed).
    await page.getByTestId("add-property-filter").click();
    await page.getByTestId("add-property-filter").click();
    await expect(page.getByTestId("property-filter-key")).toHaveCount(2);
    await page.getByTestId("property-filter-remove").nth(1).click();
    await page.getByTestId("property-filter-key").fill("plan");
    await page.getByTestId("property-filter-operator").selectOption("exact");
    await page.getByTestId("property-filter-value").fill("pro");
    await page.getByTestId("apply-filters").click();
    await expect(rows).toHaveCount(1);
    await expect(rows.first().getByTestId("event-distinct-id")).toHaveText("user-ann");
    await screenshot(page, "events-filtered");

    // The detail drawer, opened from the keyboard: all properties and the person.
    await rows.first().focus();
    await page.keyboard.press("Enter");
    const drawer = page.getByTestId("event-drawer");
    await expect(drawer).toBeVisible();
    await expect(drawer.getByTestId("event-drawer-title")).toHaveText("purchase");
    const properties = drawer.getByTestId("event-properties");
    await expect(properties).toContainText("plan");
    await expect(properties).toContainText('say "hi", then go');
    await expect(properties).toContainText("$lib");
    await expect(drawer.getByTestId("person-distinct-ids")).toContainText("user-ann");
    await drawer.getByTestId("event-properties-json-toggle").click();
    await expect(drawer.getByTestId("event-properties-json")).toContainText('"amount": 42');
    await screenshot(page, "events-drawer", { fullPage: false });
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
    // And by mouse.
    await rows.first().click();
    await expect(drawer).toBeVisible();
    await drawer.getByTestId("event-drawer-close").click();
    await expect(drawer).toBeHidden();

    // CSV of the current filter.
    const href = await page.getByTestId("export-csv").getAttribute("href");
    expect(href).toMatch(/^\/api\/projects\/\d+\/events\/\?format=csv&event=purchase&properties=/);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
    const csv = parseCsv(fs.readFileSync((await download.path())!, "utf8"));
    expect(csv[0]).toEqual(["id", "distinct_id", "event", "timestamp", "person_id", "properties"]);
    expect(csv.slice(1).map((row) => [row[1], row[2]])).toEqual([["user-ann", "purchase"]]);
    expect(JSON.parse(csv[1]![5]!)).toMatchObject({ plan: "pro", amount: 42, note: 'say "hi", then go' });

    // A filter that matches nothing, then reset, then live refresh picks up a new event.
    await page.getByTestId("filter-event").fill("no such event");
    await page.getByTestId("apply-filters").click();
    await expect(page.getByTestId("events-list")).toHaveAttribute("data-state", "empty");
    await expect(page.getByTestId("events-list")).toContainText("No events match");
    await page.getByTestId("reset-filters").click();
    await expect(rows).toHaveCount(6);
    await page.getByTestId("auto-refresh").check();
    await send([{ distinctId: "user-dee", event: "late arrival" }]);
    await expect(rows.first().getByTestId("event-name")).toHaveText("late arrival", { timeout: 15_000 });
    await expect(rows).toHaveCount(7);

    // 390 px: the page does not overflow; the table scrolls inside its card.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId("events-table")).toBeVisible();
    await expectNoHorizontalScroll(page);
    await screenshot(page, "events-mobile");
    await rows.first().click();
    await expect(drawer).toBeVisible();
    await screenshot(page, "events-mobile-drawer", { fullPage: false });
  });
});
