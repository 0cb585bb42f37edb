/**
 * The sign-in lockout over real HTTP, on both databases: thirty wrong passwords posted at once
 * to next-auth's credentials callback (with the CSRF token and cookie a browser has) are
 * checked at most five times; every other attempt, and the right password after them, is
 * refused with 429 and Retry-After.
 */
import { expect, test } from "@playwright/test";
import { createDeployment, DATABASE_KINDS } from "./support/burrow";

for (const kind of DATABASE_KINDS) {
  test(`30 parallel wrong passwords are evaluated at most 5 times, the rest 429 (${kind})`, async () => {
    const deployment = await createDeployment(kind);
    const server = await deployment.start();
    try {
      const csrf = await fetch(`${server.url}/api/auth/csrf`);
      const cookie = csrf.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const attempt = async (password: string) => {
        const body = new URLSearchParams({ email: "sdk@example.com", password, csrfToken, callbackUrl: server.url, json: "true" });
        const response = await fetch(`${server.url}/api/auth/callback/credentials`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie },
          body,
          redirect: "manual",
        });
        return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as { url?: string } };
      };
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(`wrong-password-${i}`)));
      // Checked (argon2 ran and said no): next-auth's CredentialsSignin. Refused: 429.
      const checked = answers.filter((a) => a.status === 401 && a.body.url?.includes("error=CredentialsSignin"));
      const refused = answers.filter((a) => a.status === 429);
      expect(checked.length).toBeGreaterThan(0);
      expect(checked.length).toBeLessThanOrEqual(5);
      expect(checked.length + refused.length).toBe(30);
      for (const answer of refused) {
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
        expect(answer.body.url).toContain("/login?error=throttled");
      }
      // Now locked: even the right password is refused, without a check.
      const right = await attempt("sdk-password-123");
      expect(right.status).toBe(429);
      expect(Number(right.retryAfter)).toBeGreaterThan(60);
    } finally {
      await server.stop();
      await deployment.dispose();
    }
  });
}
