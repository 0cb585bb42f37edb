/**
 * Signing out ends the session on the server, not only in the browser: a copy of the
 * session cookie taken before sign-out no longer works for the API or the app.
 */
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { OWNER, signIn, signInAsOwner } from "./support/accounts";

test("a session cookie copied before sign-out gets 401 from the API and the sign-in page from the app", async ({ browser, baseURL }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signInAsOwner(page);
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
  await signIn(page, OWNER);
  const fresh = (await context.cookies()).find((cookie) => cookie.name === session!.name)!;
  expect(fresh.value).not.toBe(session!.value);
  expect((await api.get("/api/users/@me/", { headers: { cookie: `${fresh.name}=${fresh.value}` } })).status()).toBe(200);

  await api.dispose();
  await replay.close();
  await context.close();
});

test("changing the password in Settings keeps this tab signed in and ends the sessions from before", async ({ browser, baseURL }) => {
  // A member of their own, so the shared owner's password stays as other specs expect.
  const ownerContext = await browser.newContext();
  const ownerPage = await ownerContext.newPage();
  await signInAsOwner(ownerPage);
  const me = await ownerPage.request.get("/api/trpc/account.me");
  const projectId = ((await me.json()) as { result: { data: { current_project_id: number } } }).result.data.current_project_id;
  const email = `changer-${Date.now()}@example.com`;
  const invited = await ownerPage.request.post("/api/trpc/organization.invite", {
    data: { projectId, email, level: "member" },
    headers: { origin: baseURL! },
  });
  expect(invited.status(), await invited.text()).toBe(200);
  const token = ((await invited.json()) as { result: { data: { url: string } } }).result.data.url.split("/invite/")[1];
  const anonymous = await playwrightRequest.newContext({ baseURL });
  const accepted = await anonymous.post("/api/trpc/auth.acceptInvite", { data: { token, firstName: "Chang", password: "first password" } });
  expect(accepted.status(), await accepted.text()).toBe(200);
  await ownerContext.close();

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
