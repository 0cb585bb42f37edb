/**
 * The shared e2e instance's owner, and signing in as them. The first test that needs an
 * account creates it (first-run sign-up over tRPC); later ones reuse it, whatever the order.
 */
import { expect, request as playwrightRequest, test, type APIRequestContext, type Page } from "@playwright/test";

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
  expect(response.status(), await response.text()).toBe(200);
}

/** Signs in through the login page as `who` (the owner by default) and waits for the home page. */
export async function signIn(page: Page, who: { email: string; password: string }, base = sharedBaseUrl()): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByTestId("login-email").fill(who.email);
  await page.getByTestId("login-password").fill(who.password);
  await page.getByTestId("login-submit").click();
  await expect(page.getByTestId("home")).toBeVisible();
}

/** Makes sure the shared instance has its owner, then signs `page` in as them. */
export async function signInAsOwner(page: Page, base = sharedBaseUrl()): Promise<void> {
  await ensureOwner(base);
  await signIn(page, OWNER, base);
}
