import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkPassword, SignInThrottle } from "@/server/auth/service";
import type { Database } from "@/server/db/client";
import { acceptInvite, bootstrap, createInvite, describePasswordReset, requestPasswordReset, resetPassword } from "@/server/accounts/service";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { testContext, testUserContext } from "@/test-support/context";
import { startSmtpSink, type SmtpSink } from "@/test-support/smtp-sink";
import { AppError } from "@/server/errors";
import { EmailDeliveryError, emailConfigured, sendEmail, sendTestEmail } from "./service";

const SITE = "http://burrow.test:3000";
// A 1×1 PNG: an inline image as subscriptions send them.
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

describe(`e-mail through a real SMTP server (${testDbKind})`, () => {
  let db: Database;
  let sink: SmtpSink;
  let ownerId: number;
  beforeAll(async () => {
    [db, sink] = await Promise.all([createTestDatabase(), startSmtpSink()]);
    ownerId = (await bootstrap(db.prisma, { email: "owner@example.com", password: "owner password" })).user.id;
  });
  beforeEach(() => {
    process.env.SMTP_URL = sink.url;
    process.env.EMAIL_FROM = "Burrow <burrow@example.com>";
    sink.messages.length = 0;
  });
  afterEach(() => {
    delete process.env.SMTP_URL;
    delete process.env.EMAIL_FROM;
    sink.refuse(false);
  });
  afterAll(async () => {
    await Promise.all([db?.close(), sink?.close()]);
  });

  it("sends a message with its HTML and an inline image", async () => {
    expect(emailConfigured()).toBe(true);
    await sendEmail({
      to: ["a@example.com", "b@example.com"],
      subject: "Weekly: pageviews",
      text: "Pageviews rose.",
      html: '<p>Pageviews rose.</p><img src="cid:chart-1">',
      attachments: [{ filename: "chart.png", content: PIXEL, contentType: "image/png", cid: "chart-1" }],
    });
    const [mail] = await sink.waitFor(1);
    expect(mail!.subject).toBe("Weekly: pageviews");
    expect(mail!.from?.text).toBe('"Burrow" <burrow@example.com>');
    expect([mail!.to].flat().flatMap((to) => to!.value.map((v) => v.address))).toEqual(["a@example.com", "b@example.com"]);
    expect(mail!.text?.trim()).toBe("Pageviews rose.");
    expect(mail!.html).toContain('src="cid:chart-1"');
    expect(mail!.attachments.map((a) => [a.contentType, a.cid, a.content.equals(PIXEL)])).toEqual([["image/png", "chart-1", true]]);
  });

  it("refuses clearly when e-mail is not set up, and reports a server that refuses", async () => {
    delete process.env.SMTP_URL;
    delete process.env.EMAIL_FROM;
    expect(emailConfigured()).toBe(false);
    await expect(sendEmail({ to: ["a@example.com"], subject: "x", text: "x" })).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining("SMTP_URL") });

    process.env.SMTP_URL = sink.url;
    process.env.EMAIL_FROM = "burrow@example.com";
    sink.refuse(true);
    await expect(sendEmail({ to: ["a@example.com"], subject: "x", text: "x" })).rejects.toBeInstanceOf(EmailDeliveryError);
    process.env.SMTP_URL = sink.url.replace("user:pass", "user:wrong");
    await expect(sendEmail({ to: ["a@example.com"], subject: "x", text: "x" })).rejects.toThrow(/did not take the message/);
    expect(sink.messages).toHaveLength(0);
  });

  it("refuses a recipient that is not an address (no header injection)", async () => {
    await expect(sendEmail({ to: ["a@example.com\r\nBcc: evil@example.com"], subject: "x", text: "x" })).rejects.toThrow();
    expect(sink.messages).toHaveLength(0);
  });

  it("sends Settings' test e-mail to the signed-in user only", async () => {
    expect(await sendTestEmail(await testUserContext(db, ownerId))).toEqual({ to: "owner@example.com" });
    const [mail] = await sink.waitFor(1);
    expect(mail!.to).toMatchObject({ text: "owner@example.com" });
    expect(mail!.subject).toBe("Burrow test e-mail");
    sink.refuse(true);
    await expect(sendTestEmail(await testUserContext(db, ownerId))).rejects.toSatisfy((e) => e instanceof AppError && e.code === "invalid_input");
  });

  it("e-mails an invite's link, which then works", async () => {
    const invited = await createInvite(await testContext(db, ownerId), { email: "ivy@example.com" }, SITE);
    expect(invited.emailed).toBe(true);
    const [mail] = await sink.waitFor(1);
    expect(mail!.to).toMatchObject({ text: "ivy@example.com" });
    expect(mail!.subject).toMatch(/invited/);
    expect(mail!.text).toContain(`${SITE}/invite/${invited.token}`);
    expect(mail!.html).toContain(`href="${SITE}/invite/${invited.token}"`);
    expect((await acceptInvite(db.prisma, { token: invited.token, firstName: "Ivy", password: "ivy password" })).email).toBe("ivy@example.com");
  });

  it("keeps the invite when the mail server fails, and says it was not e-mailed", async () => {
    sink.refuse(true);
    const invited = await createInvite(await testContext(db, ownerId), { email: "max@example.com" }, SITE);
    expect(invited).toMatchObject({ emailed: false, url: `${SITE}/invite/${invited.token}` });
    expect(await db.prisma.organizationInvite.count({ where: { targetEmail: "max@example.com" } })).toBe(1);
  });

  it("resets a forgotten password through the e-mailed link, once, ending every session", async () => {
    const before = await db.prisma.user.findUniqueOrThrow({ where: { id: ownerId } });
    await requestPasswordReset(db.prisma, { email: "OWNER@example.com" }, SITE);
    const [mail] = await sink.waitFor(1);
    const link = /http:\/\/burrow\.test:3000\/reset-password\/([\w-]+)/.exec(mail!.text ?? "");
    expect(link).not.toBeNull();
    const token = link![1]!;
    expect(await describePasswordReset(db.prisma, token)).toEqual({ email: "owner@example.com" });
    await expect(resetPassword(db.prisma, { token, password: "short" })).rejects.toThrow("at least 8");
    expect(await resetPassword(db.prisma, { token, password: "a brand new password" })).toEqual({ email: "owner@example.com" });
    const throttle = new SignInThrottle();
    expect(await checkPassword(db.prisma, throttle, { email: "owner@example.com", password: "a brand new password" })).toMatchObject({ id: ownerId });
    expect(await checkPassword(db.prisma, throttle, { email: "owner@example.com", password: "owner password" })).toBeFalsy();
    const after = await db.prisma.user.findUniqueOrThrow({ where: { id: ownerId } });
    expect(after.sessionVersion).toBe(before.sessionVersion + 1);
    // Used up: neither the page nor a second reset accept it.
    await expect(describePasswordReset(db.prisma, token)).rejects.toMatchObject({ code: "not_found" });
    await expect(resetPassword(db.prisma, { token, password: "another password" })).rejects.toMatchObject({ code: "not_found" });
    await expect(describePasswordReset(db.prisma, "not-a-token")).rejects.toMatchObject({ code: "not_found" });
  });

  it("answers the same for an unknown address and sends nothing; caps links per hour; expired links fail", async () => {
    await expect(requestPasswordReset(db.prisma, { email: "nobody@example.com" }, SITE)).resolves.toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sink.messages).toHaveLength(0);

    const ivy = await db.prisma.user.findUniqueOrThrow({ where: { email: "ivy@example.com" } });
    for (let i = 0; i < 5; i++) await requestPasswordReset(db.prisma, { email: "ivy@example.com" }, SITE);
    await sink.waitFor(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sink.messages).toHaveLength(3);
    expect(await db.prisma.passwordReset.count({ where: { userId: ivy.id } })).toBe(3);

    const token = /reset-password\/([\w-]+)/.exec(sink.messages[0]!.text ?? "")![1]!;
    await db.prisma.passwordReset.updateMany({ where: { userId: ivy.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect(resetPassword(db.prisma, { token, password: "ivy new password" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("says the reset form cannot work when e-mail is not set up", async () => {
    delete process.env.SMTP_URL;
    delete process.env.EMAIL_FROM;
    await expect(requestPasswordReset(db.prisma, { email: "owner@example.com" }, SITE)).rejects.toMatchObject({ code: "invalid_input" });
  });
});
