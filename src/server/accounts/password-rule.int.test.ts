import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignInThrottle } from "@/server/auth/service";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { passwordSchema } from "./contract";
import { testContext, testUserContext } from "@/test-support/context";
import { acceptInvite, bootstrap, changePassword, createInvite, createUser, signUpFirstUser } from "./service";

const NOT_SPACES = "Passwords have at least 8 characters that are not spaces.";

describe("the password rule", () => {
  it.each([
    ["        ", NOT_SPACES],
    ["\t\n \u00a0\u2003    ", NOT_SPACES],
    ["a b c d e f g", NOT_SPACES],
    ["short", "Passwords have at least 8 characters."],
    ["x".repeat(257), "Passwords have at most 256 characters."],
  ])("refuses %j with one message", (password, message) => {
    const result = passwordSchema.safeParse(password);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([message]);
  });

  it.each(["pw12345678", "correct horse battery", " leading and trailing ", "пароль-пароль", "x".repeat(256)])("accepts %j", (password) => {
    expect(passwordSchema.safeParse(password).success).toBe(true);
  });
});

describe(`every way to set a password applies the rule (${testDbKind})`, () => {
  let db: Database;
  let owner: { id: number };
  let organizationId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("first-run sign-up", async () => {
    const input = { email: "owner@example.com", firstName: "Olivia", organization: "Acme" };
    await expect(signUpFirstUser(db.prisma, { ...input, password: "        " })).rejects.toThrow(NOT_SPACES);
    owner = await signUpFirstUser(db.prisma, { ...input, password: "owner password" });
    organizationId = (await db.prisma.organizationMembership.findFirstOrThrow({ where: { userId: owner.id } })).organizationId;
  });

  it("accepting an invite", async () => {
    const { token } = await createInvite(await testContext(db, owner.id), { email: "invitee@example.com" }, "http://localhost:3000");
    await expect(acceptInvite(db.prisma, { token, firstName: "Ivy", password: "a b c d e f g" })).rejects.toThrow(NOT_SPACES);
    expect((await acceptInvite(db.prisma, { token, firstName: "Ivy", password: "invitee password" })).email).toBe("invitee@example.com");
  });

  it("the admin CLI's bootstrap and create-user", async () => {
    await expect(bootstrap(db.prisma, { email: "boot@example.com", password: "        " })).rejects.toThrow(NOT_SPACES);
    await expect(createUser(db.prisma, { email: "made@example.com", password: "        ", organizationId })).rejects.toThrow(NOT_SPACES);
    expect(await db.prisma.user.count({ where: { email: { in: ["boot@example.com", "made@example.com"] } } })).toBe(0);
  });

  it("changing a password", async () => {
    await expect(
      changePassword(await testUserContext(db, owner.id), new SignInThrottle(), { currentPassword: "owner password", newPassword: "        " }),
    ).rejects.toThrow(NOT_SPACES);
  });
});
