import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@/server/db/client";
import { hashPassword } from "@/server/auth/passwords";
import { hashSecret, maskSecret, newPersonalApiKey, newProjectApiKey } from "@/server/auth/tokens";
import {
  bootstrapInput,
  createPersonalApiKeyInput,
  createUserInput,
  MembershipLevel,
  type BootstrapInput,
  type CreatePersonalApiKeyInput,
  type CreateUserInput,
} from "./contract";
import { AppError } from "@/server/errors";

export interface UserSummary {
  id: number;
  uuid: string;
  email: string;
}

const summary = ({ id, uuid, email }: UserSummary): UserSummary => ({ id, uuid, email });

/** Creates an organization with one project, and makes `userId` its owner. */
async function createOrganizationWithProject(
  prisma: PrismaClient,
  userId: number,
  names: { organization: string; project: string },
) {
  return prisma.$transaction(async (tx) => {
    const organization = await tx.organization.create({
      data: {
        name: names.organization,
        memberships: { create: { userId, level: MembershipLevel.owner } },
      },
    });
    const project = await tx.project.create({
      data: { organizationId: organization.id, name: names.project, apiToken: newProjectApiKey() },
    });
    await tx.user.update({ where: { id: userId }, data: { currentProjectId: project.id } });
    return { organization, project };
  });
}

/**
 * First-run setup, idempotent per e-mail: the user (reused if it exists, password kept),
 * an organization and project if the user has none, and a new all-scopes personal key.
 */
export async function bootstrap(prisma: PrismaClient, input: BootstrapInput) {
  const { email, password, organization, project } = bootstrapInput.parse(input);
  const user =
    (await prisma.user.findUnique({ where: { email } })) ??
    (await prisma.user.create({
      data: { email, passwordHash: await hashPassword(password), distinctId: randomUUID() },
    }));
  const membership = await prisma.organizationMembership.findFirst({
    where: { userId: user.id },
    orderBy: { createdAt: "asc" },
    include: { organization: { include: { projects: { orderBy: { id: "asc" }, take: 1 } } } },
  });
  let ids: { organizationId: string; project: { id: number; apiToken: string } };
  if (membership?.organization.projects[0]) {
    ids = { organizationId: membership.organizationId, project: membership.organization.projects[0] };
  } else if (membership) {
    const created = await prisma.project.create({
      data: { organizationId: membership.organizationId, name: project, apiToken: newProjectApiKey() },
    });
    ids = { organizationId: membership.organizationId, project: created };
  } else {
    const created = await createOrganizationWithProject(prisma, user.id, { organization, project });
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
  const organization = await prisma.organization.findUnique({
    where: { id: organizationId },
    include: { projects: { orderBy: { id: "asc" }, take: 1 } },
  });
  if (!organization) throw new AppError("not_found", `Organization ${organizationId} does not exist.`);
  if (await prisma.user.findUnique({ where: { email } })) {
    throw new AppError("conflict", `A user with the e-mail ${email} already exists.`);
  }
  const user = await prisma.user.create({
    data: {
      email,
      firstName,
      passwordHash: await hashPassword(password),
      distinctId: randomUUID(),
      currentProjectId: organization.projects[0]?.id ?? null,
      memberships: { create: { organizationId, level: MembershipLevel[level] } },
    },
  });
  return summary(user);
}

/** Creates a personal API key; the plain key is returned once and only its hash is stored. */
export async function createPersonalApiKey(
  prisma: PrismaClient,
  userId: number,
  input: CreatePersonalApiKeyInput,
) {
  const { label, scopes, projectId } = createPersonalApiKeyInput.parse(input);
  if (projectId !== undefined) {
    const project = await prisma.project.findFirst({
      where: { id: projectId, organization: { memberships: { some: { userId } } } },
    });
    if (!project) throw new AppError("not_found", `Project ${projectId} does not exist or the user has no access to it.`);
  }
  const key = newPersonalApiKey();
  const record = await prisma.personalApiKey.create({
    data: {
      userId,
      label,
      scopes,
      scopedProjects: projectId === undefined ? [] : [projectId],
      secureValue: hashSecret(key),
      maskValue: maskSecret(key),
    },
  });
  return { key, record };
}

export async function findUserByEmail(prisma: PrismaClient, email: string) {
  return prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
}

/** A user's personal API keys as lists show them: never the key, only its mask. */
export async function listPersonalApiKeys(prisma: PrismaClient, userId: number) {
  const keys = await prisma.personalApiKey.findMany({ where: { userId }, orderBy: { createdAt: "desc" } });
  return keys.map((key) => ({
    id: key.id,
    label: key.label,
    maskValue: key.maskValue,
    scopes: key.scopes,
    scopedProjects: key.scopedProjects,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
  }));
}

export async function deletePersonalApiKey(prisma: PrismaClient, userId: number, keyId: string) {
  const { count } = await prisma.personalApiKey.deleteMany({ where: { id: keyId, userId } });
  if (count === 0) throw new AppError("not_found", "Not found.");
}
