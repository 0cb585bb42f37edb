import type { PrismaClient } from "@/server/db/client";
import { AppError } from "@/server/errors";

/** A project as the management API shows it (PostHog's team/project fields we have). */
export async function projectResource(prisma: PrismaClient, projectId: number) {
  const project = await prisma.project.findUnique({
    where: { id: projectId },
    include: { organization: { select: { id: true, name: true } } },
  });
  if (!project) throw new AppError("not_found", "Not found.");
  return {
    id: project.id,
    uuid: project.uuid,
    organization: project.organization.id,
    name: project.name,
    api_token: project.apiToken,
    timezone: project.timezone,
    anonymize_ips: project.anonymizeIps,
    created_at: project.createdAt.toISOString(),
    updated_at: project.updatedAt.toISOString(),
  };
}
