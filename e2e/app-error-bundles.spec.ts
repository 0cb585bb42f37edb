/**
 * AppError across bundles (issue 32): on the built server, an AppError made in the custom
 * server's bundle (dist/server.mjs) reaches the Next route handler's own copy of the class.
 * A plain `instanceof` failed there, so a web analytics query naming an unknown cohort answered
 * 500 instead of the 400 every other kind answers. Runs the real server on its own embedded database.
 */
import { expect, test } from "@playwright/test";
import { admin, migratedDataDir, startServer, type RunningServer } from "./support/server";

test.describe("errors made in either bundle keep their status", () => {
  let server: RunningServer;
  let key: string;
  let projectId: number;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    const dataDir = migratedDataDir();
    const boot = admin(["bootstrap", "--email", "bundles@example.com", "--password", "bundles-password-1", "--json"], { DATA_DIR: dataDir });
    expect(boot.code, boot.stderr).toBe(0);
    ({ personal_api_key: key, project_id: projectId } = JSON.parse(boot.stdout) as { personal_api_key: string; project_id: number });
    server = await startServer({ DATA_DIR: dataDir });
  });

  test.afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
  });

  const query = (node: Record<string, unknown>) =>
    fetch(`${server.url}/api/projects/${projectId}/query/`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query: node, refresh: true }),
    });

  test("an unknown cohort in a web analytics query is a 400 naming the cohort, like a trend's", async () => {
    const unknownCohort = [{ type: "cohort", key: "id", value: 987654 }];
    for (const node of [
      { kind: "WebOverviewQuery", properties: unknownCohort, dateRange: { date_from: "-7d" } },
      { kind: "WebStatsTableQuery", breakdownBy: "Page", properties: unknownCohort, dateRange: { date_from: "-7d" } },
      { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], properties: unknownCohort },
    ]) {
      const response = await query(node);
      const body = (await response.json()) as { type?: string; detail?: string };
      expect([node.kind, response.status], JSON.stringify(body)).toEqual([node.kind, 400]);
      expect(body).toMatchObject({ type: "validation_error" });
    }
    expect(server.output()).not.toMatch(/AppError/);
  });
});
