import { expect, test } from "@playwright/test";
import { ensureOwner, OWNER, signInAsOwner } from "./support/accounts";

test("signed-out visitors of the home page are sent to the sign-in page", async ({ page }) => {
  await ensureOwner();
  await page.goto("/");
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByTestId("login-form")).toBeVisible();
  // Sign-up is for the first run only.
  await page.goto("/signup");
  await expect(page).toHaveURL(/\/login$/);
});

test("the signed-in home shows the current project and the instance's status", async ({ page }) => {
  await signInAsOwner(page);
  await expect(page).toHaveTitle(/Burrow/);
  await expect(page.getByTestId("home-welcome")).toHaveText(`Welcome, ${OWNER.firstName}`);
  await expect(page.getByTestId("current-project-name")).toHaveText(OWNER.project);
  await expect(page.getByTestId("home-project-name")).toHaveText(OWNER.project);
  const status = page.getByTestId("system-status");
  await expect(status).toHaveAttribute("data-state", "ready");
  await expect(page.getByTestId("status-database")).toContainText("embedded PostgreSQL");
  expect(Number(await page.getByTestId("status-users").textContent())).toBeGreaterThanOrEqual(1);
});

test("an unknown page answers 404 with the app's not-found page", async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
});
