/**
 * Surveys and early-access features (issue 36) with the real posthog-js, loaded by PostHog's
 * HTML snippet from Burrow on a page of another origin:
 *
 * - a popover survey targeted at URLs containing /pricing appears on /shop/pricing and not on
 *   /shop; the answer is stored as `survey sent`, the survey does not come back on reload,
 *   and the results page shows the answer;
 * - an early-access feature listed by `getEarlyAccessFeatures` and opted into with
 *   `updateEarlyAccessFeatureEnrollment` turns its flag on in /flags, and the early-access page
 *   lists the person.
 * Screenshots of the survey on the page, the builder, the results and the early-access page.
 */
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { waitFor } from "./support/burrow";
import { expectNoHorizontalScroll, screenshot, servePostHogJsPage, snippetPage, useBootstrappedSite } from "./support/site";

const USER = { email: "surveys@example.com", password: "surveys-password-123" };
const VISITOR = "visitor@shop.example";
const ANSWER = "Cheaper yearly plans, please";

type Json = Record<string, any>;
interface PostHogOnPage {
  __loaded?: boolean;
  identify(id: string): void;
  getEarlyAccessFeatures(callback: (features: Json[]) => void, forceReload?: boolean, stages?: string[]): void;
  updateEarlyAccessFeatureEnrollment(key: string, enrolled: boolean): void;
}

test.describe("surveys and early access with posthog-js", () => {
  const site = useBootstrappedSite(USER);

  async function api(method: string, path: string, body?: unknown) {
    const response = await fetch(`${site.url}/api/projects/${site.projectId}/${path}`, {
      method,
      headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, json: (text.startsWith("{") ? JSON.parse(text) : null) as Json };
  }

  async function loaded(page: Page, url: string) {
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { posthog: PostHogOnPage }).posthog.__loaded === true);
    await page.evaluate((id) => (window as unknown as { posthog: PostHogOnPage }).posthog.identify(id), VISITOR);
  }

  test("a popover survey on /pricing is answered once, and its results page shows the answer", async ({ page, browser }) => {
    test.setTimeout(180_000);
    const created = await api("POST", "surveys/", {
      name: "Pricing feedback",
      type: "popover",
      questions: [{ type: "open", question: "What would make you upgrade?" }],
      conditions: { url: "/pricing", urlMatchType: "icontains" },
      appearance: { backgroundColor: "#fdf6e3", submitButtonText: "Send", displayThankYouMessage: true, thankYouMessageHeader: "Thanks!" },
      start_date: new Date().toISOString(),
    });
    expect(created.status, created.text).toBe(201);
    const surveyId = created.json.id as string;
    const survey = (page: Page) => page.locator(`.PostHogSurvey-${surveyId}`);

    const shop = await servePostHogJsPage(snippetPage(site.projectKey, site.url, "<h1>Shop</h1><p>Plans and prices.</p>"));
    const visitor = await browser.newPage();
    const fromBurrow: string[] = [];
    visitor.on("response", (response) => {
      if (response.url().startsWith(site.url)) fromBurrow.push(`${response.request().method()} ${new URL(response.url()).pathname} ${response.status()}`);
    });
    try {
      // Not on the home page: the survey's URL condition does not match.
      await loaded(visitor, `${shop.origin}/shop`);
      await waitFor("posthog-js to fetch the surveys", async () => (fromBurrow.some((line) => line.startsWith("GET /api/surveys/ 200")) ? true : undefined));
      await visitor.waitForTimeout(2000);
      await expect(survey(visitor)).toHaveCount(0);

      await loaded(visitor, `${shop.origin}/shop/pricing`);
      const textarea = survey(visitor).locator("textarea");
      await expect(textarea).toBeVisible({ timeout: 20_000 });
      await screenshot(visitor, "survey-on-pricing", { fullPage: false });
      await textarea.fill(ANSWER);
      await survey(visitor).locator("button.form-submit").click();
      await expect(survey(visitor).getByText("Thanks!")).toBeVisible();

      const sent = await waitFor("the survey sent event", async () => {
        const response = await api("GET", `events/?event=${encodeURIComponent("survey sent")}`);
        return (response.json.results as Json[]).length > 0 ? (response.json.results as Json[]) : undefined;
      });
      expect(sent[0]!.properties).toMatchObject({ $survey_id: surveyId });
      expect(Object.values(sent[0]!.properties)).toContain(ANSWER);

      // Reloaded: posthog-js has seen it, and the internal targeting flag is off for the person.
      await loaded(visitor, `${shop.origin}/shop/pricing`);
      await visitor.waitForTimeout(3000);
      await expect(survey(visitor)).toHaveCount(0);
      const flags = await fetch(`${site.url}/flags/?v=2`, { method: "POST", body: JSON.stringify({ token: site.projectKey, distinct_id: VISITOR }) });
      const internalKey = created.json.internal_targeting_flag.key as string;
      expect(((await flags.json()) as Json).flags[internalKey].enabled).toBe(false);
    } finally {
      await visitor.close();
      await shop.close();
    }

    await signIn(page, USER, site.url);
    await page.goto(`${site.url}/surveys/${surveyId}/results`);
    await expect(page.getByTestId("results-answer")).toHaveText(ANSWER);
    await expect(page.getByTestId("results-figure").filter({ hasText: "Responses" })).toContainText("1");
    await screenshot(page, "survey-results");
    // Narrowed by a person property nobody has, the answer goes; cleared, it is back.
    const filter = page.getByTestId("results-person-filter");
    await filter.getByTestId("property-key").fill("plan");
    await filter.getByTestId("property-value").fill("enterprise");
    await expect(page.getByTestId("results-answer")).toHaveCount(0);
    await expect(page.getByTestId("results-figure").filter({ hasText: "Responses" })).toContainText("0");
    await filter.getByRole("button", { name: "Clear the person filter" }).click();
    await expect(page.getByTestId("results-answer")).toHaveText(ANSWER);
    await page.goto(`${site.url}/surveys/${surveyId}`);
    await expect(page.getByTestId("preview-text")).toHaveText("What would make you upgrade?");
    await screenshot(page, "survey-builder");
    await page.goto(`${site.url}/surveys`);
    await expect(page.getByTestId("survey-row")).toHaveCount(1);
    await expect(page.getByTestId("survey-status")).toHaveText("Running");
  });

  test("the builder sets who is asked and when: element, devices, events, persons' properties, and a recurring schedule, kept on save", async ({ page }) => {
    test.setTimeout(120_000);
    await signIn(page, USER, site.url);
    await page.goto(`${site.url}/surveys/new`);
    await page.getByTestId("survey-name").fill("Checkout pulse");
    const audience = page.getByTestId("survey-audience");
    await audience.getByTestId("survey-selector").fill("#checkout");
    await audience.getByTestId("survey-device-mobile").check();
    await audience.getByTestId("survey-events").fill("checkout completed");
    await audience.getByTestId("survey-repeated").check();
    await audience.getByTestId("survey-schedule").selectOption("recurring");
    await audience.getByTestId("survey-every").fill("30");
    await audience.getByTestId("survey-times").fill("3");
    await audience.getByTestId("survey-add-targeting").click();
    await audience.getByTestId("add-property").click();
    await audience.getByTestId("property-key").fill("plan");
    await audience.getByTestId("property-value").fill("pro");
    await screenshot(page, "survey-builder-audience");
    await page.getByTestId("survey-save").click();
    await expect(page.getByTestId("survey-status")).toHaveText("Draft");
    const id = page.url().split("/").pop()!;

    const saved = (await api("GET", `surveys/${id}/`)).json;
    expect(saved.conditions).toEqual({ selector: "#checkout", deviceTypes: ["Mobile"], events: { repeatedActivation: true, values: [{ name: "checkout completed" }] } });
    expect(saved).toMatchObject({ schedule: "recurring", iteration_count: 3, iteration_frequency_days: 30 });
    expect(saved.targeting_flag.filters.groups).toEqual([{ properties: [{ key: "plan", type: "person", operator: "exact", value: ["pro"] }], rollout_percentage: 100, variant: null }]);

    // Read back into the form, changed and saved: what was not touched stays.
    await page.reload();
    await expect(audience.getByTestId("survey-events")).toHaveValue("checkout completed");
    await expect(audience.getByTestId("survey-device-mobile")).toBeChecked();
    await audience.getByTestId("survey-device-tablet").check();
    await page.getByTestId("survey-save").click();
    await expect(page.getByTestId("survey-saved")).toBeVisible();
    const resaved = (await api("GET", `surveys/${id}/`)).json;
    expect(resaved.conditions).toMatchObject({ selector: "#checkout", deviceTypes: ["Mobile", "Tablet"], events: { repeatedActivation: true } });
    expect(resaved.targeting_flag.id).toBe(saved.targeting_flag.id);

    await page.setViewportSize({ width: 390, height: 844 });
    await audience.scrollIntoViewIfNeeded();
    await expect(audience.getByTestId("survey-targeting")).toBeVisible();
    await screenshot(page, "survey-builder-audience-narrow");
    await expectNoHorizontalScroll(page);
  });

  test("an early-access feature listed by getEarlyAccessFeatures and opted into turns its flag on", async ({ page, browser }) => {
    test.setTimeout(120_000);
    const created = await api("POST", "early_access_features/", { name: "Dark mode", description: "Night colours", stage: "beta" });
    expect(created.status, created.text).toBe(201);
    const shop = await servePostHogJsPage(snippetPage(site.projectKey, site.url, "<h1>Settings</h1>"));
    const visitor = await browser.newPage();
    try {
      await loaded(visitor, `${shop.origin}/shop/settings`);
      const features = await visitor.evaluate(() => new Promise<Json[]>((resolve) => (window as unknown as { posthog: PostHogOnPage }).posthog.getEarlyAccessFeatures(resolve, true)));
      expect(features.map((feature) => [feature.name, feature.flagKey, feature.stage])).toEqual([["Dark mode", "dark-mode", "beta"]]);
      const before = await fetch(`${site.url}/flags/?v=2`, { method: "POST", body: JSON.stringify({ token: site.projectKey, distinct_id: VISITOR }) });
      expect(((await before.json()) as Json).flags["dark-mode"].enabled).toBe(false);

      await visitor.evaluate(() => (window as unknown as { posthog: PostHogOnPage }).posthog.updateEarlyAccessFeatureEnrollment("dark-mode", true));
      await waitFor("the flag to turn on for the visitor", async () => {
        const response = await fetch(`${site.url}/flags/?v=2`, { method: "POST", body: JSON.stringify({ token: site.projectKey, distinct_id: VISITOR }) });
        return ((await response.json()) as Json).flags["dark-mode"].enabled === true ? true : undefined;
      });
    } finally {
      await visitor.close();
      await shop.close();
    }

    await signIn(page, USER, site.url);
    await page.goto(`${site.url}/early-access`);
    const row = page.getByTestId("eaf-row").filter({ hasText: "Dark mode" });
    await expect(row.getByTestId("eaf-person")).toHaveText(VISITOR);
    await row.getByTestId("eaf-promote").click();
    await expect(row.getByTestId("eaf-stage-badge")).toHaveText("General availability");
    await screenshot(page, "early-access");
  });
});
