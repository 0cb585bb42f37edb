import { randomBytes, randomUUID } from "node:crypto";
import type { PrismaClient } from "@/server/db/client";
import { hashPassword } from "@/server/auth/passwords";
import { hashSecret, newProjectApiKey } from "@/server/auth/tokens";
import { AppError } from "@/server/errors";
import {
  acceptInviteInput,
  createInviteInput,
  MembershipLevel,
  signUpInput,
  type AcceptInviteInput,
  type CreateInviteInput,
  type SignUpInput,
} from "./contract";

const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export async function hasAnyUser(prisma: PrismaClient): Promise<boolean> {
  return (await prisma.user.count()) > 0;
}

/**
 * First run, as PostHog's: the first user creates the organization (as owner) and its
 * first project. Refused once any user exists; later users are invited.
 */
export async function signUpFirstUser(prisma: PrismaClient, input: SignUpInput) {
  const { email, password, firstName, organization, project } = signUpInput.parse(input);
  const passwordHash = await hashPassword(password);
  // Serialised so two racing first sign-ups cannot both succeed.
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(4242002)`;
    if ((await tx.user.count()) > 0) {
      throw new AppError("permission_denied", "Burrow is already set up. Sign in, or ask an admin for an invite.");
    }
    const org = await tx.organization.create({ data: { name: organization } });
    const proj = await tx.project.create({ data: { organizationId: org.id, name: project, apiToken: newProjectApiKey() } });
    return tx.user.create({
      data: {
        email,
        firstName,
        passwordHash,
        distinctId: randomUUID(),
        currentProjectId: proj.id,
        memberships: { create: { organizationId: org.id, level: MembershipLevel.owner } },
      },
    });
  });
}

async function requireAdmin(prisma: PrismaClient, organizationId: string, userId: number) {
  const membership = await prisma.organizationMembership.findUnique({
    where: { organizationId_userId: { organizationId, userId } },
  });
  if (!membership) throw new AppError("not_found", "Not found.");
  if (membership.level < MembershipLevel.admin) {
    throw new AppError("permission_denied", "Only organization admins can do this.");
  }
  return membership;
}

/** The organization's members, owners first. */
export async function listMembers(prisma: PrismaClient, organizationId: string) {
  const memberships = await prisma.organizationMembership.findMany({
    where: { organizationId },
    include: { user: true },
    orderBy: [{ level: "desc" }, { createdAt: "asc" }],
  });
  return memberships.map((m) => ({
    id: m.id,
    level: m.level,
    joinedAt: m.createdAt,
    user: { id: m.user.id, uuid: m.user.uuid, email: m.user.email, firstName: m.user.firstName, lastName: m.user.lastName },
  }));
}

/**
 * An admin invites someone by e-mail. Returns the one-time token for the invite link; only
 * its hash is stored. An admin may not invite above their own level.
 */
export async function createInvite(prisma: PrismaClient, organizationId: string, invitedBy: number, input: CreateInviteInput) {
  const { email, level } = createInviteInput.parse(input);
  const inviter = await requireAdmin(prisma, organizationId, invitedBy);
  if (MembershipLevel[level] > inviter.level) throw new AppError("permission_denied", "You cannot invite above your own level.");
  const existing = await prisma.organizationMembership.findFirst({ where: { organizationId, user: { email } } });
  if (existing) throw new AppError("conflict", `${email} is already a member of this organization.`, "email");
  const token = randomBytes(24).toString("base64url");
  const invite = await prisma.organizationInvite.create({
    data: {
      organizationId,
      targetEmail: email,
      level: MembershipLevel[level],
      tokenHash: hashSecret(token),
      createdById: invitedBy,
      expiresAt: new Date(Date.now() + INVITE_TTL_MS),
    },
  });
  return { token, invite };
}

/** Open invites name the invitees' e-mail addresses: admins only. */
export async function listOpenInvites(prisma: PrismaClient, organizationId: string, userId: number) {
  await requireAdmin(prisma, organizationId, userId);
  return prisma.organizationInvite.findMany({
    where: { organizationId, acceptedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
    select: { id: true, targetEmail: true, level: true, createdAt: true, expiresAt: true },
  });
}

export async function revokeInvite(prisma: PrismaClient, organizationId: string, userId: number, inviteId: string) {
  await requireAdmin(prisma, organizationId, userId);
  const { count } = await prisma.organizationInvite.deleteMany({ where: { id: inviteId, organizationId, acceptedAt: null } });
  if (count === 0) throw new AppError("not_found", "Not found.");
}

async function openInvite(prisma: PrismaClient, token: string) {
  const invite = await prisma.organizationInvite.findUnique({
    where: { tokenHash: hashSecret(token) },
    include: { organization: { select: { name: true } } },
  });
  if (!invite || invite.acceptedAt || invite.expiresAt <= new Date()) {
    throw new AppError("not_found", "This invite link is invalid or has expired.");
  }
  return invite;
}

/** What the invite page shows before the invitee sets a password. */
export async function describeInvite(prisma: PrismaClient, token: string) {
  const invite = await openInvite(prisma, token);
  return { email: invite.targetEmail, organization: invite.organization.name };
}

/** The invitee becomes a user and member; the invite is used up. */
export async function acceptInvite(prisma: PrismaClient, input: AcceptInviteInput) {
  const { token, password, firstName } = acceptInviteInput.parse(input);
  const invite = await openInvite(prisma, token);
  if (await prisma.user.findUnique({ where: { email: invite.targetEmail } })) {
    throw new AppError("conflict", "An account with this e-mail already exists; ask an admin to add it instead.");
  }
  const firstProject = await prisma.project.findFirst({ where: { organizationId: invite.organizationId }, orderBy: { id: "asc" } });
  const passwordHash = await hashPassword(password);
  return prisma.$transaction(async (tx) => {
    const used = await tx.organizationInvite.updateMany({ where: { id: invite.id, acceptedAt: null }, data: { acceptedAt: new Date() } });
    if (used.count === 0) throw new AppError("not_found", "This invite link is invalid or has expired.");
    return tx.user.create({
      data: {
        email: invite.targetEmail,
        firstName,
        passwordHash,
        distinctId: randomUUID(),
        currentProjectId: firstProject?.id ?? null,
        memberships: { create: { organizationId: invite.organizationId, level: invite.level } },
      },
    });
  });
}
