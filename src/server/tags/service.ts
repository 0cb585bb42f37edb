/**
 * Tags of a project and the objects that carry them (dashboards now; insights and feature
 * flags use the same tables). Names are normalised as PostHog's `tagify` does.
 */
import type { Context } from "@/server/context";
import type { Tx } from "@/server/db/transaction";
import { ensureTag, linkedTagIds, linkTags, tagIdsNamed, unlinkTagsExcept, usedTagNames, type TagTarget } from "./store";

/** PostHog's `tagify`: trimmed and lower-cased. */
export function tagify(name: string): string {
  return name.trim().toLowerCase();
}

/** Distinct, non-empty, normalised names in the order given. */
export function normaliseTags(names: readonly string[]): string[] {
  return [...new Set(names.map(tagify).filter((name) => name.length > 0))];
}

export type { TagTarget } from "./store";

/**
 * Makes `names` the object's tags: creates the project's missing tags, adds the new links,
 * removes the old ones. Tags no object uses any more stay (PostHog keeps them too).
 */
export async function setTags(tx: Tx, projectId: number, target: TagTarget, names: readonly string[]): Promise<void> {
  const wanted = normaliseTags(names);
  for (const name of wanted) await ensureTag(tx, projectId, name);
  const wantedIds = wanted.length === 0 ? [] : await tagIdsNamed(tx, projectId, wanted);
  await unlinkTagsExcept(tx, target, wantedIds);
  const have = new Set(await linkedTagIds(tx, target, wantedIds));
  const missing = wantedIds.filter((id) => !have.has(id));
  if (missing.length > 0) await linkTags(tx, target, missing);
}

/** Tag names of one object's tagged items, sorted. */
export function tagNames(items: readonly { tag: { name: string } }[]): string[] {
  return items.map((item) => item.tag.name).sort();
}

/** Every tag name of the project that some object uses, sorted (for pickers and filters). */
export async function listProjectTags(ctx: Context): Promise<string[]> {
  return usedTagNames(ctx.db.prisma, ctx.project.id);
}
