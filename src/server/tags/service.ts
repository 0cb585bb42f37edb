/**
 * Tags of a project and the objects that carry them (dashboards now; insights and feature
 * flags use the same tables). Names are normalised as PostHog's `tagify` does.
 */
import type { Prisma } from "@/generated/prisma/client";
import type { PrismaClient } from "@/server/db/client";

/** PostHog's `tagify`: trimmed and lower-cased. */
export function tagify(name: string): string {
  return name.trim().toLowerCase();
}

/** Distinct, non-empty, normalised names in the order given. */
export function normaliseTags(names: readonly string[]): string[] {
  return [...new Set(names.map(tagify).filter((name) => name.length > 0))];
}

/** The object a set of tags belongs to: exactly one of these. */
export type TagTarget = { dashboardId: number } | { insightId: number } | { featureFlagId: number };

/**
 * Makes `names` the object's tags: creates the project's missing tags, adds the new links,
 * removes the old ones. Tags no object uses any more stay (PostHog keeps them too).
 */
export async function setTags(tx: Prisma.TransactionClient, projectId: number, target: TagTarget, names: readonly string[]): Promise<void> {
  const wanted = normaliseTags(names);
  for (const name of wanted) {
    await tx.tag.upsert({ where: { projectId_name: { projectId, name } }, create: { projectId, name }, update: {} });
  }
  const tags = wanted.length === 0 ? [] : await tx.tag.findMany({ where: { projectId, name: { in: wanted } }, select: { id: true } });
  const wantedIds = tags.map((tag) => tag.id);
  await tx.taggedItem.deleteMany({ where: { ...target, tagId: { notIn: wantedIds } } });
  const existing = await tx.taggedItem.findMany({ where: { ...target, tagId: { in: wantedIds } }, select: { tagId: true } });
  const have = new Set(existing.map((item) => item.tagId));
  const missing = wantedIds.filter((id) => !have.has(id));
  if (missing.length > 0) await tx.taggedItem.createMany({ data: missing.map((tagId) => ({ tagId, ...target })) });
}

/** Tag names of one object's tagged items, sorted. */
export function tagNames(items: readonly { tag: { name: string } }[]): string[] {
  return items.map((item) => item.tag.name).sort();
}

/** Every tag name of the project that some object uses, sorted (for pickers and filters). */
export async function listProjectTags(prisma: PrismaClient, projectId: number): Promise<string[]> {
  const tags = await prisma.tag.findMany({ where: { projectId, items: { some: {} } }, orderBy: { name: "asc" }, select: { name: true } });
  return tags.map((tag) => tag.name);
}
