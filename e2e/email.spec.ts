/**
 * E-mail through a real SMTP server (npm smtp-server on loopback): Settings' test e-mail,
 * an invite whose link arrives by e-mail, and "forgot password" from the sign-in page to a
 * new password that signs in.
 */
import { expect, test } from "@playwright/test";
import { startSmtpSink, type SmtpSink } from "@/test-support/smtp-sink";
import { signIn } from "./support/accounts";
import { screenshot, useBootstrappedSite } from "./support/site";

const owner = { email: "mail-owner@example.com", password: "mail owner password" };
let sink: SmtpSink;

test.describe.configure({ mode: "serial" });
test.beforeAll(async () => {
  sink = await startSmtpSink();
});
test.afterAll(async () => {
  await sink?.close();
});
const site = useBootstrappedSite(owner, { env: () => ({ SMTP_URL: sink.url, EMAIL_FROM: "Burrow <burrow@example.com>" }) });

test("Settings sends a test e-mail to me, and an invite's link arrives by e-mail", async ({ page }) => {
  await signIn(page, owner, site.url);
  await page.goto(`${site.url}/settings/organization`);
  await page.getByTestId("email-test-send").click();
  await expect(page.getByTestId("email-test-sent")).toContainText(owner.email);
  const [test] = await sink.waitFor(1);
  expect(test!.subject).toBe("Burrow test e-mail");
  expect(test!.to).toMatchObject({ text: owner.email });

  await page.getByTestId("invite-email-input").fill("newbie@example.com");
  await page.getByTestId("invite-submit").click();
  await expect(page.getByTestId("invite-created")).toContainText("We e-mailed them this link");
  const invite = (await sink.waitFor(2))[1]!;
  expect(invite.to).toMatchObject({ text: "newbie@example.com" });
  const link = /http:\/\/127\.0\.0\.1:\d+\/invite\/[\w-]+/.exec(invite.text ?? "")![0];
  await expect(page.getByTestId("invite-link")).toHaveValue(link);
  await screenshot(page, "email-settings");
});

test("forgot password: the e-mailed link sets a new password that signs in", async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${site.url}/login`);
  await page.getByTestId("login-forgot-password").click();
  await page.getByTestId("forgot-password-email").fill(owner.email);
  await page.getByTestId("forgot-password-submit").click();
  await expect(page.getByTestId("forgot-password-sent")).toContainText(owner.email);
  await screenshot(page, "forgot-password-sent");
  const mail = await sink.waitFor(3).then((all) => all.at(-1)!);
  expect(mail.subject).toBe("Reset your Burrow password");
  const link = /http:\/\/127\.0\.0\.1:\d+\/reset-password\/[\w-]+/.exec(mail.text ?? "")![0];

  await page.goto(link);
  await page.getByTestId("reset-password-password").fill("short");
  await page.getByTestId("reset-password-submit").click();
  await expect(page.getByTestId("reset-password-password-error")).toContainText("at least 8");
  await page.getByTestId("reset-password-password").fill("a new mail password");
  await page.getByTestId("reset-password-submit").click();
  await expect(page.getByTestId("login-notice")).toContainText("Your password is set");
  await screenshot(page, "password-reset-done");
  await signIn(page, { email: owner.email, password: "a new mail password" }, site.url);
  await expect(page).not.toHaveURL(/\/login/);

  // The link is used up.
  await page.goto(link);
  await expect(page.getByTestId("reset-password-invalid")).toBeVisible();
});
