/**
 * The events explorer's Cohort filter (issue 18): on a server over PostgreSQL, events sent
 * with posthog-node, a cohort whose members are written as the cohorts domain writes them
 * (rows of cohort_people), then filtered in the browser by "person is in" / "is not in".
 */
import { expect, test } from "@playwright/test";
import pg from "pg";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { createEmptyPostgresDatabase } from "./support/postgres";
import { admin, startServer, tempDataDir, type RunningServer } from "./support/server";
import { expectNoHorizontalScroll, screenshot } from "./support/site";

const USER = { email: "cohort-filter@example.com", password: "cohort-filter-password-1" };

test.describe("events explorer: cohort filter", () => {
  let database: { url: string; drop(): Promise<void> };
  let server: RunningServer;
  let projectKey: string;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    database = await createEmptyPostgresDatabase();
    const boot = admin(["bootstrap", "--email", USER.email, "--password", USER.password, "--json"], { DATABASE_URL: database.url });
    expect(boot.code, boot.stderr).toBe(0);
    projectKey = (JSON.parse(boot.stdout) as { project_api_key: string }).project_api_key;
    server = await startServer({ DATABASE_URL: database.url, DATA_DIR: tempDataDir() });
  });

  test.afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    if (database) await database.drop();
  });

  test("filters the list to a cohort's people, and to everyone else", async ({ page }) => {
    test.setTimeout(120_000);
    const client = new PostHog(projectKey, { host: server.url, flushAt: 1, flushInterval: 0 });
    for (const [distinctId, event] of [
      ["ann", "$pageview"],
      ["ben", "$pageview"],
      ["ann", "purchase"],
      ["cy", "signed up"],
    ]) client.capture({ distinctId: distinctId!, event: event! });
    await client.shutdown();

    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    try {
      // Ingestion is asynchronous: wait for the persons, then make "Big spenders" = ann.
      await expect.poll(async () => (await sql.query(`SELECT count(*)::int AS n FROM person_distinct_ids`)).rows[0].n, { timeout: 30_000 }).toBe(3);
      // Static: a dynamic cohort without filters is the cohort worker's to compute, and its first
      // pass (seconds after start) made it everyone, so "not in" found no one on a slow machine.
      const { rows } = await sql.query(`INSERT INTO cohorts (project_id, name, is_static, updated_at) SELECT id, 'Big spenders', true, now() FROM projects LIMIT 1 RETURNING id, project_id`);
      await sql.query(`INSERT INTO cohorts (project_id, name, updated_at) VALUES ($1, 'Churned', now())`, [rows[0].project_id]);
      await sql.query(`INSERT INTO cohort_people (cohort_id, person_id) SELECT $1, person_id FROM person_distinct_ids WHERE distinct_id = 'ann'`, [rows[0].id]);
    } finally {
      await sql.end();
    }

    await signIn(page, USER, server.url);
    await page.getByTestId("nav-events").click();
    const eventRows = page.getByTestId("event-row");
    await expect(eventRows).toHaveCount(4);

    await page.getByTestId("add-property-filter").click();
    await page.getByTestId("property-filter-type").selectOption("cohort");
    const cohort = page.getByTestId("property-filter-cohort");
    await expect(cohort.locator("option")).toHaveText(["Choose a cohort…", "Big spenders", "Churned"]);
    await cohort.selectOption({ label: "Big spenders" });
    await page.getByTestId("apply-filters").click();
    await expect(eventRows.getByTestId("event-distinct-id")).toHaveText(["ann", "ann"]);
    await screenshot(page, "events-cohort-filter");

    await page.getByTestId("property-filter-operator").selectOption("not_in");
    await page.getByTestId("apply-filters").click();
    // Newest first; the same count as before, so wait for the people to change.
    await expect(eventRows.getByTestId("event-distinct-id")).toHaveText(["cy", "ben"]);
    const href = await page.getByTestId("export-csv").getAttribute("href");
    expect(decodeURIComponent(href!)).toContain('"type":"cohort","key":"id"');

    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await screenshot(page, "events-cohort-filter-mobile");
  });
});
