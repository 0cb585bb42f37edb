/**
 * Every response carries the anti-framing and anti-sniffing headers: pages Next serves, the
 * management API, the ingestion fast path (served without Next), and the public shared page.
 */
import { expect, test } from "@playwright/test";
import { ensureOwner } from "./support/accounts";

const EXPECTED = {
  "content-security-policy": "frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
};

for (const [method, path] of [
  ["GET", "/"],
  ["GET", "/login"],
  ["GET", "/api/projects/"],
  ["POST", "/capture/"],
  ["GET", "/capture/"],
  ["GET", "/shared/x"],
  ["GET", "/_health"],
] as const) {
  test(`${method} ${path} carries the security headers`, async ({ request }) => {
    const response = await request.fetch(path, { method, maxRedirects: 0, data: method === "POST" ? "{}" : undefined });
    // Whatever the status (redirect, 401, 400, 404), the headers are there.
    expect(response.status(), await response.text()).toBeLessThan(500);
    expect(response.headers()).toMatchObject(EXPECTED);
  });
}

test("no page of Burrow can be framed by another page", async ({ page }) => {
  await ensureOwner();
  await page.goto("/login");
  await expect(page.getByTestId("login-email")).toBeVisible();
  const loginUrl = page.url();
  // Another site's page framing the login page: Chromium refuses to render it and shows
  // its error page in the frame instead.
  await page.setContent(`<iframe id="victim" src="${loginUrl}"></iframe>`);
  const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
  expect(frame).toBeDefined();
  await expect.poll(() => frame!.url()).toMatch(/^chrome-error:/);
  await expect(page.frameLocator("#victim").getByTestId("login-email")).toHaveCount(0);
});
