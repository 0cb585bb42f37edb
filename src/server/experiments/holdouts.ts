/**
 * Experiment holdouts (PostHog ee/clickhouse/views/experiment_holdouts.py, POSTHOG-PLATFORM-NOTES
 * §4.5–4.6): a share of users kept out of every experiment that names the holdout. Each such
 * experiment's flag carries `filters.holdout = {id, exclusion_percentage}` (the newer form),
 * which /flags and local evaluation answer with `holdout-<id>` before any condition, hashed
 * as PostHog does (flags/evaluation.ts). A change of percentage rewrites those flags;
 * deleting the holdout clears it from them.
 */
import { logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { updateFlag } from "@/server/flags/service";
import { holdoutVariant, type HoldoutCreateBody, type HoldoutUpdateBody } from "./contract";
import { presentHoldout, type HoldoutResource } from "./present";
import * as store from "./store";

const ACTIVITY_SCOPE = "ExperimentHoldout";
const notFound = () => new AppError("not_found", "Not found.");

export async function listHoldouts(ctx: Context): Promise<HoldoutResource[]> {
  return (await store.listHoldoutRows(ctx.db.prisma, ctx.project.id)).map(presentHoldout);
}

export async function getHoldout(ctx: Context, id: number): Promise<HoldoutResource> {
  const row = await store.findHoldout(ctx.db.prisma, ctx.project.id, id);
  if (!row) throw notFound();
  return presentHoldout(row);
}

const stored = (id: number, filters: HoldoutCreateBody["filters"]) => filters.map((filter) => ({ ...filter, variant: holdoutVariant(id) }));

export async function createHoldout(ctx: Context, body: HoldoutCreateBody): Promise<HoldoutResource> {
  const projectId = ctx.project.id;
  const id = await inTransaction(ctx.db, async (tx) => {
    const id = await store.insertHoldout(tx, projectId, ctx.actor.id, { name: body.name, description: body.description ?? "", filters: [] });
    // The variant names the id, known only once the row exists.
    await store.updateHoldoutRow(tx, id, { filters: stored(id, body.filters) });
    await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "created", name: body.name });
    return id;
  });
  return getHoldout(ctx, id);
}

/** The flags of the holdout's experiments, set to `holdout` (null clears it). */
async function rewriteFlags(ctx: Context, holdoutId: number, holdout: { id: number; exclusion_percentage: number } | null): Promise<void> {
  for (const experiment of await store.experimentsOfHoldout(ctx.db.prisma, ctx.project.id, holdoutId)) {
    await updateFlag(ctx, experiment.featureFlagId, { filters: { holdout } });
  }
}

export async function updateHoldout(ctx: Context, id: number, body: HoldoutUpdateBody): Promise<HoldoutResource> {
  const current = await store.findHoldout(ctx.db.prisma, ctx.project.id, id);
  if (!current) throw notFound();
  await inTransaction(ctx.db, async (tx) => {
    await store.updateHoldoutRow(tx, id, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description ?? "" } : {}),
      ...(body.filters !== undefined ? { filters: stored(id, body.filters) } : {}),
    });
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "updated", name: body.name ?? current.name });
  });
  if (body.filters) await rewriteFlags(ctx, id, { id, exclusion_percentage: body.filters[0]!.rollout_percentage });
  return getHoldout(ctx, id);
}

export async function deleteHoldout(ctx: Context, id: number): Promise<void> {
  const current = await store.findHoldout(ctx.db.prisma, ctx.project.id, id);
  if (!current) throw notFound();
  await rewriteFlags(ctx, id, null);
  await inTransaction(ctx.db, async (tx) => {
    await store.deleteHoldoutRow(tx, id);
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "deleted", name: current.name });
  });
}
