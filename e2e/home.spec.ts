import { expect, test } from "@playwright/test";

test("the home page shows the instance's status from the database", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveTitle(/Burrow/);
  const status = page.getByTestId("system-status");
  await expect(status).toHaveAttribute("data-state", "ready");
  await expect(page.getByTestId("status-database")).toContainText("embedded PostgreSQL");
  await page.screenshot({ path: "test-results/screenshots/home.png", fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(status).toBeVisible();
  await page.screenshot({ path: "test-results/screenshots/home-narrow.png", fullPage: true });
});

test("an unknown page answers 404 with the app's not-found page", async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
});
