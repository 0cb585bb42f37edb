/**
 * Dashboards (issue 7) in the browser: create one, restrict it, add a collaborator picked
 * from the organization's members, share it, open the link in a fresh browser without a
 * session, rotate the link (the old one is a 404), and turn sharing off (the link is a 404).
 * Also: a view-only member, the list's search, pin, delete and restore, and a 390px screen.
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { expectNoHorizontalScroll, screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@dashboards.test", password: "owner-password-123" };
const COLLEAGUE = { email: "colleague@dashboards.test", password: "colleague-password-123" };
const VIEWER = { email: "viewer@dashboards.test", password: "viewer-password-123" };

test.describe("dashboards, collaborators and sharing", () => {
  // The list test continues with the first test's dashboard.
  test.describe.configure({ mode: "serial" });
  const site = useBootstrappedSite(OWNER, { members: [COLLEAGUE, VIEWER] });

  /** A page in a browser context of its own: no cookies of any other page. */
  async function freshPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<Page> {
    const context = await browser.newContext({ viewport });
    return context.newPage();
  }

  test("create, restrict, add a collaborator, share, rotate and unshare", async ({ page, browser }) => {
    test.setTimeout(180_000);
    await signIn(page, OWNER, site.url);
    await page.getByTestId("nav-dashboards").click();
    await expect(page).toHaveURL(/\/dashboards$/);
    await expect(page.getByTestId("dashboards-list")).toHaveAttribute("data-state", "empty");
    await screenshot(page, "01-dashboards-empty");

    // Create.
    await page.getByTestId("new-dashboard").click();
    await expect(page.getByTestId("dashboard-form-dialog")).toBeVisible();
    await page.getByTestId("dashboard-name").fill("Revenue");
    await page.getByTestId("dashboard-description").fill("Money in, week by week.");
    await page.getByTestId("dashboard-tags").fill("Finance");
    await page.keyboard.press("Enter");
    await page.getByTestId("dashboard-tags").fill("kpi");
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("dashboard-tags-chosen")).toHaveText(/finance\s*kpi/);
    await screenshot(page, "02-create-dialog");
    await page.getByTestId("dashboard-form-submit").click();
    await expect(page).toHaveURL(/\/dashboards\/\d+$/);
    await expect(page.getByTestId("dashboard-title")).toHaveText("Revenue");
    await expect(page.getByTestId("dashboard-tiles")).toHaveAttribute("data-state", "empty");
    await expect(page.getByTestId("dashboard-tag")).toHaveText(["finance", "kpi"]);
    await screenshot(page, "03-dashboard-page");

    // Restrict, and add the colleague as a collaborator.
    await page.getByTestId("open-permissions").click();
    const permissions = page.getByTestId("permissions-dialog");
    await expect(permissions).toBeVisible();
    await expect(permissions.getByTestId("collaborators")).toHaveCount(0);
    await permissions.getByTestId("restriction-37").check();
    await expect(permissions.getByTestId("collaborators")).toBeVisible();
    const picker = permissions.getByTestId("collaborator-picker");
    // The owner is not offered: they edit anyway.
    await expect(picker.locator("option", { hasText: OWNER.email })).toHaveCount(0);
    await picker.selectOption({ label: COLLEAGUE.email });
    await permissions.getByTestId("collaborator-add").click();
    await expect(permissions.getByTestId("collaborator-row")).toHaveAttribute("data-email", COLLEAGUE.email);
    await expect(picker.locator("option", { hasText: COLLEAGUE.email })).toHaveCount(0);
    await screenshot(page, "04-permissions-dialog");
    await page.keyboard.press("Escape");
    await expect(permissions).toBeHidden();
    await expect(page.getByTestId("badge-restricted")).toBeVisible();

    // Share.
    await page.getByTestId("open-share").click();
    const share = page.getByTestId("share-dialog");
    await expect(share.getByTestId("share-toggle")).toHaveAttribute("aria-checked", "false");
    await expect(share.getByTestId("share-url")).toHaveCount(0);
    await share.getByTestId("share-toggle").click();
    await expect(share.getByTestId("share-toggle")).toHaveAttribute("aria-checked", "true");
    await expect(share.getByTestId("share-url")).toBeVisible();
    const firstLink = await share.getByTestId("share-url").inputValue();
    expect(firstLink).toMatch(new RegExp(`^${site.url}/shared/[A-Za-z0-9_-]{30}$`));
    await screenshot(page, "05-share-dialog");

    // The link in a fresh browser with no session: the dashboard, read-only, nothing else.
    const visitor = await freshPage(browser);
    const shared = await visitor.goto(firstLink);
    expect(shared?.status()).toBe(200);
    await expect(visitor.getByTestId("shared-title")).toHaveText("Revenue");
    await expect(visitor.getByText("Money in, week by week.")).toBeVisible();
    await expect(visitor.getByTestId("dashboard-tiles")).toBeVisible();
    await expect(visitor.getByTestId("top-bar")).toHaveCount(0);
    await expect(visitor.locator("nav")).toHaveCount(0);
    await expect(visitor.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
    const html = await visitor.content();
    expect(html).not.toContain(OWNER.email);
    expect(html).not.toContain("phc_");
    await screenshot(visitor, "06-shared-page");

    // The first HTML already holds the dashboard (no client fetch needed), and is not cached.
    const raw = await visitor.request.get(firstLink);
    expect(await raw.text()).toContain("Revenue");
    expect(raw.headers()["cache-control"]).toMatch(/no-store/);

    // Rotate: the old link is a 404 at once, the new one works.
    await share.getByTestId("share-rotate").click();
    await share.getByTestId("share-rotate-confirm").click();
    await expect(share.getByTestId("share-url")).not.toHaveValue(firstLink);
    const secondLink = await share.getByTestId("share-url").inputValue();
    const old = await visitor.goto(firstLink);
    expect(old?.status()).toBe(404);
    await expect(visitor.getByTestId("shared-not-found")).toBeVisible();
    expect(await visitor.content()).not.toContain("Revenue");
    expect((await visitor.goto(secondLink))?.status()).toBe(200);
    await expect(visitor.getByTestId("shared-title")).toHaveText("Revenue");

    // Turn sharing off: the link is a plain 404.
    await share.getByTestId("share-toggle").click();
    await expect(share.getByTestId("share-toggle")).toHaveAttribute("aria-checked", "false");
    await expect(share.getByTestId("share-url")).toHaveCount(0);
    const off = await visitor.goto(secondLink);
    expect(off?.status()).toBe(404);
    await expect(visitor.getByTestId("shared-not-found")).toBeVisible();
    await expect(visitor.locator('meta[name="robots"]').first()).toHaveAttribute("content", /noindex/);
    await screenshot(visitor, "07-shared-404");
    await visitor.context().close();

    // The collaborator may edit; a member who is not one may only view.
    const dashboardUrl = page.url();
    const colleague = await freshPage(browser);
    await signIn(colleague, COLLEAGUE, site.url);
    await colleague.goto(dashboardUrl);
    await expect(colleague.getByTestId("dashboard-title")).toHaveText("Revenue");
    await expect(colleague.getByTestId("open-edit")).toBeVisible();
    await colleague.context().close();

    const viewer = await freshPage(browser);
    await signIn(viewer, VIEWER, site.url);
    await viewer.goto(dashboardUrl);
    await expect(viewer.getByTestId("dashboard-title")).toHaveText("Revenue");
    await expect(viewer.getByTestId("view-only")).toBeVisible();
    await expect(viewer.getByTestId("open-edit")).toHaveCount(0);
    await viewer.getByTestId("open-share").click();
    await expect(viewer.getByTestId("share-toggle")).toBeDisabled();
    await screenshot(viewer, "08-view-only");
    await viewer.context().close();
  });

  test("list: search, tags, pin, delete and restore; keyboard; 390px", async ({ page, browser }) => {
    test.setTimeout(120_000);
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/dashboards`);
    for (const name of ["Acquisition", "Zebra metrics"]) {
      await page.getByTestId("new-dashboard").click();
      await page.getByTestId("dashboard-name").fill(name);
      await page.getByTestId("dashboard-form-submit").click();
      await expect(page).toHaveURL(/\/dashboards\/\d+$/);
      await page.goto(`${site.url}/dashboards`);
    }
    const rows = page.getByTestId("dashboard-row");
    await expect(rows.getByTestId("dashboard-link")).toHaveText(["Acquisition", "Revenue", "Zebra metrics"]);

    // Pin moves a dashboard to the top.
    await rows.filter({ hasText: "Zebra metrics" }).getByTestId("dashboard-pin").click();
    await expect(rows.getByTestId("dashboard-link")).toHaveText(["Zebra metrics", "Acquisition", "Revenue"]);
    await expect(rows.first().getByTestId("dashboard-pin")).toHaveAttribute("aria-pressed", "true");

    // Search and tag filter.
    await page.getByTestId("dashboards-search").fill("reve");
    await expect(rows.getByTestId("dashboard-link")).toHaveText(["Revenue"]);
    await page.getByTestId("dashboards-search").fill("");
    await page.getByTestId("dashboards-tag-filter").selectOption("kpi");
    await expect(rows.getByTestId("dashboard-link")).toHaveText(["Revenue"]);
    await page.getByTestId("dashboards-tag-filter").selectOption("");
    await screenshot(page, "10-list");

    // Delete from the row menu, with the keyboard.
    const acquisition = rows.filter({ hasText: "Acquisition" });
    await acquisition.getByTestId("dashboard-actions").focus();
    await page.keyboard.press("Enter");
    await acquisition.getByTestId("dashboard-delete").click();
    await expect(page.getByTestId("dashboard-delete-dialog").filter({ visible: true })).toContainText("Delete Acquisition?");
    await page.getByTestId("dashboard-delete-dialog-confirm").filter({ visible: true }).click();
    await expect(rows.getByTestId("dashboard-link")).toHaveText(["Zebra metrics", "Revenue"]);

    // Restore from Recently deleted (arrow keys move between the tabs).
    await page.getByTestId("dashboards-tab-active").focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByTestId("dashboards-tab-deleted")).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("dashboards-tab-deleted")).toBeFocused();
    const deleted = page.getByTestId("deleted-dashboard-row");
    await expect(deleted).toHaveCount(1);
    await expect(deleted).toContainText("Acquisition");
    await screenshot(page, "11-recently-deleted");
    await deleted.getByTestId("dashboard-restore").click();
    await expect(page.getByTestId("dashboards-list")).toHaveAttribute("data-state", "empty");
    await page.getByTestId("dashboards-tab-active").click();
    await expect(rows.getByTestId("dashboard-link")).toHaveText(["Zebra metrics", "Acquisition", "Revenue"]);

    // A narrow screen: the list, a dashboard and the share dialog still fit.
    const phone = await freshPage(browser, { width: 390, height: 844 });
    await signIn(phone, OWNER, site.url);
    await phone.goto(`${site.url}/dashboards`);
    await expect(phone.getByTestId("dashboard-row")).toHaveCount(3);
    await expectNoHorizontalScroll(phone);
    await screenshot(phone, "12-list-390");
    await phone.getByTestId("dashboard-link").filter({ hasText: "Revenue" }).click();
    await expect(phone.getByTestId("dashboard-title")).toHaveText("Revenue");
    await expectNoHorizontalScroll(phone);
    await screenshot(phone, "13-dashboard-390");
    await phone.getByTestId("open-share").click();
    await phone.getByTestId("share-toggle").click();
    await expect(phone.getByTestId("share-url")).toBeVisible();
    await screenshot(phone, "14-share-390");
    const link = await phone.getByTestId("share-url").inputValue();
    const visitor = await freshPage(browser, { width: 390, height: 844 });
    await visitor.goto(link);
    await expect(visitor.getByTestId("shared-title")).toHaveText("Revenue");
    await expectNoHorizontalScroll(visitor);
    await screenshot(visitor, "15-shared-390");
    await visitor.context().close();
    await phone.context().close();
  });
});
