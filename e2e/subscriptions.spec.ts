/**
 * Subscriptions: on an insight's page, Subscribe opens the dialog (empty at first), the form
 * refuses a bad address, a webhook subscription is created, and "Send test now" delivers the
 * chart as a PNG with a link back to a receiver on loopback — on a server of the test's own
 * (its receiver is allowlisted); then the dashboard's dialog offers its insights.
 */
import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { signIn } from "./support/accounts";
import { createDeployment, type Deployment } from "./support/burrow";
import type { RunningServer } from "./support/server";
import { startSink, type Sink } from "./support/sink";

let deployment: Deployment;
let server: RunningServer;
let sink: Sink;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  deployment = await createDeployment("embedded");
  sink = await startSink();
  server = await deployment.start({ BURROW_OUTBOUND_ALLOWLIST: "127.0.0.1" });
});
test.afterAll(async () => {
  await server?.stop().catch(() => {});
  await sink?.close();
  await deployment?.dispose();
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}/api/projects/${deployment.projectId}/${path}`, {
    method,
    headers: { authorization: `Bearer ${deployment.personalKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return response.json();
}

test("subscribe to an insight by webhook and send a test with the chart", async ({ page }) => {
  test.setTimeout(150_000);
  const now = Date.now();
  const sent = await fetch(`${server.url}/batch/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      api_key: deployment.projectKey,
      batch: Array.from({ length: 20 }, (_, i) => ({ event: "$pageview", distinct_id: `v${i % 6}`, timestamp: new Date(now - (i % 7) * 86_400_000).toISOString() })),
    }),
  });
  expect(await sent.text()).toBe('{"status":1}');
  const dashboard = await api("POST", "dashboards/", { name: "Growth" });
  const query = { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", math: "total" }], interval: "day", dateRange: { date_from: "-7d" } } };
  const insight = await api("POST", "insights/", { name: "Daily pageviews", query, saved: true, dashboards: [dashboard.id] });

  await signIn(page, { email: "sdk@example.com", password: "sdk-password-123" }, server.url);
  await page.goto(`${server.url}/insights/${insight.short_id}`);
  await page.getByTestId("open-subscriptions").click();
  const dialog = page.getByTestId("subscriptions-dialog");
  await expect(dialog.getByTestId("subscriptions-empty")).toBeVisible();
  await page.screenshot({ path: "test-results/subscriptions-empty.png" });

  await dialog.getByTestId("new-subscription").click();
  await dialog.getByTestId("subscription-target-value").fill("not an address");
  await dialog.getByTestId("subscription-save").click();
  await expect(dialog.getByTestId("subscription-target-value-error")).toContainText("not an e-mail address");

  await dialog.getByTestId("subscription-target-type").selectOption("webhook");
  await expect(dialog.getByTestId("subscription-target-value-error")).toHaveCount(0);
  await dialog.getByTestId("subscription-target-value").fill(`${sink.url}/reports`);
  await dialog.getByTestId("subscription-frequency").selectOption("daily");
  await dialog.getByTestId("subscription-title").fill("Pageviews every morning");
  await page.screenshot({ path: "test-results/subscriptions-form.png" });
  await dialog.getByTestId("subscription-save").click();

  const row = dialog.getByTestId("subscription-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Pageviews every morning");
  await expect(row).toContainText("Sent every day");
  await row.getByTestId("subscription-send-test").click();
  await expect(row.getByTestId("subscription-test-outcome")).toHaveText("Test sent with 1 image.", { timeout: 30_000 });
  await page.screenshot({ path: "test-results/subscriptions-sent.png" });

  const hits = sink.requests.filter((r) => r.path === "/reports");
  expect(hits).toHaveLength(1);
  const payload = JSON.parse(hits[0]!.body);
  expect(payload.title).toBe("Burrow Insight report - Daily pageviews");
  expect(payload.resource.url).toBe(`${server.url}/insights/${insight.short_id}`);
  const png = Buffer.from(String(payload.insights[0].image).replace(/^data:image\/png;base64,/, ""), "base64");
  expect(png.subarray(1, 4).toString()).toBe("PNG");
  fs.writeFileSync("test-results/subscriptions-webhook-chart.png", png);

  // The dashboard's dialog offers its insights to choose from.
  await page.goto(`${server.url}/dashboards/${dashboard.id}`);
  await page.getByTestId("open-subscriptions").click();
  await page.getByTestId("subscriptions-dialog").getByTestId("new-subscription").click();
  await expect(page.getByTestId("subscription-insights")).toContainText("Daily pageviews");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/subscriptions-dashboard-narrow.png" });
});
