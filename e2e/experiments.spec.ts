/**
 * Experiments (issue 37): an experiment created in the form, launched; exposures made by real
 * posthog-node getFeatureFlag calls (each sends `$feature_flag_called` with the variant
 * /flags gave), purchases that favour `test`; the results page's verdict, table and interval
 * chart read; then "ship test" rolls the flag to it and ends the experiment.
 */
import { expect, test } from "@playwright/test";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { screenshot, useBootstrappedSite } from "./support/site";

const USER = { email: "experiments@example.com", password: "experiments-password-123" };

test.describe("experiments", () => {
  const site = useBootstrappedSite(USER);

  test("create and launch an experiment, send exposures and conversions, read the verdict, ship the winner", async ({ page }) => {
    test.setTimeout(180_000);
    await signIn(page, USER, site.url);
    await page.goto(`${site.url}/experiments`);
    await expect(page.getByTestId("experiments-list")).toHaveAttribute("data-state", "empty");

    // A shared metric, made on the experiments page and picked in the form as secondary
    await page.getByTestId("shared-metric-name").fill("Revenue");
    await page.getByTestId("shared-metric-type").selectOption("mean");
    await page.getByTestId("shared-metric-event").fill("purchase");
    await page.getByTestId("shared-metric-property").fill("amount");
    await page.getByTestId("shared-metric-save").click();
    await expect(page.getByTestId("shared-metric-row")).toHaveAttribute("data-name", "Revenue");
    await expect(page.getByTestId("shared-metric-row")).toContainText("Mean: sum of amount on purchase");
    await screenshot(page, "experiments-shared-metrics");

    await page.getByTestId("new-experiment").click();
    await page.getByTestId("experiment-name").fill("Checkout button");
    await page.getByTestId("experiment-hypothesis").fill("A green button sells more.");
    await expect(page.getByTestId("experiment-flag-key")).toHaveValue("checkout-button");
    await page.getByTestId("metric-event").fill("purchase");
    await page.getByTestId("baseline-rate").fill("10");
    await page.getByTestId("mde").fill("5");
    await expect(page.getByTestId("sample-size-estimate")).toContainText("About 576 persons per variant, 1,152 in all");
    await page.getByTestId(/^shared-metric-use-\d+$/).selectOption("secondary");
    await screenshot(page, "experiment-form");
    await page.getByTestId("save-experiment").click();
    await expect(page).toHaveURL(/\/experiments\/\d+$/);
    await expect(page.getByTestId("experiment-status")).toHaveText("draft");
    await page.getByTestId("launch-experiment").click();
    await expect(page.getByTestId("experiment-status")).toHaveText("running");

    // 200 users read the flag through /flags (20 at a time); half of test's buy, one in ten of control's
    const client = new PostHog(site.projectKey, { host: site.url, flushAt: 100, flushInterval: 0 });
    const counts: Record<string, { n: number; bought: number }> = {};
    for (let from = 0; from < 200; from += 20) {
      const ids = Array.from({ length: 20 }, (_, k) => from + k);
      const variants = await Promise.all(ids.map((i) => client.getFeatureFlag("checkout-button", `shopper-${i}`)));
      ids.forEach((i, k) => {
        const variant = String(variants[k]);
        const row = (counts[variant] ??= { n: 0, bought: 0 });
        row.n++;
        if (variant === "test" ? i % 2 === 0 : i % 10 === 0) {
          // after the exposure the SDK has queued
          client.capture({ distinctId: `shopper-${i}`, event: "purchase", properties: { amount: 20 }, timestamp: new Date(Date.now() + 1000) });
          row.bought++;
        }
      });
    }
    await client.shutdown();
    expect(Object.keys(counts).sort()).toEqual(["control", "test"]);
    expect(counts.control!.n).toBeGreaterThan(50);
    expect(counts.test!.n).toBeGreaterThan(50);

    // The purchases are stamped a second after their exposures: a read within that second does not count them yet.
    const testRow = page.getByTestId("result-row").filter({ hasText: "test" });
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId("result-row").filter({ hasText: "control" }).locator("td").nth(1)).toHaveText(String(counts.control!.n), { timeout: 2_000 });
      await expect(testRow.locator("td").nth(2)).toHaveText(String(counts.test!.bought), { timeout: 2_000 });
    }).toPass({ timeout: 60_000 });
    await expect(page.getByTestId("verdict-headline")).toHaveText("test wins: it does better than control with statistical significance.");
    await expect(testRow.locator("td").nth(1)).toHaveText(String(counts.test!.n));
    await expect(page.getByTestId("verdict-line").first()).toContainText("Better than control");
    await expect(page.getByTestId("interval").filter({ has: page.locator("line") })).toHaveCount(1);
    await screenshot(page, "experiment-results");

    // The shared metric's results: twenty per purchase
    await page.getByTestId("results-metric").selectOption({ label: "Revenue (shared) — secondary" });
    await expect(page.getByTestId("results-table").locator("caption")).toHaveText("Revenue");
    await expect(testRow.locator("td").nth(2)).toHaveText((counts.test!.bought * 20).toLocaleString("en-US"));
    await screenshot(page, "experiment-shared-metric-results");

    // The flag's test box says why a shopper got its variant: the variant hash against the split
    const experimentUrl = page.url();
    await page.goto(`${site.url}/feature-flags`);
    await page.locator('[data-testid="flag-row"][data-key="checkout-button"]').getByTestId("flag-link").click();
    const box = page.getByTestId("flag-test");
    await box.getByTestId("test-distinct-id").fill("shopper-0");
    await box.getByTestId("test-run").click();
    await expect(box.getByTestId("test-variant-hash")).toHaveText(/^Variant hash 0\.\d{4} falls in (control's range 0\.00–0\.50|test's range 0\.50–1\.00)\.$/);
    await screenshot(page, "experiment-flag-why-variant");
    await page.goto(experimentUrl);

    await page.getByTestId("ship-test").click();
    await page.getByTestId("ship-dialog-confirm").click();
    await expect(page.getByTestId("experiment-status")).toHaveText("complete");
    await expect(testRow.getByText("shipped")).toBeVisible();
    await screenshot(page, "experiment-shipped");

    // The flag now serves test to everyone
    const after = new PostHog(site.projectKey, { host: site.url });
    expect(await after.getFeatureFlag("checkout-button", "someone-new")).toBe("test");
    await after.shutdown();
  });
});
