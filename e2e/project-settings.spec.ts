/**
 * Settings → Project (issue 34, item 3) at 1280×800 and 390×844: the project renamed and its
 * time zone set from the page — the top bar and the REST API see both — and back to UTC.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { signIn } from "./support/accounts";
import { screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@project-settings.test", password: "owner-password-123" };

test.describe("project settings", () => {
  test.describe.configure({ mode: "serial" });
  const site = useBootstrappedSite(OWNER);

  async function project(): Promise<Record<string, unknown>> {
    const response = await fetch(`${site.url}/api/projects/${site.projectId}/`, { headers: { authorization: `Bearer ${site.personalKey}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  test("rename the project and set its time zone", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/settings/project`);
    const card = page.getByTestId("project-general");
    await expect(card.getByTestId("project-timezone")).toHaveValue("UTC");
    await expect(card.getByTestId("project-general-save")).toBeDisabled();
    await card.getByTestId("project-name-input").fill("Storefront EU");
    await card.getByTestId("project-timezone").selectOption("Europe/Berlin");
    await expect(card).toContainText("Now: ");
    await screenshot(page, "01-settings-edited");
    await card.getByTestId("project-general-save").click();
    await expect(card.getByTestId("project-general-status")).toHaveText("Saved.");
    await expect(card.getByTestId("project-name")).toHaveText("Storefront EU");
    await expect(page.getByTestId("current-project-name")).toHaveText("Storefront EU");
    expect(await project()).toMatchObject({ name: "Storefront EU", timezone: "Europe/Berlin" });
    const axe = await new AxeBuilder({ page }).include('[data-testid="project-general"]').analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
    await page.reload();
    await expect(card.getByTestId("project-timezone")).toHaveValue("Europe/Berlin");
    await screenshot(page, "02-settings-saved");
  });

  test("at 390 px, back to UTC", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/settings/project`);
    const card = page.getByTestId("project-general");
    await expect(card.getByTestId("project-timezone")).toHaveValue("Europe/Berlin");
    await card.getByTestId("project-timezone").selectOption("UTC");
    await card.getByTestId("project-general-save").click();
    await expect(card.getByTestId("project-general-status")).toHaveText("Saved.");
    expect(await project()).toMatchObject({ timezone: "UTC" });
    await screenshot(page, "03-settings-narrow");
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  });
});
