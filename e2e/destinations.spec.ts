/**
 * The destinations page: create a webhook destination through the form, send events, and
 * see its deliveries in the log — a failure (the receiver answers 500) and then the retry
 * that got through — on a server of the test's own (its receiver on loopback is allowlisted).
 */
import { expect, test } from "@playwright/test";
import { signIn } from "./support/accounts";
import { createDeployment, type Deployment } from "./support/burrow";
import type { RunningServer } from "./support/server";
import { startSink, type Sink } from "./support/sink";

let deployment: Deployment;
let server: RunningServer;
let sink: Sink;

test.beforeAll(async () => {
  // The admin CLI and a first start on a busy machine.
  test.setTimeout(240_000);
  deployment = await createDeployment("embedded");
  sink = await startSink();
  server = await deployment.start({ BURROW_OUTBOUND_ALLOWLIST: "127.0.0.1", BURROW_DESTINATION_BACKOFF_MS: "500" });
});
test.afterAll(async () => {
  await server?.stop().catch(() => {});
  await sink?.close();
  await deployment?.dispose();
});

test("create a webhook destination, see a failure and the delivery in its log", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, { email: "sdk@example.com", password: "sdk-password-123" }, server.url);
  await page.goto(`${server.url}/destinations`);
  await expect(page.getByTestId("destinations-page")).toBeVisible();
  await page.screenshot({ path: "test-results/destinations-empty.png", fullPage: true });
  await page.getByTestId("new-destination").click();

  // A loopback URL the allowlist does not cover is refused with the reason.
  await page.getByTestId("destination-name").fill("Signups to CRM");
  await page.getByTestId("destination-url").fill("http://169.254.169.254/latest/meta-data");
  await page.getByTestId("destination-events").fill("signed_up");
  await page.getByTestId("destination-save").click();
  await expect(page.getByTestId("destination-error")).toContainText("link-local");

  await page.getByTestId("destination-url").fill(`${sink.url}/crm`);
  await page.getByTestId("destination-headers").fill("Content-Type: application/json\nAuthorization: Bearer crm-secret-token-1234");
  await page.screenshot({ path: "test-results/destinations-form.png", fullPage: true });
  await page.getByTestId("destination-save").click();
  await expect(page.getByTestId("destination-page")).toBeVisible();
  await expect(page.getByTestId("destination-header-list")).toContainText("Authorization: ••••1234");
  await expect(page.getByTestId("destination-header-list")).not.toContainText("crm-secret-token");
  await expect(page.getByTestId("deliveries-empty")).toBeVisible();

  // The receiver fails the first attempt, then takes the retry.
  let calls = 0;
  sink.answer = () => (++calls === 1 ? 500 : 200);
  const posted = await fetch(`${server.url}/batch/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ api_key: deployment.projectKey, batch: [{ event: "signed_up", distinct_id: "ada", properties: { plan: "pro" } }, { event: "$pageview", distinct_id: "ada" }] }),
  });
  expect(await posted.text()).toBe('{"status":1}');
  await expect(page.locator('[data-testid="delivery-row"][data-status="delivered"]')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('[data-testid="delivery-row"][data-status="retrying"]')).toContainText("500");
  await expect(page.getByTestId("total-delivered")).toHaveText("1");
  await page.screenshot({ path: "test-results/destinations-log.png", fullPage: true });
  expect(sink.requests.filter((r) => r.path === "/crm")).toHaveLength(2);
  expect(sink.requests.at(-1)!.headers.authorization).toBe("Bearer crm-secret-token-1234");

  await page.goto(`${server.url}/destinations`);
  await expect(page.getByTestId("destination-row")).toHaveCount(1);
  await page.screenshot({ path: "test-results/destinations-list.png", fullPage: true });

  // Edit: the masked secret comes back masked and keeps the stored one; the new event list applies.
  await page.getByTestId("destination-row").first().getByRole("link").first().click();
  await page.getByTestId("destination-edit").click();
  await expect(page).toHaveURL(/\/edit$/);
  await expect(page.getByTestId("destination-headers")).toHaveValue(/Authorization: ••••1234/);
  await expect(page.getByTestId("destination-events")).toHaveValue("signed_up");
  await page.getByTestId("destination-name").fill("Signups and upgrades to CRM");
  await page.getByTestId("destination-events").fill("signed_up, upgraded");
  await page.screenshot({ path: "test-results/destinations-edit.png", fullPage: true });
  await page.getByTestId("destination-save").click();
  await expect(page.getByRole("heading", { name: "Signups and upgrades to CRM" })).toBeVisible();
  const before = sink.requests.length;
  const upgraded = await fetch(`${server.url}/batch/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ api_key: deployment.projectKey, batch: [{ event: "upgraded", distinct_id: "ada" }] }),
  });
  expect(upgraded.status).toBe(200);
  await expect(page.getByTestId("total-delivered")).toHaveText("2", { timeout: 30_000 });
  expect(sink.requests.slice(before).map((r) => r.headers.authorization)).toEqual(["Bearer crm-secret-token-1234"]);

  // Delete: confirmed, it leaves the list.
  await page.getByTestId("destination-delete").click();
  await page.getByTestId("destination-delete-dialog").getByRole("button", { name: "Delete destination" }).click();
  await expect(page).toHaveURL(/\/destinations$/);
  await expect(page.getByTestId("destination-row")).toHaveCount(0);
});
