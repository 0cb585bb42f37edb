/** The tag tables: a project's tags and the links from objects to them. */
import type { DbClient } from "@/server/db/transaction";

/** The object a set of tags belongs to: exactly one of these. */
export type TagTarget = { dashboardId: number } | { insightId: number } | { featureFlagId: number };

/** Creates the project's tag `name` unless it exists. */
export async function ensureTag(client: DbClient, projectId: number, name: string): Promise<void> {
  await client.tag.upsert({ where: { projectId_name: { projectId, name } }, create: { projectId, name }, update: {} });
}

/** Ids of the project's tags named `names`. */
export async function tagIdsNamed(client: DbClient, projectId: number, names: readonly string[]): Promise<string[]> {
  const tags = await client.tag.findMany({ where: { projectId, name: { in: [...names] } }, select: { id: true } });
  return tags.map((tag) => tag.id);
}

/** Removes the object's links to every tag but `keep`. */
export async function unlinkTagsExcept(client: DbClient, target: TagTarget, keep: readonly string[]): Promise<void> {
  await client.taggedItem.deleteMany({ where: { ...target, tagId: { notIn: [...keep] } } });
}

/** Which of `tagIds` the object is linked to already. */
export async function linkedTagIds(client: DbClient, target: TagTarget, tagIds: readonly string[]): Promise<string[]> {
  const items = await client.taggedItem.findMany({ where: { ...target, tagId: { in: [...tagIds] } }, select: { tagId: true } });
  return items.map((item) => item.tagId);
}

export async function linkTags(client: DbClient, target: TagTarget, tagIds: readonly string[]): Promise<void> {
  await client.taggedItem.createMany({ data: tagIds.map((tagId) => ({ tagId, ...target })) });
}

/** Names of the project's tags that some object uses, sorted. */
export async function usedTagNames(client: DbClient, projectId: number): Promise<string[]> {
  const tags = await client.tag.findMany({ where: { projectId, items: { some: {} } }, orderBy: { name: "asc" }, select: { name: true } });
  return tags.map((tag) => tag.name);
}
