/**
 * The API reference renders in Chromium from Burrow alone: /api/docs (public, no session)
 * loads Swagger UI's files from Burrow, reads /api/schema/, and lists the operations; no
 * request leaves for another host.
 */
import { expect, test } from "@playwright/test";
import { screenshot } from "./support/site";

test("the API reference lists the operations of the OpenAPI document, served by Burrow alone", async ({ page, baseURL }) => {
  const elsewhere: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(baseURL!) && !request.url().startsWith("data:")) elsewhere.push(request.url());
  });
  // A deep link (tag, then operationId) opens the operation: Swagger UI renders only the
  // operations near the viewport, and resolves the 250 KB document in seconds on a busy machine.
  await page.goto("/api/docs#/Dashboards/projects_list_dashboards");
  await expect(page.getByRole("heading", { name: "Burrow API reference" })).toBeVisible();
  const listDashboards = page.locator("#operations-Dashboards-projects_list_dashboards");
  await expect(listDashboards).toContainText("List dashboards", { timeout: 45_000 });
  await expect(listDashboards).toContainText("Required scope: dashboard:read");
  await listDashboards.scrollIntoViewIfNeeded();
  await screenshot(page, "api-docs", { fullPage: false });
  expect(elsewhere).toEqual([]);
});
