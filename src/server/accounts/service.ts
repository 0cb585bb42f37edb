/**
 * Accounts' rules: users, organizations and their members, invites, projects and personal
 * API keys. What a signed-in user does takes their `UserContext` (or, on one project, the
 * `Context`) first; first-run sign-up, invites before sign-in, the admin CLI and the edge's
 * project check run before there is an actor and take the Prisma client.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { hashPassword, hashSecret, maskSecret, newPersonalApiKey, newProjectApiKey, checkPassword, type SignInThrottle } from "@/server/auth/service";
import type { Context, ProjectAccess, UserContext } from "@/server/context";
import type { DbClient } from "@/server/db/transaction";
import type { PrismaClient } from "@/server/db/client";
import { AppError } from "@/server/errors";
import {
  acceptInviteInput,
  bootstrapInput,
  changePasswordInput,
  createInviteInput,
  createPersonalApiKeyInput,
  createProjectInput,
  createUserInput,
  MembershipLevel,
  signUpInput,
  type AcceptInviteInput,
  type BootstrapInput,
  type ChangePasswordInput,
  type CreateInviteInput,
  type CreatePersonalApiKeyInput,
  type CreateUserInput,
  type ProjectSettingsInput,
  requestPasswordResetInput,
  resetPasswordInput,
  type RequestPasswordResetInput,
  type ResetPasswordInput,
  type SignUpInput,
} from "./contract";
import { recordingSettingsFor, updateRecordingSettings } from "@/server/recordings/service";
import { actionEmailHtml, escapeHtml } from "@/server/email/present";
import { emailConfigured, sendEmail } from "@/server/email/service";
import { toMember, toPersonalApiKeySummary, toProjectResource, toUserBasic } from "./present";
import * as store from "./store";
import { defaultTestAccountFilters } from "./test-account-defaults";

export interface UserSummary {
  id: number;
  uuid: string;
  email: string;
}

const summary = ({ id, uuid, email }: UserSummary): UserSummary => ({ id, uuid, email });

const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
/** Links per user an hour: the form is public and every link is an e-mail sent. */
const PASSWORD_RESETS_PER_HOUR = 3;

// First run and the admin CLI: no actor yet.

export async function hasAnyUser(prisma: PrismaClient): Promise<boolean> {
  return (await store.countUsers(prisma)) > 0;
}

/**
 * First run, as PostHog's: the first user creates the organization (as owner) and its
 * first project. Refused once any user exists; later users are invited. Every new project
 * starts with PostHog's default test account filters for its creator (test-account-defaults.ts).
 */
export async function signUpFirstUser(prisma: PrismaClient, input: SignUpInput) {
  const { email, password, firstName, organization, project } = signUpInput.parse(input);
  const passwordHash = await hashPassword(password);
  const user = await store.createFirstUser(
    prisma,
    { organization, project, apiToken: newProjectApiKey(), testAccountFilters: defaultTestAccountFilters(email) },
    { email, firstName, passwordHash, distinctId: randomUUID() },
  );
  if (!user) throw new AppError("permission_denied", "Burrow is already set up. Sign in, or ask an admin for an invite.");
  return user;
}

/**
 * First-run setup, idempotent per e-mail: the user (reused if it exists, password kept),
 * an organization and project if the user has none, and a new all-scopes personal key.
 */
export async function bootstrap(prisma: PrismaClient, input: BootstrapInput) {
  const { email, password, organization, project } = bootstrapInput.parse(input);
  const user =
    (await store.findUserByEmail(prisma, email)) ??
    (await store.createUser(prisma, { email, passwordHash: await hashPassword(password), distinctId: randomUUID() }));
  const membership = await store.findFirstMembershipWithProject(prisma, user.id);
  let ids: { organizationId: string; project: { id: number; apiToken: string } };
  if (membership?.organization.projects[0]) {
    ids = { organizationId: membership.organizationId, project: membership.organization.projects[0] };
  } else if (membership) {
    const created = await store.createProject(prisma, { organizationId: membership.organizationId, name: project, apiToken: newProjectApiKey(), testAccountFilters: defaultTestAccountFilters(user.email) });
    ids = { organizationId: membership.organizationId, project: created };
  } else {
    const created = await store.createOrganizationWithProject(prisma, user.id, { organization, project, apiToken: newProjectApiKey(), testAccountFilters: defaultTestAccountFilters(user.email) });
    ids = { organizationId: created.organization.id, project: created.project };
  }
  const { key } = await createPersonalApiKey(prisma, user.id, { label: "bootstrap", scopes: ["*"] });
  return {
    user: summary(user),
    organization_id: ids.organizationId,
    project_id: ids.project.id,
    project_api_key: ids.project.apiToken,
    personal_api_key: key,
  };
}

/** Adds a new user to an existing organization. */
export async function createUser(prisma: PrismaClient, input: CreateUserInput): Promise<UserSummary> {
  const { email, password, organizationId, level, firstName } = createUserInput.parse(input);
  const organization = await store.findOrganizationWithFirstProject(prisma, organizationId);
  if (!organization) throw new AppError("not_found", `Organization ${organizationId} does not exist.`);
  if (await store.findUserByEmail(prisma, email)) {
    throw new AppError("conflict", `A user with the e-mail ${email} already exists.`);
  }
  const user = await store.createUser(prisma, {
    email,
    firstName,
    passwordHash: await hashPassword(password),
    distinctId: randomUUID(),
    currentProjectId: organization.projects[0]?.id ?? null,
    membership: { organizationId, level: MembershipLevel[level] },
  });
  return summary(user);
}

export async function findUserByEmail(prisma: PrismaClient, email: string) {
  return store.findUserByEmail(prisma, email.trim().toLowerCase());
}

/**
 * Creates a personal API key for `userId`; the plain key is returned once and only its hash
 * is stored. Takes the user's id rather than a context: the admin CLI and bootstrap create
 * keys for users who are not signed in; the signed-in user's own keys pass `ctx.actor.id`.
 */
export async function createPersonalApiKey(prisma: PrismaClient, userId: number, input: CreatePersonalApiKeyInput) {
  const { label, scopes, projectId } = createPersonalApiKeyInput.parse(input);
  if (projectId !== undefined && !(await store.findMemberProject(prisma, userId, projectId))) {
    throw new AppError("not_found", `Project ${projectId} does not exist or the user has no access to it.`);
  }
  const key = newPersonalApiKey();
  const record = await store.createPersonalApiKey(prisma, {
    userId,
    label,
    scopes,
    scopedProjects: projectId === undefined ? [] : [projectId],
    secureValue: hashSecret(key),
    maskValue: maskSecret(key),
  });
  return { key, record };
}

// Invites, before the invitee has an account.

async function openInvite(prisma: PrismaClient, token: string) {
  const invite = await store.findInviteByTokenHash(prisma, hashSecret(token));
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
  if (await store.findUserByEmail(prisma, invite.targetEmail)) {
    throw new AppError("conflict", "An account with this e-mail already exists; ask an admin to add it instead.");
  }
  const firstProject = await store.findFirstProjectOfOrganization(prisma, invite.organizationId);
  const passwordHash = await hashPassword(password);
  const user = await store.acceptInvite(prisma, invite.id, {
    email: invite.targetEmail,
    firstName,
    passwordHash,
    distinctId: randomUUID(),
    currentProjectId: firstProject?.id ?? null,
    membership: { organizationId: invite.organizationId, level: invite.level },
  });
  if (!user) throw new AppError("not_found", "This invite link is invalid or has expired.");
  return user;
}

// Password resets, before sign-in.

/**
 * "Forgot password": e-mails a one-time link (an hour) when the address is an active user's.
 * The answer and its timing are the same either way (the e-mail goes out after the answer),
 * so the form does not tell who has an account.
 */
export async function requestPasswordReset(prisma: PrismaClient, input: RequestPasswordResetInput, siteUrl: string): Promise<void> {
  const { email } = requestPasswordResetInput.parse(input);
  if (!emailConfigured()) {
    throw new AppError("invalid_input", "This server cannot send e-mail, so it cannot send reset links. Ask an admin of your organization.");
  }
  const user = await store.findUserByEmail(prisma, email);
  if (!user?.isActive) return;
  if ((await store.countRecentPasswordResets(prisma, user.id, new Date(Date.now() - 60 * 60 * 1000))) >= PASSWORD_RESETS_PER_HOUR) return;
  const token = randomBytes(24).toString("base64url");
  await store.createPasswordReset(prisma, { userId: user.id, tokenHash: hashSecret(token), expiresAt: new Date(Date.now() + PASSWORD_RESET_TTL_MS) });
  const link = `${siteUrl}/reset-password/${token}`;
  void sendEmail({
    to: [user.email],
    subject: "Reset your Burrow password",
    text: `Someone asked to reset the password of your Burrow account (${user.email}).\n\nSet a new password here within the hour:\n${link}\n\nIf it was not you, ignore this e-mail: your password stays as it is.`,
    html: actionEmailHtml(
      `<p>Someone asked to reset the password of your Burrow account (${escapeHtml(user.email)}).</p>`,
      link,
      "Set a new password",
      "The link works once, within the hour. If it was not you, ignore this e-mail: your password stays as it is.",
    ),
  }).catch((error: unknown) => console.error(`burrow: password reset e-mail to user ${user.id} failed: ${error instanceof Error ? error.message : String(error)}`));
}

/** What the reset page shows before the new password is set: whose account, or 404. */
export async function describePasswordReset(prisma: PrismaClient, token: string) {
  const reset = await openPasswordReset(prisma, token);
  return { email: reset.user.email };
}

async function openPasswordReset(prisma: PrismaClient, token: string) {
  const reset = await store.findPasswordResetByTokenHash(prisma, hashSecret(token));
  if (!reset || reset.usedAt || reset.expiresAt <= new Date() || !reset.user.isActive) {
    throw new AppError("not_found", "This reset link is invalid or has expired. Ask for a new one.");
  }
  return reset;
}

/** Sets the new password from a reset link; the link and every session end. */
export async function resetPassword(prisma: PrismaClient, input: ResetPasswordInput) {
  const { token, password } = resetPasswordInput.parse(input);
  const reset = await openPasswordReset(prisma, token);
  if (!(await store.usePasswordReset(prisma, reset.id, reset.userId, await hashPassword(password)))) {
    throw new AppError("not_found", "This reset link is invalid or has expired. Ask for a new one.");
  }
  return { email: reset.user.email };
}

// The edge's project check (REST's projectRoute, tRPC's projectProcedure), before a context exists.

/** The user's current project: the one set, else their first; null if they have none. */
export async function currentProjectId(prisma: DbClient, user: { id: number; currentProjectId: number | null }) {
  if (user.currentProjectId !== null) return user.currentProjectId;
  return (await store.findFirstProjectOfUser(prisma, user.id))?.id ?? null;
}

/** Project `projectId` and `userId`'s standing in it: 404 if there is no such project, 403 if they are not a member. */
export async function projectAccess(prisma: DbClient, userId: number, projectId: number): Promise<ProjectAccess> {
  const project = await store.findProjectWithMembership(prisma, projectId, userId);
  if (!project) throw new AppError("not_found", "Not found.");
  if (project.level === null) throw new AppError("permission_denied", "You don't have access to the project.");
  return { id: project.id, name: project.name, organizationId: project.organizationId, membershipLevel: project.level };
}

// The signed-in user.

/** The signed-in user as `/api/users/@me/` shows them: the basics, and their projects. */
export async function getMe(ctx: UserContext, scopedProjects: readonly number[] = []) {
  const user = await store.findUserWithOrganizations(ctx.db.prisma, ctx.actor.id);
  if (!user) throw new AppError("not_found", "Not found.");
  // A key limited to some projects must not reveal the others (nor organizations without one of them).
  const visible = (projectId: number) => scopedProjects.length === 0 || scopedProjects.includes(projectId);
  const organizations = user.memberships
    .map((membership) => ({
      id: membership.organization.id,
      name: membership.organization.name,
      membership_level: membership.level,
      projects: membership.organization.projects.filter((project) => visible(project.id)).map((project) => ({ id: project.id, name: project.name })),
    }))
    .filter((organization) => scopedProjects.length === 0 || organization.projects.length > 0);
  const currentProjectId = user.currentProjectId !== null && visible(user.currentProjectId) ? user.currentProjectId : (organizations[0]?.projects[0]?.id ?? null);
  return { ...toUserBasic(user), current_project_id: currentProjectId, organizations };
}

/** The projects the user can open, grouped by organization, oldest first. */
export async function listProjectsForUser(ctx: UserContext) {
  const memberships = await store.listMembershipsWithProjects(ctx.db.prisma, ctx.actor.id);
  return memberships.map((m) => ({
    organization: { id: m.organization.id, name: m.organization.name },
    level: m.level,
    projects: m.organization.projects,
  }));
}

/** A project the user is a member of, or 404 (existence is not revealed to outsiders). */
export async function getProjectForUser(ctx: UserContext, projectId: number) {
  const project = await store.findMemberProject(ctx.db.prisma, ctx.actor.id, projectId);
  if (!project) throw new AppError("not_found", "Not found.");
  return {
    id: project.id,
    uuid: project.uuid,
    name: project.name,
    apiToken: project.apiToken,
    timezone: project.timezone,
    createdAt: project.createdAt,
    anonymizeIps: project.anonymizeIps,
    enrichEvents: project.enrichEvents,
    // What the insight editor's "Filter out internal and test users" filters by (it is disabled without any)
    testAccountFilters: Array.isArray(project.testAccountFilters) ? project.testAccountFilters : [],
    organization: { id: project.organization.id, name: project.organization.name },
    membershipLevel: project.organization.memberships[0]!.level,
  };
}

export async function switchProject(ctx: UserContext, projectId: number) {
  await getProjectForUser(ctx, projectId);
  await store.setCurrentProject(ctx.db.prisma, ctx.actor.id, projectId);
}

/** An organization admin adds a project; it gets its own project API key, and the default test account filters for this admin's e-mail. */
export async function createProject(ctx: UserContext, organizationId: string, input: { name: string }) {
  const { name } = createProjectInput.parse(input);
  const membership = await store.findMembership(ctx.db.prisma, organizationId, ctx.actor.id);
  if (!membership) throw new AppError("not_found", "Not found.");
  if (membership.level < MembershipLevel.admin) throw new AppError("permission_denied", "Only organization admins can create projects.");
  const project = await store.createProject(ctx.db.prisma, { organizationId, name, apiToken: newProjectApiKey(), testAccountFilters: defaultTestAccountFilters(ctx.actor.email) });
  return { id: project.id, name: project.name };
}

/**
 * A signed-in user sets a new password. The current one is checked through the sign-in
 * throttle, so a stolen session cannot be used to guess it faster than the login form
 * allows. Every session of the user ends (the session version is bumped with the new hash);
 * the caller signs in again with the new password.
 */
export async function changePassword(ctx: UserContext, throttle: SignInThrottle, input: ChangePasswordInput) {
  const { currentPassword, newPassword } = changePasswordInput.parse(input);
  const user = await store.findUserEmail(ctx.db.prisma, ctx.actor.id);
  if (!user) throw new AppError("not_found", "Not found.");
  if (!(await checkPassword(ctx.db.prisma, throttle, { email: user.email, password: currentPassword }))) {
    throw new AppError("invalid_input", "The current password is not right.", "currentPassword");
  }
  await store.setPassword(ctx.db.prisma, ctx.actor.id, await hashPassword(newPassword));
  return { email: user.email };
}

/** The user's personal API keys as lists show them: never the key, only its mask. */
export async function listPersonalApiKeys(ctx: UserContext) {
  return (await store.listPersonalApiKeys(ctx.db.prisma, ctx.actor.id)).map(toPersonalApiKeySummary);
}

export async function deletePersonalApiKey(ctx: UserContext, keyId: string) {
  if ((await store.deletePersonalApiKey(ctx.db.prisma, ctx.actor.id, keyId)) === 0) throw new AppError("not_found", "Not found.");
}

// The organization of the project a request acts on.

function requireAdmin(ctx: Context) {
  if (ctx.project.membershipLevel < MembershipLevel.admin) {
    throw new AppError("permission_denied", "Only organization admins can do this.");
  }
}

/** The organization's members, owners first. */
export async function listMembers(ctx: Context) {
  return (await store.listMemberships(ctx.db.prisma, ctx.project.organizationId)).map(toMember);
}

/**
 * An admin invites someone by e-mail. Returns the one-time token and link (only its hash is
 * stored), and whether the link was e-mailed (when SMTP is set up). An admin may not invite
 * above their own level.
 */
export async function createInvite(ctx: Context, input: CreateInviteInput, siteUrl: string) {
  const { email, level } = createInviteInput.parse(input);
  const { organizationId } = ctx.project;
  requireAdmin(ctx);
  if (MembershipLevel[level] > ctx.project.membershipLevel) throw new AppError("permission_denied", "You cannot invite above your own level.");
  if (await store.findMembershipByEmail(ctx.db.prisma, organizationId, email)) {
    throw new AppError("conflict", `${email} is already a member of this organization.`, "email");
  }
  const token = randomBytes(24).toString("base64url");
  const invite = await store.createInvite(ctx.db.prisma, {
    organizationId,
    targetEmail: email,
    level: MembershipLevel[level],
    tokenHash: hashSecret(token),
    createdById: ctx.actor.id,
    expiresAt: new Date(Date.now() + INVITE_TTL_MS),
  });
  const url = `${siteUrl}/invite/${token}`;
  let emailed = false;
  if (emailConfigured()) {
    const organization = (await store.findOrganization(ctx.db.prisma, organizationId))?.name ?? "an organization";
    // The invite stands even if the mail server fails: the admin still has the link to share.
    emailed = await sendEmail({
      to: [email],
      subject: `You're invited to ${organization} on Burrow`,
      text: `${ctx.actor.email} invited you to join ${organization} on Burrow.\n\nAccept within 7 days:\n${url}`,
      html: actionEmailHtml(`<p>${escapeHtml(ctx.actor.email)} invited you to join <strong>${escapeHtml(organization)}</strong> on Burrow.</p>`, url, "Accept the invite", "The link works once, within 7 days."),
    }).then(
      () => true,
      (error: unknown) => {
        console.error(`burrow: invite e-mail failed: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      },
    );
  }
  return { token, url, emailed, invite };
}

/** Open invites name the invitees' e-mail addresses: admins only. */
export async function listOpenInvites(ctx: Context) {
  requireAdmin(ctx);
  return store.listOpenInvites(ctx.db.prisma, ctx.project.organizationId, new Date());
}

export async function revokeInvite(ctx: Context, inviteId: string) {
  requireAdmin(ctx);
  if ((await store.deleteOpenInvite(ctx.db.prisma, ctx.project.organizationId, inviteId)) === 0) throw new AppError("not_found", "Not found.");
}

/** The project a request acts on, as the management API shows it. */
/** What `filterTestAccounts: true` filters by in experiments' results (the query API reads it with the time zone, query/store.ts). */
export { projectTestAccountFilters } from "./store";

/** Changes a project's settings: an organization admin's (or owner's) to change, as PostHog's project settings. */
export async function updateProjectResource(ctx: Context, input: ProjectSettingsInput) {
  if (ctx.project.membershipLevel < MembershipLevel.admin) throw new AppError("permission_denied", "Only organization admins can change project settings.");
  const { name, timezone, anonymize_ips, enrich_events, test_account_filters, ...recording } = input;
  const project = await store.updateProjectSettings(ctx.db.prisma, ctx.project.id, { name, timezone, anonymizeIps: anonymize_ips, enrichEvents: enrich_events, testAccountFilters: test_account_filters });
  const recordingSettings = Object.values(recording).some((value) => value !== undefined)
    ? await updateRecordingSettings(ctx.db, ctx.project.id, recording)
    : await recordingSettingsFor(ctx.db, ctx.project.id);
  return toProjectResource(project, recordingSettings);
}

export async function getProjectResource(ctx: Context) {
  const project = await store.findProjectWithOrganization(ctx.db.prisma, ctx.project.id);
  if (!project) throw new AppError("not_found", "Not found.");
  return toProjectResource(project, await recordingSettingsFor(ctx.db, ctx.project.id));
}

/** A project's name and time zone, and its organization's members as UserBasic (alerts' subscribers are chosen among them). */
export async function projectMembersBasic(client: DbClient, projectId: number): Promise<{ name: string; timezone: string; members: ReturnType<typeof toUserBasic>[] } | null> {
  const project = await store.findProjectWithOrganization(client, projectId);
  if (!project) return null;
  const memberships = await store.listMemberships(client, project.organizationId);
  return { name: project.name, timezone: project.timezone, members: memberships.filter((m) => m.user.isActive).map((m) => toUserBasic(m.user)) };
}
