/**
 * Experiments (issue 37): an experiment created in the form, launched; exposures made by real
 * posthog-node getFeatureFlag calls (each sends `$feature_flag_called` with the variant
 * /flags gave), purchases that favour `test`; the results page's verdict, table and interval
 * chart read; then "ship test" rolls the flag to it and ends the experiment. Then a shared metric
 * edited and deleted on the experiments page, by keyboard, at 390 px: the experiment using it
 * reads the edit, and the deletion's confirmation names it before removing the metric from it.
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
    // Each read waits up to 10 s for the page (a loaded machine renders it in several).
    const testRow = page.getByTestId("result-row").filter({ hasText: "test" });
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId("result-row").filter({ hasText: "control" }).locator("td").nth(1)).toHaveText(String(counts.control!.n), { timeout: 10_000 });
      await expect(testRow.locator("td").nth(2)).toHaveText(String(counts.test!.bought), { timeout: 10_000 });
    }).toPass({ timeout: 120_000 });
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

  test("edit and delete a shared metric an experiment uses, by keyboard, at 390 px", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, USER, site.url);
    await page.goto(`${site.url}/experiments`);
    const rows = page.getByTestId("shared-metric-row");
    await expect(page.getByTestId("shared-metric-list").or(page.getByTestId("shared-metrics-empty"))).toBeVisible();
    const before = await rows.count();

    // The form checks with the REST contract, and a shared metric needs its event
    await page.getByTestId("shared-metric-name").fill("Signups");
    await page.getByTestId("shared-metric-save").click();
    await expect(page.getByTestId("shared-metric-event-error")).toHaveText("Give the event the metric counts.");
    await page.getByTestId("shared-metric-event").fill("signup");
    await expect(page.getByTestId("shared-metric-event-error")).toHaveCount(0);
    await page.getByTestId("shared-metric-save").click();
    const row = page.locator('[data-testid="shared-metric-row"][data-name="Signups"]');
    await expect(row).toContainText("Conversion: signup");
    await expect(rows).toHaveCount(before + 1);

    // An experiment linking it, made through the API
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${site.url}/api/projects/${site.projectId}/${path}`, { ...init, headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" } }).then((response) => response.json());
    const metrics = (await api("experiment_saved_metrics/")) as { results: { id: number; name: string }[] };
    const metricId = metrics.results.find((metric) => metric.name === "Signups")!.id;
    const experiment = (await api("experiments/", { method: "POST", body: JSON.stringify({ name: "Onboarding", feature_flag_key: "onboarding", saved_metrics_ids: [{ id: metricId }] }) })) as { id: number };

    // Edit by keyboard: Enter on the row's Edit, the name has the focus, Escape closes and gives the focus back
    const edit = row.getByRole("button", { name: "Edit Signups" });
    await edit.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByTestId("shared-metric-edit-dialog");
    await expect(dialog).toBeVisible();
    await expect(page.getByTestId("edit-metric-name")).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(edit).toBeFocused();

    await page.keyboard.press("Enter");
    await expect(page.getByTestId("edit-metric-event")).toHaveValue("signup");
    await page.getByTestId("edit-metric-event").fill("");
    await page.getByTestId("edit-metric-name").press("Enter");
    await expect(page.getByTestId("edit-metric-event-error")).toHaveText("Give the event the metric counts.");
    await page.getByTestId("edit-metric-event").fill("activated");
    await expect(page.getByTestId("edit-metric-event-error")).toHaveCount(0);
    await page.getByTestId("edit-metric-name").fill("Activations");
    await page.getByTestId("edit-metric-description").fill("Did they activate?");
    await page.getByTestId("edit-metric-type").selectOption("mean");
    await page.getByTestId("edit-metric-property").fill("steps");
    await screenshot(page, "shared-metric-edit-390");
    await page.getByTestId("edit-metric-property").press("Enter");
    await expect(dialog).toBeHidden();
    const edited = page.locator('[data-testid="shared-metric-row"][data-name="Activations"]');
    await expect(edited).toContainText("Mean: sum of steps on activated — Did they activate?");
    await screenshot(page, "shared-metrics-edited-390");
    // The experiment reads the edit
    const linked = (await api(`experiments/${experiment.id}/`)) as { saved_metrics: { name: string; query: { metric_type: string; source?: { math_property?: string } } }[] };
    expect(linked.saved_metrics.map((link) => [link.name, link.query.metric_type, link.query.source?.math_property])).toEqual([["Activations", "mean", "steps"]]);

    // Delete: the confirmation names the experiment that loses it, Cancel has the focus
    await edited.getByRole("button", { name: "Delete Activations" }).click();
    const confirm = page.getByTestId("shared-metric-delete-dialog");
    await expect(page.getByTestId("shared-metric-delete-usage")).toHaveText(
      "It is removed from the experiment that uses it (Onboarding): its results stop showing it; its own metrics stay. This cannot be undone.",
    );
    await expect(page.getByTestId("shared-metric-delete-dialog-cancel")).toBeFocused();
    await screenshot(page, "shared-metric-delete-390");
    await page.getByTestId("shared-metric-delete-dialog-confirm").click();
    await expect(confirm).toBeHidden();
    await expect(edited).toHaveCount(0);
    await expect(rows).toHaveCount(before);
    const unlinked = (await api(`experiments/${experiment.id}/`)) as { saved_metrics: unknown[]; saved_metrics_ids: unknown[] };
    expect([unlinked.saved_metrics, unlinked.saved_metrics_ids]).toEqual([[], []]);
    await page.goto(`${site.url}/experiments/${experiment.id}`);
    await expect(page.getByText("This experiment has no metric")).toBeVisible();
    await screenshot(page, "shared-metric-deleted-experiment-390");
  });
});
