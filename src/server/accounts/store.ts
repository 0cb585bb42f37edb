/** All of accounts' database access: users, organizations and memberships, invites, projects, personal API keys. */
import type { PrismaClient } from "@/server/db/client";
import type { Prisma } from "@/generated/prisma/client";
import type { DbClient } from "@/server/db/transaction";
import { MembershipLevel } from "./contract";

/** A new user row; with `membership`, they join that organization at once. */
export interface NewUser {
  email: string;
  firstName?: string;
  passwordHash: string;
  distinctId: string;
  currentProjectId?: number | null;
  membership?: { organizationId: string; level: number };
}

function userData({ membership, ...user }: NewUser) {
  return membership ? { ...user, memberships: { create: membership } } : user;
}

// Users

export function countUsers(db: DbClient) {
  return db.user.count();
}

export function findUserByEmail(db: DbClient, email: string) {
  return db.user.findUnique({ where: { email } });
}

export function findUserEmail(db: DbClient, userId: number) {
  return db.user.findUnique({ where: { id: userId }, select: { email: true } });
}

/** The user with their organizations and each organization's projects, oldest first. */
export function findUserWithOrganizations(db: DbClient, userId: number) {
  return db.user.findUnique({
    where: { id: userId },
    include: { memberships: { include: { organization: { include: { projects: { orderBy: { id: "asc" } } } } } } },
  });
}

export function createUser(db: DbClient, user: NewUser) {
  return db.user.create({ data: userData(user) });
}

/** A new password ends every session of the user (their session version goes up). */
export function setPassword(db: DbClient, userId: number, passwordHash: string) {
  return db.user.update({ where: { id: userId }, data: { passwordHash, sessionVersion: { increment: 1 } } });
}

export function setCurrentProject(db: DbClient, userId: number, projectId: number) {
  return db.user.update({ where: { id: userId }, data: { currentProjectId: projectId } });
}

/**
 * First run: the organization, its first project and the owner, unless some user exists
 * (then null). Serialised so two racing first sign-ups cannot both succeed.
 */
export function createFirstUser(
  prisma: PrismaClient,
  names: { organization: string; project: string; apiToken: string; testAccountFilters: unknown[] },
  owner: Omit<NewUser, "membership" | "currentProjectId">,
) {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(4242002)`;
    if ((await tx.user.count()) > 0) return null;
    const org = await tx.organization.create({ data: { name: names.organization } });
    const proj = await tx.project.create({ data: { organizationId: org.id, name: names.project, apiToken: names.apiToken, testAccountFilters: names.testAccountFilters as Prisma.InputJsonValue } });
    return tx.user.create({
      data: userData({ ...owner, currentProjectId: proj.id, membership: { organizationId: org.id, level: MembershipLevel.owner } }),
    });
  });
}

// Organizations and memberships

/** Creates an organization with one project, and makes `userId` its owner and the project their current one. */
export function createOrganizationWithProject(
  prisma: PrismaClient,
  userId: number,
  names: { organization: string; project: string; apiToken: string; testAccountFilters: unknown[] },
) {
  return prisma.$transaction(async (tx) => {
    const organization = await tx.organization.create({
      data: {
        name: names.organization,
        memberships: { create: { userId, level: MembershipLevel.owner } },
      },
    });
    const project = await tx.project.create({
      data: { organizationId: organization.id, name: names.project, apiToken: names.apiToken, testAccountFilters: names.testAccountFilters as Prisma.InputJsonValue },
    });
    await tx.user.update({ where: { id: userId }, data: { currentProjectId: project.id } });
    return { organization, project };
  });
}

export function findOrganization(db: DbClient, organizationId: string) {
  return db.organization.findUnique({ where: { id: organizationId }, select: { name: true } });
}

export function findOrganizationWithFirstProject(db: DbClient, organizationId: string) {
  return db.organization.findUnique({
    where: { id: organizationId },
    include: { projects: { orderBy: { id: "asc" }, take: 1 } },
  });
}

export function findMembership(db: DbClient, organizationId: string, userId: number) {
  return db.organizationMembership.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
}

export function findMembershipByEmail(db: DbClient, organizationId: string, email: string) {
  return db.organizationMembership.findFirst({ where: { organizationId, user: { email } } });
}

/** The user's oldest membership, with that organization's first project. */
export function findFirstMembershipWithProject(db: DbClient, userId: number) {
  return db.organizationMembership.findFirst({
    where: { userId },
    orderBy: { createdAt: "asc" },
    include: { organization: { include: { projects: { orderBy: { id: "asc" }, take: 1 } } } },
  });
}

/** The organization's members with their users, owners first. */
export function listMemberships(db: DbClient, organizationId: string) {
  return db.organizationMembership.findMany({
    where: { organizationId },
    include: { user: true },
    orderBy: [{ level: "desc" }, { createdAt: "asc" }],
  });
}

/** The user's memberships, oldest first, each with its organization's projects. */
export function listMembershipsWithProjects(db: DbClient, userId: number) {
  return db.organizationMembership.findMany({
    where: { userId },
    orderBy: { createdAt: "asc" },
    include: { organization: { include: { projects: { orderBy: { id: "asc" }, select: { id: true, name: true } } } } },
  });
}

// Invites

export function createInvite(
  db: DbClient,
  data: { organizationId: string; targetEmail: string; level: number; tokenHash: string; createdById: number; expiresAt: Date },
) {
  return db.organizationInvite.create({ data });
}

export function listOpenInvites(db: DbClient, organizationId: string, now: Date) {
  return db.organizationInvite.findMany({
    where: { organizationId, acceptedAt: null, expiresAt: { gt: now } },
    orderBy: { createdAt: "desc" },
    select: { id: true, targetEmail: true, level: true, createdAt: true, expiresAt: true },
  });
}

/** Deletes an invite not yet accepted; the number deleted (0 or 1). */
export async function deleteOpenInvite(db: DbClient, organizationId: string, inviteId: string): Promise<number> {
  const { count } = await db.organizationInvite.deleteMany({ where: { id: inviteId, organizationId, acceptedAt: null } });
  return count;
}

export function findInviteByTokenHash(db: DbClient, tokenHash: string) {
  return db.organizationInvite.findUnique({
    where: { tokenHash },
    include: { organization: { select: { name: true } } },
  });
}

/** Uses the invite up and creates its user, or null if the invite was used meanwhile. */
export function acceptInvite(prisma: PrismaClient, inviteId: string, user: NewUser) {
  return prisma.$transaction(async (tx) => {
    const used = await tx.organizationInvite.updateMany({ where: { id: inviteId, acceptedAt: null }, data: { acceptedAt: new Date() } });
    if (used.count === 0) return null;
    return tx.user.create({ data: userData(user) });
  });
}

// Password resets

export function countRecentPasswordResets(db: DbClient, userId: number, since: Date) {
  return db.passwordReset.count({ where: { userId, createdAt: { gte: since } } });
}

export function createPasswordReset(db: DbClient, data: { userId: number; tokenHash: string; expiresAt: Date }) {
  return db.passwordReset.create({ data });
}

export function findPasswordResetByTokenHash(db: DbClient, tokenHash: string) {
  return db.passwordReset.findUnique({ where: { tokenHash }, select: { id: true, userId: true, expiresAt: true, usedAt: true, user: { select: { email: true, isActive: true } } } });
}

/**
 * Uses the reset up and sets the password (which ends every session), in one transaction;
 * false if the link was used meanwhile. The user's other open links die with it.
 */
export function usePasswordReset(prisma: PrismaClient, resetId: string, userId: number, passwordHash: string) {
  return prisma.$transaction(async (tx) => {
    const now = new Date();
    const used = await tx.passwordReset.updateMany({ where: { id: resetId, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    if (used.count === 0) return false;
    await tx.passwordReset.updateMany({ where: { userId, usedAt: null }, data: { usedAt: now } });
    await setPassword(tx, userId, passwordHash);
    return true;
  });
}

// Projects

export function createProject(db: DbClient, data: { organizationId: string; name: string; apiToken: string; testAccountFilters: unknown[] }) {
  return db.project.create({ data: { ...data, testAccountFilters: data.testAccountFilters as Prisma.InputJsonValue } });
}

export function updateProjectSettings(db: DbClient, projectId: number, data: { name?: string; timezone?: string; anonymizeIps?: boolean; enrichEvents?: boolean; testAccountFilters?: unknown[] }) {
  const { testAccountFilters, ...rest } = data;
  return db.project.update({
    where: { id: projectId },
    data: { ...rest, ...(testAccountFilters === undefined ? {} : { testAccountFilters: testAccountFilters as Prisma.InputJsonValue }) },
    include: { organization: { select: { id: true, name: true } } },
  });
}

/** The project's test account filters as stored (a list of property filters). */
export async function projectTestAccountFilters(db: DbClient, projectId: number): Promise<unknown[]> {
  const row = await db.project.findUnique({ where: { id: projectId }, select: { testAccountFilters: true } });
  return Array.isArray(row?.testAccountFilters) ? row.testAccountFilters : [];
}

export function findProjectWithOrganization(db: DbClient, projectId: number) {
  return db.project.findUnique({
    where: { id: projectId },
    include: { organization: { select: { id: true, name: true } } },
  });
}

/** A project of an organization `userId` belongs to, with that organization and the user's membership level. */
export function findMemberProject(db: DbClient, userId: number, projectId: number) {
  return db.project.findFirst({
    where: { id: projectId, organization: { memberships: { some: { userId } } } },
    include: { organization: { select: { id: true, name: true, memberships: { where: { userId }, select: { level: true } } } } },
  });
}

/** The first project (lowest id) of any organization `userId` belongs to. */
export function findFirstProjectOfUser(db: DbClient, userId: number) {
  return db.project.findFirst({
    where: { organization: { memberships: { some: { userId } } } },
    orderBy: { id: "asc" },
    select: { id: true },
  });
}

export function findFirstProjectOfOrganization(db: DbClient, organizationId: string) {
  return db.project.findFirst({ where: { organizationId }, orderBy: { id: "asc" } });
}

/**
 * A project and the user's membership level in its organization (null: not a member), or
 * null. Every project-scoped request asks it first: one statement, where Prisma's nested
 * select made three round trips.
 */
export async function findProjectWithMembership(db: DbClient, projectId: number, userId: number) {
  const [row] = await db.$queryRaw<{ id: number; name: string; organization_id: string; level: number | null }[]>`
    SELECT p.id, p.name, p.organization_id, m.level
      FROM projects p LEFT JOIN organization_memberships m ON m.organization_id = p.organization_id AND m.user_id = ${userId}
     WHERE p.id = ${projectId}`;
  return row ? { id: row.id, name: row.name, organizationId: row.organization_id, level: row.level } : null;
}

// Personal API keys

export function createPersonalApiKey(
  db: DbClient,
  data: { userId: number; label: string; scopes: string[]; scopedProjects: number[]; secureValue: string; maskValue: string },
) {
  return db.personalApiKey.create({ data });
}

export function listPersonalApiKeys(db: DbClient, userId: number) {
  return db.personalApiKey.findMany({ where: { userId }, orderBy: { createdAt: "desc" } });
}

/** Deletes one of the user's keys; the number deleted (0 or 1). */
export async function deletePersonalApiKey(db: DbClient, userId: number, keyId: string): Promise<number> {
  const { count } = await db.personalApiKey.deleteMany({ where: { id: keyId, userId } });
  return count;
}
