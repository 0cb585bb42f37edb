/**
 * The cohorts page (issue 18): a dynamic cohort built from person properties (with a "Not"
 * condition) in the browser, its count and members computed by the server's background
 * worker; a static cohort from a CSV upload, then more people added from a second file; the
 * list at 1280 and 390 px.
 */
import { expect, test } from "@playwright/test";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { expectNoHorizontalScroll, screenshot, useBootstrappedSite } from "./support/site";

const USER = { email: "cohorts@example.com", password: "cohorts-password-123" };

test.describe("cohorts page", () => {
  const site = useBootstrappedSite(USER);

  test("build a person-property cohort, see its count and members; upload a CSV for a static one", async ({ page }) => {
    test.setTimeout(180_000);
    const client = new PostHog(site.projectKey, { host: site.url, flushAt: 1, flushInterval: 0 });
    client.identify({ distinctId: "ada", properties: { email: "ada@burrow.test", plan: "enterprise" } });
    client.identify({ distinctId: "bo", properties: { email: "bo@burrow.test", plan: "free" } });
    client.identify({ distinctId: "cy", properties: { email: "cy@elsewhere.example", plan: "free" } });
    for (const distinctId of ["ada", "ada", "bo"]) client.capture({ distinctId, event: "viewed pricing" });
    await client.shutdown();

    await signIn(page, USER, site.url);
    await page.getByRole("link", { name: "Cohorts" }).first().click();
    await expect(page).toHaveURL(/\/cohorts$/);
    await expect(page.getByTestId("cohorts-list")).toHaveAttribute("data-state", "empty");

    // A dynamic cohort: e-mail at burrow.test, and NOT on the free plan.
    await page.getByTestId("new-cohort").click();
    await expect(page).toHaveURL(/\/cohorts\/new$/);
    await page.getByTestId("cohort-name").fill("Paying Burrow people");
    const group = page.getByTestId("cohort-group-0");
    const first = group.getByTestId("cohort-condition").nth(0);
    await first.getByTestId("property-key").fill("email");
    await first.getByTestId("property-operator").selectOption("icontains");
    await first.getByTestId("property-value").fill("@burrow.test");
    await group.getByTestId("add-condition").click();
    const second = group.getByTestId("cohort-condition").nth(1);
    await second.getByTestId("property-key").fill("plan");
    await second.getByTestId("property-value").fill("free");
    // Keyboard: the "Not" box toggles with Space.
    await second.getByTestId("condition-negation").focus();
    await page.keyboard.press("Space");
    await expect(second.getByTestId("condition-negation")).toBeChecked();
    await screenshot(page, "cohort-new");
    await page.getByTestId("cohort-save").click();
    await expect(page).toHaveURL(/\/cohorts\/\d+$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Paying Burrow people");

    // The worker computes it; the page polls until the count is there.
    const members = page.getByTestId("cohort-members");
    await expect(members.getByTestId("cohort-count")).toHaveText("1 person", { timeout: 30_000 });
    const member = members.getByTestId("cohort-member");
    await expect(member).toHaveCount(1);
    await expect(member.getByRole("link")).toHaveText("ada@burrow.test");
    await expect(member.getByRole("link")).toHaveAttribute("href", /^\/persons\/[0-9a-f-]{36}$/);
    await screenshot(page, "cohort-dynamic");

    // Widen it (any group: a second group for cy's domain) and save: recomputed.
    await page.getByTestId("add-group").click();
    const other = page.getByTestId("cohort-group-1").getByTestId("cohort-condition").nth(0);
    await other.getByTestId("property-key").fill("email");
    await other.getByTestId("property-operator").selectOption("icontains");
    await other.getByTestId("property-value").fill("elsewhere");
    await page.getByTestId("cohort-save").click();
    await expect(page.getByTestId("cohort-saved")).toBeVisible();
    await expect(members.getByTestId("cohort-count")).toHaveText("2 persons", { timeout: 30_000 });
    await expect(member).toHaveCount(2);

    // A static cohort from a CSV of distinct ids (no header needed).
    await page.getByRole("link", { name: "Cohorts" }).first().click();
    await page.getByTestId("new-cohort").click();
    await page.getByTestId("cohort-name").fill("Beta testers");
    await page.getByTestId("cohort-type-static").check();
    await page.getByTestId("cohort-csv").setInputFiles({ name: "beta.csv", mimeType: "text/csv", buffer: Buffer.from("bo\ncy\nnobody\n") });
    await page.getByTestId("cohort-save").click();
    await expect(page).toHaveURL(/\/cohorts\/\d+$/);
    await expect(members.getByTestId("cohort-count")).toHaveText("2 persons");
    await expect(member).toHaveCount(2);
    // More people from a second file, by e-mail; a bad file says what is wrong.
    const upload = page.getByTestId("cohort-upload");
    await upload.getByTestId("cohort-csv").setInputFiles({ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from("name,age\nada,3\n") });
    await upload.getByTestId("cohort-upload-submit").click();
    await expect(page.getByTestId("cohort-upload-error")).toContainText("Multi-column CSV must contain at least one column with a supported ID header");
    await upload.getByTestId("cohort-csv").setInputFiles({ name: "more.csv", mimeType: "text/csv", buffer: Buffer.from("email\nada@burrow.test\n") });
    await upload.getByTestId("cohort-upload-submit").click();
    await expect(page.getByTestId("cohort-upload-done")).toBeVisible();
    await expect(members.getByTestId("cohort-count")).toHaveText("3 persons");
    await expect(member).toHaveCount(3);
    await screenshot(page, "cohort-static");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "cohort-static-390");
    await expectNoHorizontalScroll(page);

    // The list, at 390 px (the nav may fold there: go by URL) and at 1280.
    await page.goto(`${site.url}/cohorts`);
    const rows = page.getByTestId("cohort-row");
    await expect(rows).toHaveCount(2);
    await expect(page.locator('[data-testid="cohort-row"][data-name="Beta testers"]').getByTestId("cohort-count")).toHaveText("3 persons");
    await expect(page.locator('[data-testid="cohort-row"][data-name="Paying Burrow people"]').getByTestId("cohort-count")).toHaveText("2 persons");
    await screenshot(page, "cohorts-list-390");
    await expectNoHorizontalScroll(page);
    await page.locator('[data-testid="cohort-row"][data-name="Paying Burrow people"]').getByTestId("cohort-link").click();
    await expect(page.getByTestId("cohort-form")).toBeVisible();
    await screenshot(page, "cohort-dynamic-390");
    await expectNoHorizontalScroll(page);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole("link", { name: "Cohorts" }).first().click();
    await expect(rows).toHaveCount(2);
    await screenshot(page, "cohorts-list");

    // Behavioral: viewed pricing at least twice in the last 30 days (ada twice, bo once).
    await page.getByTestId("new-cohort").click();
    await page.getByTestId("cohort-name").fill("Pricing lookers");
    const condition = page.getByTestId("cohort-group-0").getByTestId("cohort-condition").nth(0);
    await condition.getByTestId("condition-kind").selectOption("behavioral");
    await condition.getByTestId("condition-event").fill("viewed pricing");
    await condition.getByTestId("condition-count").fill("2");
    await condition.getByTestId("condition-days").fill("30");
    await screenshot(page, "cohort-behavioral-new");
    await page.getByTestId("cohort-save").click();
    await expect(page).toHaveURL(/\/cohorts\/\d+$/);
    await expect(members.getByTestId("cohort-count")).toHaveText("1 person", { timeout: 30_000 });
    await expect(member.getByRole("link")).toHaveText("ada@burrow.test");
    await expect(page.getByTestId("cohort-members").getByText("Behavioral")).toBeVisible();
  });
});
