/**
 * Pipeline transformations (issue 8) in the browser: two transformations added and
 * enabled, reordered by dragging and by keyboard, events sent with the real posthog-node
 * SDK after each order, and the stored result read in the events list; the sample-event
 * panel, a config error shown at its field, delete, and the page at 390 px.
 */
import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { PostHog } from "posthog-node";
import { signIn } from "./support/accounts";
import { admin, freePort, migratedDataDir, startServer, type RunningServer } from "./support/server";
import { expectNoHorizontalScroll } from "./support/site";

const USER = { email: "pipeline@example.com", password: "pipeline-password-123" };
const URL_WITH_QUERY = "https://shop.example/pricing?utm_source=newsletter";

test.describe("pipeline transformations", () => {
  let server: RunningServer;
  let dataDir: string;
  let projectKey: string;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    dataDir = migratedDataDir();
    const boot = admin(["bootstrap", "--email", USER.email, "--password", USER.password, "--json"], { DATA_DIR: dataDir });
    expect(boot.code, boot.stderr).toBe(0);
    projectKey = (JSON.parse(boot.stdout) as { project_api_key: string }).project_api_key;
    const port = await freePort();
    server = await startServer({ DATA_DIR: dataDir, PORT: String(port), SITE_URL: `http://127.0.0.1:${port}` });
  });

  test.afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function send(distinctId: string) {
    const client = new PostHog(projectKey, { host: server.url, flushAt: 1, flushInterval: 0 });
    const errors: unknown[] = [];
    client.on("error", (error) => errors.push(error));
    client.capture({ distinctId, event: "$pageview", properties: { $current_url: URL_WITH_QUERY } });
    await client.shutdown();
    expect(errors).toEqual([]);
  }

  const names = (page: Page) => page.getByTestId("transformation-name").allTextContents();

  async function add(page: Page, pluginName: string, enabled: boolean) {
    await page.getByTestId("add-transformation").first().click();
    const dialog = page.getByTestId("config-dialog");
    await expect(dialog).toBeVisible();
    await dialog.getByTestId("config-plugin").selectOption({ label: pluginName });
    const toggle = dialog.getByTestId("config-enabled");
    if ((await toggle.getAttribute("aria-checked")) !== String(enabled)) await toggle.click();
    await dialog.getByTestId("config-save").click();
    await expect(dialog).toBeHidden();
  }

  /** The stored properties of the newest event of `distinctId`, read in the events list's drawer. */
  async function storedProperties(page: Page, distinctId: string, screenshot?: string) {
    await page.getByTestId("nav-events").click();
    const row = page.getByTestId("event-row").filter({ hasText: distinctId });
    await expect(row).toHaveCount(1, { timeout: 15_000 });
    await row.click();
    const drawer = page.getByTestId("event-drawer");
    await expect(drawer).toBeVisible();
    await drawer.getByTestId("event-properties-json-toggle").click();
    const json = (await drawer.getByTestId("event-properties-json").textContent()) ?? "";
    if (screenshot) await page.screenshot({ path: screenshot });
    await drawer.getByTestId("event-drawer-close").click();
    return JSON.parse(json) as Record<string, unknown>;
  }

  test("enable two transformations, reorder them by mouse and keyboard, and see the events transformed", async ({ page }, testInfo) => {
    test.setTimeout(180_000);
    const shot = (name: string) => page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
    await signIn(page, USER, server.url);
    await page.getByTestId("nav-pipeline").click();
    await expect(page).toHaveURL(/\/pipeline$/);
    await expect(page.getByTestId("transformations")).toHaveAttribute("data-state", "empty");
    await shot("pipeline-empty");

    // URL parser added switched off, then enabled from the list; Flatten added enabled.
    await add(page, "URL parser", false);
    await expect(page.getByTestId("transformation-enabled")).toHaveAttribute("aria-checked", "false");
    await page.getByTestId("transformation-enabled").click();
    await expect(page.getByTestId("transformation-enabled")).toHaveAttribute("aria-checked", "true");
    await add(page, "Flatten properties", true);
    await expect.poll(() => names(page)).toEqual(["URL parser", "Flatten properties"]);
    await shot("pipeline-two");

    // Drag Flatten above the URL parser by its handle.
    const handles = page.getByTestId("reorder-handle");
    const from = (await handles.nth(1).boundingBox())!;
    const to = (await handles.nth(0).boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y - 10, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + 2, { steps: 10 });
    let saved = page.waitForResponse((response) => response.url().includes("transformations.rearrange"));
    await page.mouse.up();
    await expect.poll(() => names(page)).toEqual(["Flatten properties", "URL parser"]);
    expect((await saved).status()).toBe(200);
    await page.reload();
    await expect.poll(() => names(page)).toEqual(["Flatten properties", "URL parser"]);

    // Flatten runs first: the parsed query stays nested.
    await send("order-flatten-first");
    const flattenFirst = await storedProperties(page, "order-flatten-first");
    expect(flattenFirst).toMatchObject({ url_host: "shop.example", url_params: { utm_source: "newsletter" } });
    expect(flattenFirst).not.toHaveProperty("url_params__utm_source");

    // Keyboard: pick up the first handle with Space, move down, drop.
    await page.getByTestId("nav-pipeline").click();
    await expect.poll(() => names(page)).toEqual(["Flatten properties", "URL parser"]);
    // Each step is announced to screen readers (dnd-kit's live region); wait for it.
    const announcement = page.getByRole("status").filter({ hasText: /Flatten properties/ });
    await page.getByTestId("reorder-handle").first().focus();
    await page.keyboard.press("Space");
    // "Picked up …", at once followed by "… is over position 1 of 2." (over itself).
    await expect(announcement).toHaveText(/position 1 of 2\.$/);
    await page.keyboard.press("ArrowDown");
    await expect(announcement).toHaveText("Flatten properties is over position 2 of 2.");
    saved = page.waitForResponse((response) => response.url().includes("transformations.rearrange"));
    await page.keyboard.press("Space");
    await expect(announcement).toHaveText("Flatten properties dropped at position 2 of 2.");
    await expect.poll(() => names(page)).toEqual(["URL parser", "Flatten properties"]);
    expect((await saved).status()).toBe(200);
    await page.reload();
    await expect.poll(() => names(page)).toEqual(["URL parser", "Flatten properties"]);
    await shot("pipeline-reordered");

    // The URL parser runs first now: its params are flattened too.
    await send("order-parser-first");
    const parserFirst = await storedProperties(page, "order-parser-first", testInfo.outputPath("events-transformed-drawer.png"));
    expect(parserFirst).toMatchObject({ url_host: "shop.example", url_params__utm_source: "newsletter" });
    await expect(page.getByTestId("event-row").filter({ hasText: "order-parser-first" })).toBeVisible();

    // The sample panel runs the whole chain, before and after.
    await page.getByTestId("nav-pipeline").click();
    await page.getByTestId("sample-run").click();
    await expect(page.getByTestId("sample-step")).toHaveCount(2);
    await expect(page.getByTestId("sample-after")).toContainText('"url_params__utm_source": "newsletter"');
    await expect(page.getByTestId("sample-before")).not.toContainText("url_params");
    // The diff names each change: the flattened parameters added, the URL's nested object gone.
    const diff = page.getByTestId("sample-diff");
    await expect(diff).toHaveAttribute("data-state", "changed");
    await expect(diff.locator('[data-kind="added"]').filter({ hasText: "url_params__utm_source" })).toBeVisible();
    await shot("pipeline-sample");
    // A sample that is not JSON: the error, and not the previous sample's result under it.
    await page.getByTestId("sample-input").fill("{ not json");
    await page.getByTestId("sample-run").click();
    await expect(page.getByTestId("sample-error")).toBeVisible();
    await expect(page.getByTestId("sample-result")).toHaveCount(0);
    await page.getByRole("button", { name: "Reset sample" }).click();
    await expect(page.getByTestId("sample-error")).toHaveCount(0);

    // A config the plugin refuses: the server's message at its field.
    await page.getByTestId("transformation-edit").nth(1).click();
    const dialog = page.getByTestId("config-dialog");
    await dialog.getByTestId("config-field-separator").fill("");
    await dialog.getByTestId("config-save").click();
    await expect(dialog.getByTestId("config-field-separator-error")).toHaveText("separator: the separator must not be empty.");
    await shot("pipeline-config-error");
    await dialog.getByTestId("config-cancel").click();
    await expect(dialog).toBeHidden();

    // 390 px: no horizontal overflow.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId("transformation-chain")).toBeVisible();
    await expectNoHorizontalScroll(page);
    await shot("pipeline-mobile");
    await page.setViewportSize({ width: 1280, height: 800 });

    // Delete: the row goes, the other stays.
    await page.getByTestId("transformation-delete").first().click();
    await page.getByTestId("delete-transformation-confirm").click();
    await expect.poll(() => names(page)).toEqual(["Flatten properties"]);

    // Renames are rows of old and new name, not a JSON box; the dry run's diff shows what they did.
    await page.getByTestId("add-transformation").first().click();
    const renameDialog = page.getByTestId("config-dialog");
    await renameDialog.getByTestId("config-plugin").selectOption({ label: "Rename and standardise names" });
    await renameDialog.getByTestId("config-field-event_renames-add").click();
    await renameDialog.getByTestId("config-field-event_renames-key").fill("Order Completed");
    await renameDialog.getByTestId("config-field-event_renames-value").fill("order_completed");
    await renameDialog.getByTestId("config-field-property_renames-add").click();
    await renameDialog.getByTestId("config-field-property_renames-key").fill("email");
    await renameDialog.getByTestId("config-field-property_renames-value").fill("contact_email");
    await shot("pipeline-rename-form");
    await renameDialog.getByTestId("config-save").click();
    await expect(renameDialog).toBeHidden();
    await page.getByTestId("sample-run").click();
    const renamed = page.getByTestId("sample-diff");
    await expect(renamed.locator('[data-kind="changed"]').filter({ hasText: "event" })).toContainText('"order_completed"');
    await expect(renamed.locator('[data-kind="removed"]').filter({ hasText: "email" })).toBeVisible();
    await expect(renamed.locator('[data-kind="added"]').filter({ hasText: "contact_email" })).toBeVisible();
    await shot("pipeline-rename-diff");
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await shot("pipeline-rename-diff-390");
  });
});
