/**
 * A cohort in a feature flag, end to end in the browser (issue 18): persons come in through
 * posthog-node; a person-property cohort (e-mail contains "@acme.com") is built on
 * /cohorts/new and the worker lists its member; a behavioural cohort and a static one (CSV
 * upload) are made the same way. The flag editor's "+ Add cohort" offers them by name (the
 * behavioural one listed but not choosable), the flag is saved with "is in <cohort>", and
 * /flags and posthog-node answer a member true and a non-member false. On PostgreSQL, as
 * e2e/cohorts.spec.ts covers the embedded database.
 */
import { expect, test, type Locator, type Page } from "@playwright/test";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { createDeployment, type Deployment } from "./support/burrow";
import type { RunningServer } from "./support/server";
import { expectNoHorizontalScroll, screenshot } from "./support/site";

const OWNER = { email: "sdk@example.com", password: "sdk-password-123" };

/** The select is at least as wide as its own content (its longest option): no label is cut. */
async function expectUncut(select: Locator): Promise<void> {
  const { shown, needed } = await select.evaluate((element: HTMLSelectElement) => {
    const shown = element.getBoundingClientRect().width;
    const before = element.style.width;
    element.style.width = "max-content";
    const needed = element.getBoundingClientRect().width;
    element.style.width = before;
    return { shown, needed };
  });
  expect(shown, `select ${shown}px wide, its content needs ${needed}px`).toBeGreaterThanOrEqual(needed - 0.5);
}

/** A full-page screenshot from the top: scrolled, the sticky header lands mid-picture, over the form. */
async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, name);
}

async function newCohort(page: Page, url: string, name: string): Promise<void> {
  await page.goto(`${url}/cohorts/new`);
  await page.getByTestId("cohort-name").fill(name);
}

test.describe("cohorts in feature flags", () => {
  let deployment: Deployment;
  let server: RunningServer;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    deployment = await createDeployment("postgres");
    server = await deployment.start();
  });

  test.afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    await deployment?.dispose();
  });

  async function flagsFor(distinctId: string): Promise<Record<string, { enabled: boolean }>> {
    const response = await fetch(`${server.url}/flags/?v=2`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: deployment.projectKey, distinct_id: distinctId }) });
    expect(response.status).toBe(200);
    return ((await response.json()) as { flags: Record<string, { enabled: boolean }> }).flags;
  }

  test("build a cohort on the cohorts page, choose it in the flag editor, and /flags answers its members", async ({ page }) => {
    test.setTimeout(240_000);
    // Persons through the real batch endpoint: identify sets e-mails; bob has a pageview.
    const client = new PostHog(deployment.projectKey, { host: server.url, flushAt: 1, flushInterval: 0 });
    client.identify({ distinctId: "ada", properties: { email: "ada@acme.com", plan: "pro" } });
    client.identify({ distinctId: "bob", properties: { email: "bob@example.com", plan: "pro" } });
    client.identify({ distinctId: "cy", properties: { email: "cy@example.com", plan: "free" } });
    client.capture({ distinctId: "bob", event: "$pageview", properties: { $current_url: "https://example.com/" } });
    await client.shutdown();

    await signIn(page, OWNER, server.url);

    // The cohort, built in the browser: e-mail contains "@acme.com".
    await newCohort(page, server.url, "Acme people");
    const condition = page.getByTestId("cohort-group-0").getByTestId("cohort-condition").nth(0);
    await expect(condition.getByTestId("condition-kind")).toHaveValue("person");
    await condition.getByTestId("property-key").fill("email");
    await condition.getByTestId("property-operator").selectOption("icontains");
    await condition.getByTestId("property-value").fill("@acme.com");
    await shot(page, "cohort-acme-new-1280");
    await page.getByTestId("cohort-save").click();
    await expect(page).toHaveURL(/\/cohorts\/\d+$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Acme people");
    // The worker computes it: ada is its one member.
    const members = page.getByTestId("cohort-members");
    await expect(members.getByTestId("cohort-count")).toHaveText("1 person", { timeout: 30_000 });
    await expect(members.getByTestId("cohort-member").getByRole("link")).toHaveText(["ada@acme.com"]);
    await shot(page, "cohort-acme-1280");

    // At phone width the condition's kind select shows "Person property" whole.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(condition.getByTestId("condition-kind").locator("option:checked")).toHaveText("Person property");
    await expectUncut(condition.getByTestId("condition-kind"));
    await shot(page, "cohort-acme-390");
    await expectNoHorizontalScroll(page);
    await page.setViewportSize({ width: 1280, height: 900 });

    // A behavioural cohort: flags cannot use it.
    await newCohort(page, server.url, "Recent visitors");
    const visited = page.getByTestId("cohort-group-0").getByTestId("cohort-condition").nth(0);
    await visited.getByTestId("condition-kind").selectOption("behavioral");
    await visited.getByTestId("condition-event").fill("$pageview");
    await visited.getByTestId("condition-count").fill("1");
    await visited.getByTestId("condition-days").fill("7");
    await page.getByTestId("cohort-save").click();
    await expect(page).toHaveURL(/\/cohorts\/\d+$/);
    await expect(members.getByTestId("cohort-count")).toHaveText("1 person", { timeout: 30_000 });

    // A static cohort from a CSV of distinct ids.
    await newCohort(page, server.url, "Beta testers");
    await page.getByTestId("cohort-type-static").check();
    await page.getByTestId("cohort-csv").setInputFiles({ name: "beta.csv", mimeType: "text/csv", buffer: Buffer.from("cy\n") });
    await page.getByTestId("cohort-save").click();
    await expect(page).toHaveURL(/\/cohorts\/\d+$/);
    await expect(members.getByTestId("cohort-member").getByRole("link")).toHaveText(["cy@example.com"]);

    // The flag editor offers the cohorts by name.
    await page.goto(`${server.url}/feature-flags/new`);
    await page.getByTestId("flag-key").fill("team-preview");
    await page.getByTestId("flag-name").fill("Preview for Acme");
    const first = page.getByTestId("condition-0");
    await first.getByTestId("add-cohort").click();
    const picker = first.getByTestId("cohort-picker");
    await expect(picker.locator("option", { hasText: "Acme people" })).toBeEnabled();
    await expect(picker.locator("option", { hasText: "Beta testers" })).toHaveText("Beta testers (static)");
    await expect(picker.locator("option", { hasText: "Beta testers" })).toBeEnabled();
    // The behavioural cohort is listed, with the reason it cannot be chosen.
    await expect(picker.locator("option", { hasText: "Recent visitors" })).toBeDisabled();
    await expect(picker.locator("option", { hasText: "Recent visitors" })).toContainText("uses events");
    await expect(first.getByTestId("cohort-picker-hint")).toHaveText("Cohorts with filters on events cannot be used in flags.");
    // Saving without a cohort names the picker.
    await first.getByTestId("rollout-input").fill("100");
    await page.getByTestId("flag-save").click();
    await expect(page.getByTestId("flag-form-error")).toContainText("Choose a cohort.");
    await expect(picker).toHaveAttribute("aria-invalid", "true");

    await picker.selectOption({ label: "Acme people" });
    await expect(page.getByTestId("flag-form-error")).toHaveCount(0);
    await expect(first.getByTestId("cohort-operator")).toHaveValue("in");
    await shot(page, "flag-cohort-new");
    await page.getByTestId("flag-save").click();
    await expect(page).toHaveURL(/\/feature-flags\/\d+$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("team-preview");
    // The saved flag names its cohort.
    await expect(page.getByTestId("condition-0").getByTestId("cohort-picker").locator("option:checked")).toHaveText("Acme people");

    // /flags and posthog-node: the member gets it, the others do not.
    expect((await flagsFor("ada"))["team-preview"]?.enabled).toBe(true);
    expect((await flagsFor("bob"))["team-preview"]?.enabled).toBe(false);
    const sdk = new PostHog(deployment.projectKey, { host: server.url, flushAt: 1, flushInterval: 0 });
    try {
      expect((await sdk.evaluateFlags("ada")).isEnabled("team-preview")).toBe(true);
      expect((await sdk.evaluateFlags("cy")).isEnabled("team-preview")).toBe(false);
    } finally {
      await sdk.shutdown();
    }

    // A second condition set with the static cohort lets cy in too.
    await page.getByTestId("add-condition").click();
    const second = page.getByTestId("condition-1");
    await second.getByTestId("add-cohort").click();
    await second.getByTestId("cohort-picker").selectOption({ label: "Beta testers (static)" });
    await second.getByTestId("rollout-input").fill("100");
    await page.getByTestId("flag-save").click();
    await expect(page.getByTestId("flag-saved")).toContainText("version 2");
    await shot(page, "flag-cohort-1280");
    await expect(async () => {
      expect((await flagsFor("cy"))["team-preview"]?.enabled).toBe(true);
      expect((await flagsFor("ada"))["team-preview"]?.enabled).toBe(true);
      expect((await flagsFor("bob"))["team-preview"]?.enabled).toBe(false);
    }).toPass({ timeout: 5_000 });

    // "is not in" flips the first set: bob now matches it; ada matches neither set.
    await page.getByTestId("condition-0").getByTestId("cohort-operator").selectOption("not_in");
    await page.getByTestId("flag-save").click();
    await expect(page.getByTestId("flag-saved")).toContainText("version 3");
    await expect(async () => {
      expect((await flagsFor("ada"))["team-preview"]?.enabled).toBe(false);
      expect((await flagsFor("bob"))["team-preview"]?.enabled).toBe(true);
    }).toPass({ timeout: 5_000 });

    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId("condition-0").getByTestId("cohort-picker")).toBeVisible();
    await shot(page, "flag-cohort-390");
    await expectNoHorizontalScroll(page);
  });
});
