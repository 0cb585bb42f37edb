/**
 * The feature-flags page (issue 6): a flag created with a person-property condition, rolled
 * out, tested for a user whose properties came in through posthog-node (the matching
 * condition is shown), toggled from the keyboard, checked at 390 px, and deleted; the list's
 * pager from the keyboard; and a flag bucketed by a group tested for a group key, with why.
 */
import { createHash } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { expectNoHorizontalScroll, screenshot, useBootstrappedSite } from "./support/site";

const USER = { email: "flags@example.com", password: "flags-password-123" };

test.describe("feature flags page", () => {
  const site = useBootstrappedSite(USER);

  async function testFor(page: Page, distinctId: string, properties = "") {
    const box = page.getByTestId("flag-test");
    await box.getByTestId("test-distinct-id").fill(distinctId);
    await box.getByTestId("test-properties").fill(properties);
    await box.getByTestId("test-run").click();
    return box.getByTestId("test-result");
  }

  test("create a flag with a condition, roll it out, test it for a user, toggle and delete it", async ({ page }) => {
    test.setTimeout(180_000);
    // A person whose properties arrive through ingestion, as an app would send them.
    const client = new PostHog(site.projectKey, { host: site.url, flushAt: 1, flushInterval: 0 });
    client.identify({ distinctId: "ada", properties: { email: "ada@burrow.test", plan: "enterprise" } });
    await client.shutdown();

    await signIn(page, USER, site.url);
    await page.getByRole("link", { name: "Feature flags" }).first().click();
    await expect(page).toHaveURL(/\/feature-flags$/);
    await expect(page.getByTestId("flags-list")).toHaveAttribute("data-state", "empty");
    await screenshot(page, "flags-empty");

    // Create: one condition set on the person's e-mail, rolled out to nobody yet.
    await page.getByTestId("new-flag").click();
    await expect(page).toHaveURL(/\/feature-flags\/new$/);
    await page.getByTestId("flag-key").fill("new onboarding");
    await page.getByTestId("flag-name").fill("The new onboarding flow");
    const condition = page.getByTestId("condition-0");
    await condition.getByTestId("add-property").click();
    await condition.getByTestId("property-key").fill("email");
    await condition.getByTestId("property-operator").selectOption("icontains");
    await condition.getByTestId("property-value").fill("@burrow.test");
    // A new flag starts as PostHog's does, rolled out to everyone matching; hold it back to 0% here.
    await expect(condition.getByTestId("rollout-input")).toHaveValue("100");
    await condition.getByTestId("rollout-input").fill("0");
    // The contract's own key rule, shown by the field before anything is sent.
    await page.getByTestId("flag-save").click();
    await expect(page.getByTestId("flag-key-error")).toHaveText("Only letters, numbers, hyphens (-) & underscores (_) are allowed.");
    await page.getByTestId("flag-key").fill("new-onboarding");
    await screenshot(page, "flag-new");
    await page.getByTestId("flag-save").click();
    await expect(page).toHaveURL(/\/feature-flags\/\d+$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("new-onboarding");

    // At 0% the condition matches but the rollout leaves ada out.
    let result = await testFor(page, "ada");
    await expect(result.getByTestId("test-value")).toHaveText("false");
    await expect(result.getByTestId("test-reason")).toHaveText("Out of rollout bound of condition set 1 (email contains @burrow.test)");
    await expect(result.getByTestId("test-why")).toHaveText(/^Its filters match, but bucket 0\.\d+ > rollout 0%: outside the rollout\.$/);

    // Roll it out with the slider (keyboard: End goes to 100%) and save.
    const slider = page.getByTestId("condition-0").getByTestId("rollout-slider");
    await slider.focus();
    await page.keyboard.press("End");
    await expect(page.getByTestId("condition-0").getByTestId("rollout-input")).toHaveValue("100");
    await page.getByTestId("payload-true").fill('{"steps": 3}');
    await page.getByTestId("flag-save").click();
    await expect(page.getByTestId("flag-saved")).toHaveText("Saved · version 2");
    await expect(page.getByTestId("flag-history")).toContainText("updated (filters)");
    await expect(page.getByTestId("flag-history")).toContainText("created");

    result = await testFor(page, "ada");
    await expect(result.getByTestId("test-value")).toHaveText("true");
    await expect(result.getByTestId("test-reason")).toHaveText("Matched condition set 1 (email contains @burrow.test)");
    await expect(result.getByTestId("test-payload")).toHaveText('{"steps":3}');
    await screenshot(page, "flag-tested");
    // Typed properties win over the stored ones.
    result = await testFor(page, "ada", '{"email": "ada@elsewhere.example"}');
    await expect(result.getByTestId("test-reason")).toHaveText("No matching condition set");
    result = await testFor(page, "bob", "[1]");
    await expect(page.getByTestId("test-error")).toHaveText('Person properties must be a JSON object, e.g. {"plan": "pro"}.');

    // Variants must sum to 100: the form says so and nothing is saved.
    await page.getByTestId("flag-multivariate").check();
    await page.getByTestId("variant-0").getByTestId("variant-rollout").fill("70");
    await expect(page.getByTestId("variant-sum")).toContainText("Total 120%");
    await page.getByTestId("flag-save").click();
    await expect(page.getByTestId("flag-form-error")).toContainText("Variant rollout percentages must sum to 100.");
    await page.getByTestId("flag-multivariate").uncheck();

    // Toggle it off from the keyboard: the test now says the flag is disabled.
    const toggle = page.getByTestId("flag-active-switch");
    await toggle.focus();
    await page.keyboard.press("Space");
    await expect(toggle).toHaveAttribute("aria-checked", "false");
    await expect(page.getByTestId("flag-history")).toContainText("updated (active)");
    result = await testFor(page, "ada");
    await expect(result.getByTestId("test-value")).toHaveText("false");
    await expect(result.getByTestId("test-reason")).toHaveText(/disabled/i);

    // The list: rollout summary, status, search; and at 390 px.
    await page.getByRole("link", { name: "Feature flags" }).first().click();
    const row = page.getByTestId("flag-row");
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId("flag-rollout")).toHaveText("100% of users matching 1 condition");
    await expect(row.getByTestId("flag-active-switch")).toHaveAttribute("aria-checked", "false");
    await row.getByTestId("flag-active-switch").click();
    await expect(row.getByTestId("flag-active-switch")).toHaveAttribute("aria-checked", "true");
    await page.getByTestId("flags-search").fill("nothing-like-it");
    await expect(page.getByTestId("flags-list")).toHaveAttribute("data-state", "empty");
    await expect(page.getByTestId("flags-list")).toContainText("No feature flags match");
    // Clearing from the keyboard gives the search box the focus back.
    await page.getByTestId("flags-clear").focus();
    await page.keyboard.press("Enter");
    await expect(row).toHaveCount(1);
    await expect(page.getByTestId("flags-search")).toBeFocused();
    await expect(page.getByTestId("flags-search")).toHaveValue("");
    await page.getByTestId("flags-search").fill("onboard");
    await expect(row).toHaveCount(1);
    await screenshot(page, "flags-list");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "flags-list-390");
    await expectNoHorizontalScroll(page);
    await row.getByTestId("flag-link").click();
    await expect(page.getByTestId("flag-form")).toBeVisible();
    await screenshot(page, "flag-390");
    await expectNoHorizontalScroll(page);
    await page.setViewportSize({ width: 1280, height: 900 });

    // Delete, confirmed in the dialog: back on an empty list.
    await page.getByTestId("flag-delete").click();
    await expect(page.getByTestId("flag-delete-dialog")).toBeVisible();
    await page.getByTestId("flag-delete-dialog-confirm").click();
    await expect(page).toHaveURL(/\/feature-flags$/);
    await page.getByTestId("flags-search").fill("");
    await expect(page.getByTestId("flags-list")).toHaveAttribute("data-state", "empty");
  });

  test("pages of 50 from the keyboard: the focus stays on the pager when a button turns disabled", async ({ page }) => {
    for (let i = 0; i < 51; i++) {
      const response = await fetch(`${site.url}/api/projects/${site.projectId}/feature_flags/`, {
        method: "POST",
        headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
        body: JSON.stringify({ key: `paged-${String(i).padStart(2, "0")}` }),
      });
      expect(response.status).toBe(201);
    }
    await signIn(page, USER, site.url);
    await page.goto(`${site.url}/feature-flags`);
    await page.getByTestId("flags-search").fill("paged-");
    const rows = page.getByTestId("flag-row");
    await expect(rows).toHaveCount(50);
    await expect(page.getByTestId("flags-count")).toHaveText("51 feature flags");
    const previous = page.getByRole("button", { name: "Previous" });
    const next = page.getByRole("button", { name: "Next" });
    await next.focus();
    await page.keyboard.press("Enter");
    await expect(rows).toHaveCount(1);
    await expect(next).toBeDisabled();
    await expect(previous).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(rows).toHaveCount(50);
    await expect(previous).toBeDisabled();
    await expect(next).toBeFocused();
  });

  test("test a flag bucketed by a group: the key typed for its group type is what evaluation hashes", async ({ page }) => {
    // The project's group type "company" and one company, as posthog-node's groupIdentify sends them
    const client = new PostHog(site.projectKey, { host: site.url, flushAt: 1, flushInterval: 0 });
    client.groupIdentify({ groupType: "company", groupKey: "globex", properties: { tier: "enterprise" } });
    await client.shutdown();
    const created = await fetch(`${site.url}/api/projects/${site.projectId}/feature_flags/`, {
      method: "POST",
      headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        key: "company-beta",
        filters: {
          aggregation_group_type_index: 0,
          groups: [{ properties: [{ key: "tier", type: "group", group_type_index: 0, operator: "exact", value: ["enterprise"] }], rollout_percentage: 100 }],
          multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] },
        },
      }),
    });
    expect(created.status).toBe(201);
    const flagId = ((await created.json()) as { id: number }).id;
    // PostHog's variant hash of the group key, computed here: sha1("<flag key>.<group key>variant")
    const hash = parseInt(createHash("sha1").update("company-beta.globexvariant").digest("hex").slice(0, 15), 16) / 0xfffffffffffffff;
    const expected = hash < 0.5 ? "control" : "test";

    // Ingestion has stored the group (its type and tier) once /flags serves it the flag
    const reader = new PostHog(site.projectKey, { host: site.url });
    await expect.poll(() => reader.getFeatureFlag("company-beta", "ada", { groups: { company: "globex" } }), { timeout: 30_000 }).toBe(expected);
    await reader.shutdown();

    await signIn(page, USER, site.url);
    await page.goto(`${site.url}/feature-flags/${flagId}`);
    const box = page.getByTestId("flag-test");
    await expect(box.getByTestId("test-group-company")).toBeVisible({ timeout: 20_000 });
    await expect(box.getByTestId("test-group-note")).toHaveText("This flag buckets by company: give its key, as an SDK sends them in groups.");

    // Without the key the flag is off, and the box says what is missing
    await box.getByTestId("test-distinct-id").fill("ada");
    await box.getByTestId("test-run").click();
    await expect(box.getByTestId("test-reason")).toHaveText("No group type");
    await expect(box.getByTestId("test-result")).toContainText("Give the company key above: without it the flag is off.");

    await box.getByTestId("test-group-company").fill("globex");
    await box.getByTestId("test-group-company").press("Enter");
    await expect(box.getByTestId("test-value")).toHaveText(expected);
    await expect(box.getByTestId("test-reason")).toHaveText(/^Matched condition set 1/);
    await expect(box.getByTestId("test-why")).toHaveText(/^Its filters match and bucket 0\.\d+ ≤ rollout 100%: inside the rollout\.$/);
    await expect(box.getByTestId("test-bucketed-by")).toHaveText("Hashed by the company key globex.");
    await expect(box.getByTestId("test-variant-hash")).toHaveText(`Variant hash ${hash.toFixed(4)} falls in ${expected}'s range ${expected === "control" ? "0.00–0.50" : "0.50–1.00"}.`);
    await screenshot(page, "flag-test-group");
    await page.setViewportSize({ width: 390, height: 844 });
    await box.scrollIntoViewIfNeeded();
    await screenshot(page, "flag-test-group-390");
  });
});
