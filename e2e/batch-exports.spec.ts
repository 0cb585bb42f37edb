/**
 * The batch exports pages: create an S3 export through the form against a local
 * S3-compatible server (s3rver on loopback, allowlisted), backfill yesterday from the export
 * page and see its run complete with the events' rows and bytes, and the gzip JSON Lines
 * file in the bucket. On PostgreSQL, so the test can set the events' ingestion time to
 * yesterday while the server runs (a completed interval is what a run exports). Then a
 * persons export as Parquet, chosen in the form, read back with hyparquet.
 */
import { gunzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { parquetReadObjects } from "hyparquet";
import { signIn } from "./support/accounts";
import { createDeployment, waitFor, type Deployment } from "./support/burrow";
import { startLocalS3, type LocalS3 } from "./support/s3";
import type { RunningServer } from "./support/server";

let deployment: Deployment;
let server: RunningServer;
let s3: LocalS3;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  deployment = await createDeployment("postgres");
  s3 = await startLocalS3("exports");
  server = await deployment.start({ BURROW_OUTBOUND_ALLOWLIST: "127.0.0.1" });
});
test.afterAll(async () => {
  await server?.stop().catch(() => {});
  await s3?.close();
  await deployment?.dispose();
});

test("create an S3 batch export, backfill yesterday, and see the completed run and its file", async ({ page }) => {
  test.setTimeout(180_000);
  // Three events, ingested now, then stamped as ingested yesterday at 10:xx UTC.
  const posted = await fetch(`${server.url}/batch/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ api_key: deployment.projectKey, batch: ["a", "b", "c"].map((name) => ({ event: "signed_up", distinct_id: `user-${name}`, properties: { plan: "pro" } })) }),
  });
  expect(await posted.text()).toBe('{"status":1}');
  const yesterday = new Date(Date.now() - 86_400_000);
  const day = yesterday.toISOString().slice(0, 10);
  await waitFor("the events stored", async () => {
    const [row] = await deployment.read((query) => query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1`, [deployment.projectId]));
    return row!.n === 3 ? true : undefined;
  });
  await deployment.read((query) => query(`UPDATE events SET created_at = $2 WHERE project_id = $1`, [deployment.projectId, `${day}T10:15:00Z`]));

  await signIn(page, { email: "sdk@example.com", password: "sdk-password-123" }, server.url);
  await page.goto(`${server.url}/batch-exports`);
  await expect(page.getByTestId("batch-exports-page")).toBeVisible();
  await expect(page.getByTestId("batch-exports-empty-new")).toBeVisible();
  await page.screenshot({ path: "test-results/batch-exports-empty.png", fullPage: true });
  await page.getByTestId("new-batch-export").click();

  await page.getByTestId("batch-export-name").fill("Events to the lake");
  await page.getByTestId("batch-export-interval").selectOption("day");
  await page.getByTestId("batch-export-bucket_name").fill("exports");
  await page.getByTestId("batch-export-prefix").fill("burrow/{table}/{year}-{month}-{day}");
  await page.getByTestId("batch-export-endpoint_url").fill("http://169.254.169.254/");
  await page.getByTestId("batch-export-aws_access_key_id").fill("S3RVER");
  await page.getByTestId("batch-export-aws_secret_access_key").fill("S3RVER");
  await page.getByTestId("batch-export-save").click();
  // A link-local endpoint is refused, with the reason.
  await expect(page.getByTestId("batch-export-error")).toContainText("link-local");
  await page.getByTestId("batch-export-endpoint_url").fill(s3.endpoint);
  await page.screenshot({ path: "test-results/batch-exports-form.png", fullPage: true });
  await page.getByTestId("batch-export-save").click();

  await expect(page.getByTestId("batch-export-page")).toBeVisible();
  await expect(page.getByTestId("runs-empty")).toBeVisible();
  const exportUrl = page.url();
  await page.getByTestId("backfill-start").fill(`${day}T00:00`);
  await page.getByTestId("backfill-end").fill(`${day}T23:59`);
  await page.getByTestId("backfill-submit").click();
  await expect(page.getByTestId("backfill-made")).toHaveText("1 run queued.");
  const run = page.locator('[data-testid="run-row"][data-status="Completed"]');
  await expect(run).toBeVisible({ timeout: 60_000 });
  await expect(run.getByTestId("run-rows")).toHaveText("3");
  await page.screenshot({ path: "test-results/batch-exports-runs.png", fullPage: true });

  const objects = s3.objects();
  // PostHog's key: the prefix's date is the interval's end.
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const key = `burrow/events/${next}/${day}T00:00:00+00:00-${next}T00:00:00+00:00.jsonl.gz`;
  expect([...objects.keys()]).toEqual([key]);
  const rows = gunzipSync(objects.get(key)!).toString("utf8").trim().split("\n").map((line) => JSON.parse(line) as { event: string; distinct_id: string });
  expect(rows.map((r) => r.distinct_id).sort()).toEqual(["user-a", "user-b", "user-c"]);
  await expect(run.getByTestId("run-bytes")).toHaveText(`${objects.get(key)!.length} B`);

  await page.goto(`${server.url}/batch-exports`);
  await expect(page.getByTestId("batch-export-row")).toHaveCount(1);
  await expect(page.getByTestId("batch-export-row")).toContainText("Last run: Completed");
  await page.screenshot({ path: "test-results/batch-exports-list.png", fullPage: true });
  // A narrow screen: the runs table scrolls inside its card.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(exportUrl);
  await expect(run).toBeVisible();
  await page.screenshot({ path: "test-results/batch-exports-narrow.png", fullPage: true });
});

test("create a persons export as Parquet from the form: HTTP is not offered, the file holds yesterday's changed persons", async ({ page }) => {
  test.setTimeout(180_000);
  const posted = await fetch(`${server.url}/batch/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ api_key: deployment.projectKey, batch: ["x", "y"].map((name) => ({ event: "$identify", distinct_id: `person-${name}`, properties: { $set: { plan: name } } })) }),
  });
  expect(await posted.text()).toBe('{"status":1}');
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  await waitFor("the persons stored", async () => {
    const [row] = await deployment.read((query) => query<{ n: number }>(`SELECT count(*)::int AS n FROM person_distinct_ids WHERE project_id = $1 AND distinct_id LIKE 'person-%'`, [deployment.projectId]));
    return row!.n === 2 ? true : undefined;
  });
  // Their change dated yesterday, as the first test dates its events.
  await deployment.read((query) => query(`UPDATE persons SET updated_at = $1 WHERE id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id LIKE 'person-%')`, [`${day}T10:15:00Z`]));
  await deployment.read((query) => query(`UPDATE person_distinct_ids SET updated_at = $1 WHERE distinct_id LIKE 'person-%'`, [`${day}T10:15:00Z`]));

  await signIn(page, { email: "sdk@example.com", password: "sdk-password-123" }, server.url);
  await page.goto(`${server.url}/batch-exports/new`);
  await page.getByTestId("batch-export-name").fill("Persons as Parquet");
  await page.getByTestId("batch-export-model").selectOption("persons");
  await expect(page.getByTestId("batch-export-type").locator("option")).toHaveText(["S3", "PostgreSQL"]);
  await page.getByTestId("batch-export-interval").selectOption("day");
  await page.getByTestId("batch-export-file-format").selectOption("Parquet");
  await expect(page.getByTestId("batch-export-compression").locator("option")).toHaveText(["snappy", "gzip", "brotli", "zstd", "lz4", "none"]);
  await page.getByTestId("batch-export-bucket_name").fill("exports");
  await page.getByTestId("batch-export-prefix").fill("parquet/{table}");
  await page.getByTestId("batch-export-endpoint_url").fill(s3.endpoint);
  await page.getByTestId("batch-export-aws_access_key_id").fill("S3RVER");
  await page.getByTestId("batch-export-aws_secret_access_key").fill("S3RVER");
  await page.getByTestId("batch-export-max_file_size_mb").fill("1");
  await page.screenshot({ path: "test-results/batch-exports-form-parquet.png", fullPage: true });
  await page.getByTestId("batch-export-save").click();

  await expect(page.getByTestId("batch-export-page")).toBeVisible();
  await expect(page.getByTestId("batch-export-summary")).toContainText("Persons, daily, by when each person or distinct id changed");
  await expect(page.getByTestId("batch-export-summary")).toContainText("Parquet, snappy, split at 1 MiB");
  await page.getByTestId("backfill-start").fill(`${day}T00:00`);
  await page.getByTestId("backfill-end").fill(`${day}T23:59`);
  await page.getByTestId("backfill-submit").click();
  const run = page.locator('[data-testid="run-row"][data-status="Completed"]');
  await expect(run).toBeVisible({ timeout: 60_000 });
  await expect(run.getByTestId("run-rows")).toHaveText("2");

  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  // Split files are numbered from 0 and listed by a manifest, written last.
  const stem = `parquet/persons/${day}T00:00:00+00:00-${next}T00:00:00+00:00`;
  const key = `${stem}-0.parquet.sz`;
  expect(JSON.parse(s3.objects().get(`${stem}_manifest.json`)!.toString("utf8"))).toEqual({ files: [key] });
  const file = s3.objects().get(key)!;
  expect(file).toBeDefined();
  const rows = await parquetReadObjects({ file: file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer });
  expect(rows.map((row) => [row.distinct_id, JSON.parse(row.properties as string).plan]).sort()).toEqual([
    ["person-x", "x"],
    ["person-y", "y"],
  ]);
  expect(rows[0]!._inserted_at).toEqual(new Date(`${day}T10:15:00Z`));
});
