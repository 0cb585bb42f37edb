/**
 * Every response carries the anti-framing and anti-sniffing headers: pages Next serves, the
 * management API, the ingestion fast path (served without Next), and the public shared page.
 */
import { expect, test } from "@playwright/test";

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

test("the signed-in UI cannot be framed by another page", async ({ page, baseURL }) => {
  // A frame whose document answers with frame-ancestors 'none' stays empty.
  await page.setContent(`<iframe id="victim" src="${baseURL}/login"></iframe>`);
  const frame = page.frameLocator("#victim");
  await expect(frame.getByTestId("login-email")).toHaveCount(0);
  await page.goto("/login");
  await expect(page.getByTestId("login-email")).toBeVisible();
});
