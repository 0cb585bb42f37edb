/**
 * Signing out ends the session on the server, not only in the browser: a copy of the
 * session cookie taken before sign-out no longer works for the API or the app.
 */
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { createMember, signIn } from "./support/accounts";

test("a session cookie copied before sign-out gets 401 from the API and the sign-in page from the app", async ({ browser, baseURL }) => {
  // A member of their own: signing out ends every session of the user, and other specs
  // running at the same time are signed in as the shared owner.
  const member = await createMember(browser, "Signout", "signout-password-1");
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, member);
  const cookies = await context.cookies();
  const session = cookies.find((cookie) => cookie.name.endsWith("next-auth.session-token"));
  expect(session, "next-auth's session cookie").toBeDefined();
  const cookieHeader = `${session!.name}=${session!.value}`;

  const api = await playwrightRequest.newContext({ baseURL });
  const me = () => api.get("/api/users/@me/", { headers: { cookie: cookieHeader } });
  expect((await me()).status()).toBe(200);

  await page.getByTestId("user-menu-button").click();
  await page.getByTestId("sign-out").click();
  await expect(page).toHaveURL(/\/login$/);

  const after = await me();
  expect(after.status()).toBe(401);
  expect(await after.json()).toMatchObject({ type: "authentication_error", code: "not_authenticated" });

  // The old cookie in a fresh browser: the app sends it to sign-in.
  const replay = await browser.newContext();
  await replay.addCookies([session!]);
  const replayPage = await replay.newPage();
  await replayPage.goto("/");
  await expect(replayPage).toHaveURL(/\/login/);

  // Signing in again gives a cookie that works.
  await signIn(page, member);
  const fresh = (await context.cookies()).find((cookie) => cookie.name === session!.name)!;
  expect(fresh.value).not.toBe(session!.value);
  expect((await api.get("/api/users/@me/", { headers: { cookie: `${fresh.name}=${fresh.value}` } })).status()).toBe(200);

  await api.dispose();
  await replay.close();
  await context.close();
});

test("changing the password in Settings keeps this tab signed in and ends the sessions from before", async ({ browser, baseURL }) => {
  // A member of their own, so the shared owner's password and sessions stay as other specs expect.
  const { email } = await createMember(browser, "Chang", "first password");
  const anonymous = await playwrightRequest.newContext({ baseURL });

  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, { email, password: "first password" });
  const before = (await context.cookies()).find((cookie) => cookie.name.endsWith("next-auth.session-token"))!;

  await page.goto("/settings/password");
  await page.getByTestId("current-password").fill("not my password");
  await page.getByTestId("new-password").fill("second password");
  await page.getByTestId("change-password-submit").click();
  await expect(page.getByTestId("current-password-error")).toHaveText("The current password is not right.");
  await page.getByTestId("current-password").fill("first password");
  await page.getByTestId("new-password").fill("        ");
  await page.getByTestId("change-password-submit").click();
  await expect(page.getByTestId("new-password-error")).toHaveText("Passwords have at least 8 characters that are not spaces.");
  await page.getByTestId("new-password").fill("second password");
  await page.getByTestId("change-password-submit").click();
  await expect(page.getByTestId("change-password-done")).toBeVisible();

  // This tab signed in again with the new password; the cookie from before is dead.
  await page.reload();
  await expect(page.getByTestId("change-password-form")).toBeVisible();
  expect((await anonymous.get("/api/users/@me/", { headers: { cookie: `${before.name}=${before.value}` } })).status()).toBe(401);
  const now = (await context.cookies()).find((cookie) => cookie.name === before.name)!;
  expect((await anonymous.get("/api/users/@me/", { headers: { cookie: `${now.name}=${now.value}` } })).status()).toBe(200);

  await anonymous.dispose();
  await context.close();
});
