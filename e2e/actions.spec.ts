/**
 * Actions (issue 36): events sent with posthog-node (pageviews, and a click as posthog-js
 * sends it, its elements chain in `$elements_chain`); an action made from a pageview in the
 * events explorer's drawer, edited to "URL contains", and one for the click by selector and
 * text — each counting the events it matches; the pages at 1280 and 390 px.
 */
import { expect, test } from "@playwright/test";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { screenshot, useBootstrappedSite } from "./support/site";

const USER = { email: "actions@example.com", password: "actions-password-123" };
const CLICK_CHAIN = 'button.btn.buy:attr__data-attr="buy"nth-child="2"nth-of-type="1"text="Buy now";div.card:nth-child="1"nth-of-type="1";body:nth-child="1"nth-of-type="1"';

test.describe("actions", () => {
  const site = useBootstrappedSite(USER);

  test("create an action from an event, widen it, and one for a click by selector; each counts what it matches", async ({ page }) => {
    test.setTimeout(150_000);
    const client = new PostHog(site.projectKey, { host: site.url, flushAt: 1, flushInterval: 0 });
    const sent: [string, string, Record<string, unknown>][] = [
      ["ann", "$pageview", { $current_url: "https://shop.example/pricing" }],
      ["ben", "$pageview", { $current_url: "https://shop.example/pricing?plan=pro" }],
      ["ben", "$pageview", { $current_url: "https://shop.example/blog" }],
      ["ann", "$autocapture", { $current_url: "https://shop.example/pricing", $event_type: "click", $elements_chain: CLICK_CHAIN }],
      ["cy", "$autocapture", { $current_url: "https://shop.example/blog", $event_type: "click", $elements_chain: 'a.more:href="/blog/2"nth-child="1"nth-of-type="1"text="More"' }],
    ];
    for (const [distinctId, event, properties] of sent) client.capture({ distinctId, event, properties });
    await client.shutdown();

    await signIn(page, USER, site.url);
    await page.goto(`${site.url}/actions`);
    await expect(page.getByTestId("actions-list")).toHaveAttribute("data-state", "empty");
    await screenshot(page, "actions-empty");

    // From the events explorer: the first pricing pageview, its drawer, "Create action".
    await page.goto(`${site.url}/events`);
    const rows = page.getByTestId("event-row");
    await expect(rows).toHaveCount(5);
    await rows.filter({ hasText: "https://shop.example/pricing" }).filter({ hasText: "$pageview" }).filter({ hasNotText: "plan=pro" }).first().click();
    const drawer = page.getByTestId("event-drawer");
    await drawer.getByTestId("event-create-action").click();
    await expect(page).toHaveURL(/\/actions\/new\?event=%24pageview/);
    await expect(page.getByTestId("action-name")).toHaveValue("Pageview https://shop.example/pricing");
    const stepOne = page.getByTestId("action-step").first();
    await expect(stepOne.getByTestId("action-step-event")).toHaveValue("$pageview");
    await expect(stepOne.getByTestId("action-step-url")).toHaveValue("https://shop.example/pricing");
    await expect(stepOne.getByTestId("action-step-url-matching")).toHaveValue("exact");
    await page.getByTestId("action-name").fill("Viewed pricing");
    await page.getByTestId("action-save").click();
    await expect(page).toHaveURL(/\/actions\/\d+$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Viewed pricing");
    // Exact: only ann's pageview.
    await expect(page.getByTestId("action-matches-count")).toHaveText("1");

    // "contains /pricing": ben's with a query string too.
    await page.getByTestId("action-step").first().getByTestId("action-step-url-matching").selectOption("contains");
    await page.getByTestId("action-step").first().getByTestId("action-step-url").fill("/pricing");
    await page.getByTestId("action-save").click();
    await expect(page.getByTestId("action-saved")).toBeVisible();
    await expect(page.getByTestId("action-matches-count")).toHaveText("2");
    await screenshot(page, "action-edit-desktop");

    // A click by selector and text, typed in.
    await page.goto(`${site.url}/actions/new`);
    await page.getByTestId("action-name").fill("Clicked buy");
    const step = page.getByTestId("action-step").first();
    await step.getByRole("button", { name: /Autocapture/ }).click();
    await step.getByTestId("action-step-selector").fill("div.card > button.buy");
    await step.getByTestId("action-step-text-matching").selectOption("contains");
    await step.getByTestId("action-step-text").fill("buy");
    await screenshot(page, "action-new-click");
    await page.getByTestId("action-save").click();
    await expect(page).toHaveURL(/\/actions\/\d+$/);
    await expect(page.getByTestId("action-matches-count")).toHaveText("1");

    // A selector it cannot read is refused, naming it.
    await page.goto(`${site.url}/actions/new`);
    await page.getByTestId("action-name").fill("Broken");
    await page.getByTestId("action-step").first().getByRole("button", { name: /Autocapture/ }).click();
    await page.getByTestId("action-step").first().getByTestId("action-step-selector").fill("button::after");
    await page.getByTestId("action-save").click();
    await expect(page.getByTestId("action-error")).toContainText("Invalid selector");

    await page.goto(`${site.url}/actions`);
    await expect(page.getByTestId("action-row")).toHaveCount(2);
    await expect(page.getByTestId("action-row").first()).toContainText("$autocapture");
    await screenshot(page, "actions-list-desktop");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "actions-list-mobile");
    await page.getByTestId("action-link").nth(1).click();
    await expect(page.getByTestId("action-matches-count")).toHaveText("2");
    await screenshot(page, "action-edit-mobile");
  });
});
