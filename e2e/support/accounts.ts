/**
 * The shared e2e instance's owner, and signing in as them. The global setup (global-setup.ts)
 * signs them up before any spec runs, so specs in parallel workers never race for the
 * first-run sign-up; ensureOwner also tolerates losing that race when a spec runs alone.
 *
 * Specs run two at a time against the shared instance: nothing a spec does as the owner may
 * end or change the owner's sessions (sign-out and password changes end every session of the
 * user); a spec that needs that does it as a member of its own (createMember).
 */
import { expect, request as playwrightRequest, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";

export const OWNER = {
  email: "owner@example.com",
  password: "owner-password-for-e2e-tests",
  firstName: "Olivia",
  organization: "Acme",
  project: "Acme Web",
} as const;

/** tRPC over HTTP without a transformer: queries are GETs with `?input=`, mutations POST the input. */
async function trpcQuery<T>(request: APIRequestContext, base: string, path: string): Promise<T> {
  const response = await request.get(`${base}/api/trpc/${path}`);
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

/** The config's baseURL: the shared instance. */
export function sharedBaseUrl(): string {
  const base = test.info().project.use.baseURL;
  if (!base) throw new Error("playwright.config.ts sets no baseURL");
  return base;
}

/**
 * Signs the owner up on `base` (default: the shared instance) if nobody has yet. Uses a
 * cookie-less request context of its own, so no CSRF check applies.
 */
export async function ensureOwner(base = sharedBaseUrl()): Promise<void> {
  const request = await playwrightRequest.newContext();
  try {
    await signUpIfNeeded(request, base);
  } finally {
    await request.dispose();
  }
}

async function signUpIfNeeded(request: APIRequestContext, base: string): Promise<void> {
  const status = await trpcQuery<{ needsSetup: boolean }>(request, base, "auth.setupStatus");
  if (!status.needsSetup) return;
  const response = await request.post(`${base}/api/trpc/auth.signUp`, {
    data: {
      email: OWNER.email,
      password: OWNER.password,
      firstName: OWNER.firstName,
      organization: OWNER.organization,
      project: OWNER.project,
    },
  });
  // Another worker may have signed the owner up between the two requests.
  if (response.status() !== 200 && !(await trpcQuery<{ needsSetup: boolean }>(request, base, "auth.setupStatus")).needsSetup) return;
  expect(response.status(), await response.text()).toBe(200);
}

/** Signs in through the login page as `who` (the owner by default) and waits for the home page. */
export async function signIn(page: Page, who: { email: string; password: string }, base = sharedBaseUrl()): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByTestId("login-email").fill(who.email);
  await page.getByTestId("login-password").fill(who.password);
  await page.getByTestId("login-submit").click();
  // The password hash is slow on purpose, and a loaded machine makes it slower.
  await expect(page.getByTestId("home")).toBeVisible({ timeout: 30_000 });
}

/** Makes sure the shared instance has its owner, then signs `page` in as them. */
export async function signInAsOwner(page: Page, base = sharedBaseUrl()): Promise<void> {
  await ensureOwner(base);
  await signIn(page, OWNER, base);
}

/**
 * A new member of the owner's organization on the shared instance, with a unique e-mail:
 * the owner invites them over tRPC and they accept with `password`.
 */
export async function createMember(browser: Browser, firstName: string, password: string, base = sharedBaseUrl()): Promise<{ email: string; password: string }> {
  const ownerContext = await browser.newContext({ baseURL: base });
  const anonymous = await playwrightRequest.newContext({ baseURL: base });
  try {
    const ownerPage = await ownerContext.newPage();
    await signInAsOwner(ownerPage, base);
    const me = await ownerPage.request.get("/api/trpc/account.me");
    const projectId = ((await me.json()) as { result: { data: { current_project_id: number } } }).result.data.current_project_id;
    const email = `${firstName.toLowerCase()}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const invited = await ownerPage.request.post("/api/trpc/organization.invite", {
      data: { projectId, email, level: "member" },
      headers: { origin: base },
    });
    expect(invited.status(), await invited.text()).toBe(200);
    const token = ((await invited.json()) as { result: { data: { url: string } } }).result.data.url.split("/invite/")[1];
    const accepted = await anonymous.post("/api/trpc/auth.acceptInvite", { data: { token, firstName, password } });
    expect(accepted.status(), await accepted.text()).toBe(200);
    return { email, password };
  } finally {
    await anonymous.dispose();
    await ownerContext.close();
  }
}
