/**
 * Shared metrics (PostHog's ExperimentSavedMetric, ee/clickhouse/views/experiment_saved_metrics.py,
 * POSTHOG-PLATFORM-NOTES §4.4): an ExperimentMetric kept once under a name and linked to
 * experiments through `saved_metrics_ids`, as primary or secondary. An experiment shows its
 * links as `saved_metrics` with the metric's current query, so an edited shared metric is
 * read by every experiment at once; deleting one unlinks it everywhere.
 */
import { liveActionIds } from "@/server/actions/service";
import { logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import type { Tx } from "@/server/db/transaction";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import type { ExperimentMetric, ExposureCriteria, SavedMetricCreateBody, SavedMetricLink, SavedMetricUpdateBody, SavedMetricUsage } from "./contract";
import { presentSavedMetric, type SavedMetricResource } from "./present";
import * as store from "./store";

const ACTIVITY_SCOPE = "ExperimentSavedMetric";
const notFound = () => new AppError("not_found", "Not found.");

export async function listSavedMetrics(ctx: Context): Promise<SavedMetricResource[]> {
  return (await store.listSavedMetricRows(ctx.db.prisma, ctx.project.id)).map(presentSavedMetric);
}

export async function getSavedMetric(ctx: Context, id: number): Promise<SavedMetricResource> {
  const row = await store.findSavedMetric(ctx.db.prisma, ctx.project.id, id);
  if (!row) throw notFound();
  return presentSavedMetric(row);
}

/** The actions a metric (or an exposure) names. */
function actionIdsOf(metric: ExperimentMetric): number[] {
  const nodes = metric.metric_type === "funnel" ? metric.series : [metric.source];
  return nodes.flatMap((node) => (node.kind === "ActionsNode" && typeof node.id === "number" ? [node.id] : []));
}

/**
 * PostHog's `validate_metric_action_ids`: every ActionsNode of the metrics (and an action
 * exposure) names a live action of the project, else a 400 on `attr` with PostHog's message.
 */
export async function checkMetricActions(ctx: Context, attr: string, metrics: readonly (ExperimentMetric | null | undefined)[], exposure?: ExposureCriteria | null): Promise<void> {
  const ids = [...new Set([...metrics.flatMap((metric) => (metric ? actionIdsOf(metric) : [])), ...(exposure?.exposure_config?.kind === "ActionsNode" ? [exposure.exposure_config.id] : [])])];
  const live = await liveActionIds(ctx.db.prisma, ctx.project.id, ids);
  const missing = ids.filter((id) => !live.has(id));
  if (missing.length > 0) {
    throw new AppError("invalid_input", `Action(s) with ID ${missing.sort((a, b) => a - b).join(", ")} not found or deleted. Each ActionsNode must reference an existing action belonging to this project.`, attr);
  }
}

export async function createSavedMetric(ctx: Context, body: SavedMetricCreateBody): Promise<SavedMetricResource> {
  const projectId = ctx.project.id;
  await checkMetricActions(ctx, "query", [body.query as ExperimentMetric]);
  const id = await inTransaction(ctx.db, async (tx) => {
    const id = await store.insertSavedMetric(tx, projectId, ctx.actor.id, { name: body.name, description: body.description ?? "", query: body.query, tags: body.tags ?? [] });
    await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "created", name: body.name });
    return id;
  });
  return getSavedMetric(ctx, id);
}

export async function updateSavedMetric(ctx: Context, id: number, body: SavedMetricUpdateBody): Promise<SavedMetricResource> {
  const current = await store.findSavedMetric(ctx.db.prisma, ctx.project.id, id);
  if (!current) throw notFound();
  if (body.query !== undefined) await checkMetricActions(ctx, "query", [body.query as ExperimentMetric]);
  await inTransaction(ctx.db, async (tx) => {
    await store.updateSavedMetricRow(tx, id, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description ?? "" } : {}),
      ...(body.query !== undefined ? { query: body.query } : {}),
      ...(body.tags !== undefined ? { tags: body.tags ?? [] } : {}),
    });
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "updated", name: body.name ?? current.name });
  });
  return getSavedMetric(ctx, id);
}

/** The experiments that read a shared metric (a deletion removes it from each, as PostHog's links cascade). */
export async function savedMetricUsage(ctx: Context, id: number): Promise<SavedMetricUsage> {
  if (!(await store.findSavedMetric(ctx.db.prisma, ctx.project.id, id))) throw notFound();
  return { experiments: await store.experimentsLinkingSavedMetric(ctx.db.prisma, ctx.project.id, id) };
}

/** PostHog's delete: the metric and its links go; the experiments keep their own metrics and everything else. */
export async function deleteSavedMetric(ctx: Context, id: number): Promise<void> {
  const current = await store.findSavedMetric(ctx.db.prisma, ctx.project.id, id);
  if (!current) throw notFound();
  await inTransaction(ctx.db, async (tx) => {
    await store.deleteSavedMetricRow(tx, id);
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "deleted", name: current.name });
  });
}

/** The links to write: every id a shared metric of the project (PostHog's message otherwise), each once, primary unless said. */
export async function checkedLinks(ctx: Context, links: readonly SavedMetricLink[]): Promise<{ savedMetricId: number; type: string }[]> {
  const ids = [...new Set(links.map((link) => link.id))];
  if (ids.length !== links.length) throw new AppError("invalid_input", "A saved metric is linked at most once.", "saved_metrics_ids");
  const known = await store.savedMetricIdsIn(ctx.db.prisma, ctx.project.id, ids);
  if (known.size !== ids.length) throw new AppError("invalid_input", "Saved metric does not exist or does not belong to this project", "saved_metrics_ids");
  return links.map((link) => ({ savedMetricId: link.id, type: link.metadata?.type ?? "primary" }));
}

/** Writes an experiment's links when the request named them (undefined: unchanged; null or []: none). */
export async function writeLinks(tx: Tx, experimentId: number, links: { savedMetricId: number; type: string }[] | undefined): Promise<void> {
  if (links !== undefined) await store.replaceSavedMetricLinks(tx, experimentId, links);
}
