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
  await page.goto("/api/docs");
  await expect(page.getByRole("heading", { name: "Burrow API reference" })).toBeVisible();
  const listDashboards = page.locator(".opblock-summary", { hasText: "/api/projects/{project_id}/dashboards/" }).filter({ hasText: "List dashboards" }).first();
  await expect(listDashboards).toBeVisible();
  await listDashboards.click();
  await expect(page.getByText("Required scope: dashboard:read").first()).toBeVisible();
  await screenshot(page, "api-docs", { fullPage: false });
  expect(elsewhere).toEqual([]);
});
