/**
 * A cohort in a feature flag (issue 18): the flag editor's "+ Add cohort" offers the
 * project's cohorts by name (one with filters on events listed but not choosable), the flag
 * is saved with "is in <cohort>", the flag page shows the cohort by name, and /flags answers
 * a member true and a non-member false. Cohorts are inserted with SQL on a PostgreSQL
 * deployment (the cohorts API lives in another branch); persons come in through posthog-node.
 */
import { expect, test } from "@playwright/test";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { createDeployment, personOf, waitFor, type Deployment } from "./support/burrow";
import type { RunningServer } from "./support/server";
import { screenshot } from "./support/site";

const OWNER = { email: "sdk@example.com", password: "sdk-password-123" };

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

  test("choose a cohort in the flag editor, save, and /flags answers its members", async ({ page }) => {
    test.setTimeout(180_000);
    const client = new PostHog(deployment.projectKey, { host: server.url, flushAt: 1, flushInterval: 0 });
    client.identify({ distinctId: "ada", properties: { email: "ada@burrow.test", plan: "pro" } });
    client.identify({ distinctId: "bob", properties: { email: "bob@example.com", plan: "pro" } });
    await client.shutdown();
    await deployment.read(async (query) => {
      await waitFor("ada's person", () => personOf(query, deployment.projectId, "ada").then((person) => person ?? undefined));
      await waitFor("bob's person", () => personOf(query, deployment.projectId, "bob").then((person) => person ?? undefined));
      const insert = (name: string, filters: unknown) =>
        query(`INSERT INTO cohorts (project_id, name, filters, updated_at) VALUES ($1, $2, $3::jsonb, now())`, [deployment.projectId, name, JSON.stringify(filters)]);
      await insert("Burrow team", { properties: { type: "OR", values: [{ type: "AND", values: [{ type: "person", key: "email", operator: "icontains", value: "@burrow.test" }] }] } });
      await insert("Recent visitors", {
        properties: { type: "OR", values: [{ type: "AND", values: [{ type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events", time_value: 7, time_interval: "day" }] }] },
      });
    });

    await signIn(page, OWNER, server.url);
    await page.goto(`${server.url}/feature-flags/new`);
    await page.getByTestId("flag-key").fill("team-preview");
    await page.getByTestId("flag-name").fill("Preview for the Burrow team");
    const condition = page.getByTestId("condition-0");
    await condition.getByTestId("add-cohort").click();
    const picker = condition.getByTestId("cohort-picker");
    await expect(picker.locator("option", { hasText: "Burrow team" })).toBeEnabled();
    // The behavioural cohort is listed, with the reason it cannot be chosen.
    await expect(picker.locator("option", { hasText: "Recent visitors" })).toBeDisabled();
    await expect(picker.locator("option", { hasText: "Recent visitors" })).toContainText("uses events");
    await expect(condition.getByTestId("cohort-picker-hint")).toHaveText("Cohorts with filters on events cannot be used in flags.");
    // Saving without a cohort names the picker.
    await condition.getByTestId("rollout-input").fill("100");
    await page.getByTestId("flag-save").click();
    await expect(page.getByTestId("flag-form-error")).toContainText("Choose a cohort.");
    await expect(picker).toHaveAttribute("aria-invalid", "true");

    await picker.selectOption({ label: "Burrow team" });
    await expect(page.getByTestId("flag-form-error")).toHaveCount(0);
    await expect(condition.getByTestId("cohort-operator")).toHaveValue("in");
    await screenshot(page, "flag-cohort-new");
    await page.getByTestId("flag-save").click();
    await expect(page).toHaveURL(/\/feature-flags\/\d+$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("team-preview");

    // The saved flag names its cohort.
    const saved = page.getByTestId("condition-0").getByTestId("cohort-picker");
    await expect(saved.locator("option:checked")).toHaveText("Burrow team");
    await screenshot(page, "flag-cohort-1280");

    // /flags: the member gets it, the other person does not.
    expect((await flagsFor("ada"))["team-preview"]?.enabled).toBe(true);
    expect((await flagsFor("bob"))["team-preview"]?.enabled).toBe(false);

    // "is not in" flips it.
    await page.getByTestId("condition-0").getByTestId("cohort-operator").selectOption("not_in");
    await page.getByTestId("flag-save").click();
    await expect(page.getByTestId("flag-saved")).toContainText("version 2");
    await expect(async () => {
      expect((await flagsFor("ada"))["team-preview"]?.enabled).toBe(false);
      expect((await flagsFor("bob"))["team-preview"]?.enabled).toBe(true);
    }).toPass({ timeout: 5_000 });

    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId("condition-0").getByTestId("cohort-picker")).toBeVisible();
    await screenshot(page, "flag-cohort-390");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
});
