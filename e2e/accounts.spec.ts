/**
 * Accounts in the browser: first-run sign-up, signing in and out, lockout, settings,
 * personal API keys used against the management API, and invites.
 */
import { expect, test, type Page } from "@playwright/test";
import { OWNER, sharedBaseUrl, signInAsOwner } from "./support/accounts";
import { migratedDataDir, startServer } from "./support/server";

const SCREENSHOTS = "test-results/screenshots";

async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  // From the top: a full-page capture of a scrolled page shows the sticky bar mid-page.
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage });
}

/** Submits the login form and waits for next-auth's answer. */
async function attemptSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill(password);
  await Promise.all([
    page.waitForResponse((response) => response.url().includes("/api/auth/callback/credentials")),
    page.getByTestId("login-submit").click(),
  ]);
}

test("sign up on a fresh instance, sign out, sign in, create a personal key, use it with fetch against a management route, delete it, see 401", async ({
  browser,
}) => {
  // The shared instance's state depends on test order: this test starts from nothing (no user),
  // on a server of its own started in the test, then signs in twice with the deliberately slow
  // password hash. Its database is migrated already (server.spec.ts starts a first one).
  test.setTimeout(240_000);
  const server = await startServer({ DATA_DIR: migratedDataDir() });
  const url = server.url;
  let exitCode: number | null = null;
  try {
    const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: url });
    const page = await context.newPage();
    const user = { email: "frida@example.com", password: "frida-password-123", firstName: "Frida" };

    // A fresh instance sends everyone to first-run sign-up.
    await page.goto(`${url}/`);
    await expect(page).toHaveURL(`${url}/signup`);
    await page.goto(`${url}/login`);
    await expect(page).toHaveURL(`${url}/signup`);
    await expect(page.getByTestId("signup-form")).toBeVisible();
    await screenshot(page, "signup");

    // The contract's messages appear next to their fields.
    await page.getByTestId("signup-email").fill("not-an-email");
    await page.getByTestId("signup-password").fill("short");
    await page.getByTestId("signup-project").fill("");
    await page.getByTestId("signup-submit").click();
    await expect(page.getByTestId("signup-first-name-error")).toHaveText("Tell us your name.");
    await expect(page.getByTestId("signup-email-error")).toHaveText("Enter a valid e-mail address.");
    await expect(page.getByTestId("signup-password-error")).toHaveText("Passwords have at least 8 characters.");
    await expect(page.getByTestId("signup-organization-error")).toHaveText("Enter a name.");
    await expect(page.getByTestId("signup-project-error")).toHaveText("Enter a name.");
    await expect(page.getByTestId("signup-email")).toHaveAttribute("aria-invalid", "true");
    await screenshot(page, "signup-errors");

    await page.getByTestId("signup-first-name").fill(user.firstName);
    await page.getByTestId("signup-email").fill(user.email);
    await page.getByTestId("signup-password").fill(user.password);
    await page.getByTestId("signup-organization").fill("Frida's Garden");
    await page.getByTestId("signup-project").fill("Storefront");
    await page.getByTestId("signup-submit").click();

    // Signed in on the home page.
    await expect(page).toHaveURL(`${url}/`);
    await expect(page.getByTestId("home-welcome")).toHaveText("Welcome, Frida");
    await expect(page.getByTestId("current-project-name")).toHaveText("Storefront");
    await expect(page.getByTestId("current-project")).toHaveAttribute("data-state", "ready");
    await expect(page.getByTestId("home-organization-name")).toHaveText("Frida's Garden");
    await expect(page.getByTestId("system-status")).toHaveAttribute("data-state", "ready");
    await expect(page.getByTestId("status-users")).toHaveText("1");
    await screenshot(page, "home");

    // 390 px wide: the navigation folds into a menu.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId("nav-settings")).toBeHidden();
    await expect(page.getByTestId("mobile-menu")).toBeHidden();
    await screenshot(page, "home-narrow");
    await page.getByTestId("project-switcher").click();
    await expect(page.getByTestId("project-option")).toHaveCount(1);
    await expect(page.getByTestId("project-switcher-menu")).toBeInViewport({ ratio: 1 });
    await screenshot(page, "home-narrow-switcher");
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("project-switcher-menu")).toBeHidden();
    await page.getByTestId("mobile-menu-button").click();
    await expect(page.getByTestId("mobile-menu")).toBeVisible();
    await expect(page.getByTestId("mobile-user-email")).toHaveText(user.email);
    await screenshot(page, "home-narrow-menu");
    await page.getByTestId("mobile-menu").getByRole("link", { name: "Settings" }).click();
    await expect(page).toHaveURL(`${url}/settings/project`);
    await expect(page.getByTestId("mobile-menu")).toBeHidden();
    await expect(page.getByTestId("project-settings")).toHaveAttribute("data-state", "ready");
    await screenshot(page, "settings-project-narrow");
    await page.setViewportSize({ width: 1280, height: 800 });

    // Sign-up is closed once someone has an account.
    await page.goto(`${url}/signup`);
    await expect(page).toHaveURL(`${url}/`);

    // Sign out from the user menu (keyboard: the menu opens on Enter and closes on Escape).
    await page.getByTestId("user-menu-button").focus();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("user-email")).toHaveText(user.email);
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("user-menu")).toBeHidden();
    await expect(page.getByTestId("user-menu-button")).toBeFocused();
    await page.getByTestId("user-menu-button").click();
    await page.getByTestId("sign-out").click();
    await expect(page).toHaveURL(`${url}/login`);
    await page.goto(`${url}/settings/project`);
    // Sign-in will bring the visitor back to the page they asked for.
    await expect(page).toHaveURL(`${url}/login?callbackUrl=${encodeURIComponent("/settings/project")}`);
    await screenshot(page, "login");

    // A wrong pair, then the right one.
    await attemptSignIn(page, user.email, "not-the-password");
    await expect(page.getByTestId("login-error")).toHaveText("Wrong e-mail or password.");
    await screenshot(page, "login-error");
    await attemptSignIn(page, user.email, user.password);
    await expect(page).toHaveURL(`${url}/settings/project`);
    await page.getByTestId("nav-home").click();
    await expect(page).toHaveURL(`${url}/`);
    await expect(page.getByTestId("home-welcome")).toHaveText("Welcome, Frida");

    // Project settings: the key, a copy button and the SDK snippets for this host.
    await page.getByTestId("nav-settings").click();
    await expect(page).toHaveURL(`${url}/settings/project`);
    await expect(page.getByTestId("project-name")).toHaveText("Storefront");
    const projectKeyField = page.getByTestId("project-api-key");
    await expect(projectKeyField).toHaveValue(/^phc_[0-9A-Za-z]{40,}$/);
    const projectKey = await projectKeyField.inputValue();
    await expect(page.getByTestId("snippet-posthog-js")).toContainText(`posthog.init('${projectKey}', {`);
    await expect(page.getByTestId("snippet-posthog-js")).toContainText(`api_host: '${url}'`);
    await expect(page.getByTestId("snippet-posthog-node")).toContainText(`new PostHog('${projectKey}', { host: '${url}' })`);
    await page.getByTestId("project-api-key-copy").click();
    await expect(page.getByTestId("project-api-key-copy")).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(projectKey);
    await screenshot(page, "settings-project");

    // Organization: the owner is its one member.
    await page.getByTestId("settings-nav-organization").click();
    await expect(page).toHaveURL(`${url}/settings/organization`);
    await expect(page.getByTestId("members")).toHaveAttribute("data-state", "ready");
    await expect(page.getByTestId("member-row")).toHaveCount(1);
    await expect(page.getByTestId("member-row")).toContainText(user.email);
    await expect(page.getByTestId("member-row")).toContainText("owner");
    await expect(page.getByTestId("open-invites")).toContainText("No open invites");
    await screenshot(page, "settings-organization");

    // Personal API keys: none yet; scopes are required; "All access" disables the rest.
    await page.getByTestId("settings-nav-personal-api-keys").click();
    await expect(page).toHaveURL(`${url}/settings/personal-api-keys`);
    await expect(page.getByTestId("key-list")).toHaveAttribute("data-state", "empty");
    await page.getByTestId("create-key-submit").click();
    await expect(page.getByTestId("key-scopes-error")).toHaveText("Choose at least one scope.");
    await page.getByTestId("scope-all").check();
    await expect(page.getByTestId("scope-dashboard-read")).toBeDisabled();
    await page.getByTestId("scope-all").uncheck();
    await expect(page.getByTestId("scope-dashboard-read")).toBeEnabled();
    await page.getByTestId("key-label").fill("Deploy script");
    await page.getByTestId("scope-dashboard-read").check();
    await page.getByTestId("scope-feature_flag-write").check();
    // /api/users/@me/ below needs user:read, as in PostHog.
    await page.getByTestId("scope-user-read").check();
    await page.getByTestId("key-project").selectOption({ label: "Storefront" });
    await page.getByTestId("create-key-submit").click();

    // The key is shown once, with a warning.
    await expect(page.getByTestId("new-key")).toBeVisible();
    await expect(page.getByTestId("new-key-warning")).toContainText("won't be shown again");
    const personalKey = await page.getByTestId("new-key-value").inputValue();
    expect(personalKey).toMatch(/^phx_[0-9A-Za-z]{40,}$/);
    await page.getByTestId("new-key-value-copy").click();
    await expect(page.getByTestId("new-key-value-copy")).toHaveText("Copied");
    const row = page.getByTestId("key-row");
    await expect(row).toHaveCount(1);
    await expect(page.getByTestId("key-row-label")).toHaveText("Deploy script");
    await expect(page.getByTestId("key-row-mask")).toHaveText(`${personalKey.slice(0, 4)}...${personalKey.slice(-4)}`);
    await expect(row).toContainText("dashboard:read");
    await expect(row).toContainText("feature_flag:write");
    await expect(page.getByTestId("key-row-projects")).toHaveText("Storefront");
    await expect(page.getByTestId("key-row-last-used")).toHaveText("never");
    await screenshot(page, "settings-personal-api-keys");

    // The key works against the management API…
    const me = await fetch(`${url}/api/users/@me/`, { headers: { Authorization: `Bearer ${personalKey}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe(user.email);

    // …is never shown again, and its last use appears.
    await page.reload();
    await expect(page.getByTestId("key-list")).toHaveAttribute("data-state", "ready");
    await expect(page.getByTestId("new-key")).toHaveCount(0);
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId("key-row-last-used")).not.toHaveText("never", { timeout: 1_000 });
    }).toPass({ timeout: 10_000 });

    // Deleting asks first; cancelling keeps the key.
    await page.getByTestId("key-delete").click();
    await expect(page.getByTestId("delete-key-dialog")).toBeVisible();
    await expect(page.getByTestId("delete-key-dialog")).toContainText("Deploy script");
    await screenshot(page, "settings-personal-api-keys-delete", { fullPage: false });
    await page.getByTestId("delete-key-dialog-cancel").click();
    await expect(page.getByTestId("delete-key-dialog")).toBeHidden();
    await expect(row).toHaveCount(1);
    await page.getByTestId("key-delete").click();
    await page.getByTestId("delete-key-dialog-confirm").click();
    await expect(page.getByTestId("delete-key-dialog")).toBeHidden();
    await expect(page.getByTestId("key-list")).toHaveAttribute("data-state", "empty");

    // The deleted key is refused.
    const refused = await fetch(`${url}/api/users/@me/`, { headers: { Authorization: `Bearer ${personalKey}` } });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { type: string }).type).toBe("authentication_error");

    // An owner adds a project from the switcher; it becomes current; switching back works.
    await page.getByTestId("project-switcher").click();
    await page.getByTestId("new-project").click();
    await expect(page.getByTestId("new-project-dialog")).toBeVisible();
    await page.getByTestId("new-project-name").fill("Mobile app");
    await page.getByTestId("new-project-submit").click();
    await expect(page.getByTestId("new-project-dialog")).toBeHidden();
    await expect(page.getByTestId("current-project-name")).toHaveText("Mobile app");
    await page.getByTestId("settings-nav-project").click();
    await expect(page.getByTestId("project-name")).toHaveText("Mobile app");
    await expect(page.getByTestId("project-api-key")).not.toHaveValue(projectKey);
    await page.getByTestId("project-switcher").click();
    await expect(page.getByTestId("project-option")).toHaveCount(2);
    await page.getByTestId("project-option").filter({ hasText: "Storefront" }).click();
    await expect(page.getByTestId("current-project-name")).toHaveText("Storefront");
    await expect(page.getByTestId("project-name")).toHaveText("Storefront");
    await expect(page.getByTestId("project-api-key")).toHaveValue(projectKey);

    // Five failed sign-ins lock an address out; the sixth attempt is throttled.
    const stranger = await browser.newContext({ baseURL: url });
    const login = await stranger.newPage();
    await login.goto(`${url}/login`);
    for (let attempt = 1; attempt <= 5; attempt++) {
      await attemptSignIn(login, "intruder@example.com", `guess-${attempt}`);
      await expect(login.getByTestId("login-error")).toHaveText("Wrong e-mail or password.");
    }
    await attemptSignIn(login, "intruder@example.com", "guess-6");
    await expect(login.getByTestId("login-error")).toHaveText("Too many failed attempts. Try again in a few minutes.");
    await login.goto(`${url}/login?error=throttled`);
    await expect(login.getByTestId("login-error")).toHaveText("Too many failed attempts. Try again in a few minutes.");
    await stranger.close();
    await context.close();
  } finally {
    exitCode = await server.stop();
  }
  expect(exitCode).toBe(0);
});

test("an admin invites a teammate, who sets a password and lands signed in on the organization's project", async ({ page, browser }) => {
  const base = sharedBaseUrl();
  await signInAsOwner(page);
  await page.goto("/settings/organization");
  await expect(page.getByTestId("members")).toHaveAttribute("data-state", "ready");

  const email = `teammate-${Date.now()}@example.com`;
  await page.getByTestId("invite-email-input").fill(email);
  await page.getByTestId("invite-level").selectOption("member");
  await page.getByTestId("invite-submit").click();
  await expect(page.getByTestId("invite-created")).toContainText(email);
  const linkField = page.getByTestId("invite-link");
  await expect(linkField).toHaveValue(new RegExp(`^${base.replace(/[.]/g, "\\.")}/invite/[A-Za-z0-9_-]+$`));
  const link = await linkField.inputValue();
  await expect(page.getByTestId("invite-row").filter({ hasText: email })).toHaveCount(1);
  await screenshot(page, "settings-organization-invite");

  const guest = await browser.newContext();
  const invitee = await guest.newPage();
  await invitee.goto(link);
  await expect(invitee.getByTestId("invite-organization")).toHaveText(OWNER.organization);
  await expect(invitee.getByTestId("invite-email")).toHaveText(email);
  await screenshot(invitee, "invite");
  await invitee.getByTestId("invite-submit").click();
  await expect(invitee.getByTestId("invite-first-name-error")).toHaveText("Tell us your name.");
  await invitee.getByTestId("invite-first-name").fill("Tom");
  await invitee.getByTestId("invite-password").fill("teammate-password-1");
  await invitee.getByTestId("invite-submit").click();

  // Signed in, on the organization's project, as a member who cannot invite.
  await expect(invitee).toHaveURL(`${base}/`);
  await expect(invitee.getByTestId("home-welcome")).toHaveText("Welcome, Tom");
  await expect(invitee.getByTestId("current-project-name")).toHaveText(OWNER.project);
  await expect(invitee.getByTestId("home-organization-name")).toHaveText(OWNER.organization);
  await invitee.goto(`${base}/settings/organization`);
  await expect(invitee.getByTestId("member-row").filter({ hasText: email })).toContainText("member");
  await expect(invitee.getByTestId("invite-admins-only")).toBeVisible();
  await expect(invitee.getByTestId("invite-form")).toHaveCount(0);

  // The link is used up.
  await invitee.goto(link);
  await expect(invitee.getByTestId("invite-invalid")).toBeVisible();
  await guest.close();

  // The owner sees the new member, and the invite is no longer open.
  await page.reload();
  await expect(page.getByTestId("member-row").filter({ hasText: email })).toHaveCount(1);
  await expect(page.getByTestId("invite-row").filter({ hasText: email })).toHaveCount(0);
  await page.getByTestId("invite-email-input").fill(email);
  await page.getByTestId("invite-submit").click();
  await expect(page.getByTestId("invite-email-input-error")).toContainText("already a member");

  // A revoked invite's link stops working.
  const other = `revoked-${Date.now()}@example.com`;
  await page.getByTestId("invite-email-input").fill(other);
  await page.getByTestId("invite-submit").click();
  await expect(page.getByTestId("invite-created")).toContainText(other);
  const revokedLink = await page.getByTestId("invite-link").inputValue();
  await page.getByTestId("invite-row").filter({ hasText: other }).getByTestId("invite-revoke").click();
  await page.getByTestId("revoke-dialog-confirm").click();
  await expect(page.getByTestId("invite-row").filter({ hasText: other })).toHaveCount(0);
  await page.goto(revokedLink);
  await expect(page.getByTestId("invite-invalid")).toBeVisible();
});
