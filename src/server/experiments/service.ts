/**
 * Experiments: PostHog's rules (ee/clickhouse/views/experiments.py, experiment_service.py)
 * over the store. An experiment owns a multivariate flag — created with it, or an existing
 * one adopted — and its state follows its dates: draft (no start), running, stopped (an
 * end). Launching turns the flag on; DELETE is refused (405), PATCH `deleted: true`
 * soft-deletes. The flag changes go through the flags service, so /flags and local
 * evaluation see them at once.
 */
import { changesBetween, logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { pageWindow } from "@/server/input/page";
import { createFlagInput } from "@/server/flags/contract";
import { createFlag, getFlag, liveFlagByKey, requireFlagWrite, updateFlag } from "@/server/flags/service";
import type { ExperimentCreateBody, ExperimentListQuery, ExperimentUpdateBody, ExperimentVariant, ShipVariantBody } from "./contract";
import { experimentStatus, flagVariants, presentExperiment, type ExperimentResource } from "./present";
import { statsMethod } from "./statistics";
import { checkedLinks, checkMetricActions, writeLinks } from "./saved-metrics";
import * as store from "./store";

/** The query API's `ExperimentQuery` (registered in query/kinds.ts). */
export { experimentQueryKind } from "./results";

const ACTIVITY_SCOPE = "Experiment";
const notFound = () => new AppError("not_found", "Not found.");
const invalid = (message: string, attr: string) => new AppError("invalid_input", message, attr);

export const DEFAULT_VARIANTS: ExperimentVariant[] = [
  { key: "control", name: "Control Group", rollout_percentage: 50 },
  { key: "test", name: "Test Variant", rollout_percentage: 50 },
];

async function experimentOf(ctx: Context, id: number): Promise<ExperimentResource> {
  const row = await store.findExperiment(ctx.db.prisma, ctx.project.id, id);
  if (!row) throw notFound();
  return presentExperiment(row);
}

export function getExperiment(ctx: Context, id: number): Promise<ExperimentResource> {
  return experimentOf(ctx, id);
}

export async function listExperiments(ctx: Context, query: ExperimentListQuery): Promise<{ count: number; results: ExperimentResource[] }> {
  const rows = await store.listExperimentRows(ctx.db.prisma, ctx.project.id, query);
  const { take, skip } = pageWindow(query);
  return { count: rows.length, results: rows.slice(skip, skip + take).map(presentExperiment) };
}

/** PostHog's variant rules: `control` among them, fewer than 21, percentages summing to 100. */
function checkVariants(variants: readonly ExperimentVariant[]): void {
  const attr = "parameters__feature_flag_variants";
  if (!variants.some((variant) => variant.key === "control")) throw invalid("Feature flag variants must contain a control variant", attr);
  if (variants.length < 2) throw invalid("Feature flag must have at least 2 variants (control and at least one test variant)", attr);
  if (new Set(variants.map((variant) => variant.key)).size !== variants.length) throw invalid("Variant keys must be unique.", attr);
  const sum = variants.reduce((total, variant) => total + variant.rollout_percentage, 0);
  if (Math.abs(sum - 100) > 1e-9) throw invalid("Invalid variant definitions: Variant rollout percentages must sum to 100.", attr);
}

/** The flag's holdout entry for a holdout id: its first filter's percentage (PostHog's `holdout_filters_for_flag`). */
async function flagHoldout(ctx: Context, holdoutId: number | null): Promise<{ id: number; exclusion_percentage: number } | null> {
  if (holdoutId === null) return null;
  const holdout = await store.findHoldout(ctx.db.prisma, ctx.project.id, holdoutId);
  if (!holdout) throw invalid(`Holdout ${holdoutId} does not exist.`, "holdout_id");
  const first = (Array.isArray(holdout.filters) ? holdout.filters[0] : null) as { rollout_percentage?: number } | null;
  return { id: holdout.id, exclusion_percentage: Number(first?.rollout_percentage ?? 0) };
}

export async function createExperiment(ctx: Context, body: ExperimentCreateBody): Promise<ExperimentResource> {
  const projectId = ctx.project.id;
  const requested = body.parameters?.feature_flag_variants ?? null;
  const holdout = await flagHoldout(ctx, body.holdout_id ?? null);
  // Checked before the flag is created, which happens outside the experiment's transaction
  const links = body.saved_metrics_ids ? await checkedLinks(ctx, body.saved_metrics_ids) : undefined;
  await checkMetricActions(ctx, "metrics", [...(body.metrics ?? []), ...(body.metrics_secondary ?? [])]);
  await checkMetricActions(ctx, "exposure_criteria", [], body.exposure_criteria);
  const launched = !!body.start_date;
  const existing = await liveFlagByKey(ctx, body.feature_flag_key);
  let flagId: number;
  if (existing) {
    requireFlagWrite(ctx); // the experiment turns that flag on and sets its holdout
    // An adopted flag must already be an experiment's shape: multivariate, control first.
    const variants = existing.filters.multivariate?.variants ?? [];
    if (variants.length < 2 || variants[0]!.key !== "control") throw invalid("Feature flag is not eligible for experiments.", "feature_flag_key");
    flagId = existing.id;
    if (holdout || launched) await updateFlag(ctx, flagId, { ...(holdout ? { filters: { holdout } } : {}), ...(launched ? { active: true } : {}) });
  } else {
    const variants = requested ?? DEFAULT_VARIANTS;
    checkVariants(variants);
    const flag = await createFlag(
      ctx,
      createFlagInput.parse({
        key: body.feature_flag_key,
        name: `Feature Flag for Experiment ${body.name}`,
        filters: {
          groups: [{ properties: [], rollout_percentage: 100 }],
          multivariate: { variants: variants.map(({ key, name, rollout_percentage }) => ({ key, name: name ?? "", rollout_percentage })) },
          ...(holdout ? { holdout } : {}),
        },
        active: launched,
      }),
    );
    flagId = flag.id;
  }
  const flag = await getFlag(ctx, flagId);
  const parameters = { ...(body.parameters ?? {}), feature_flag_variants: flag.filters.multivariate?.variants ?? requested ?? DEFAULT_VARIANTS };
  const id = await inTransaction(ctx.db, async (tx) => {
    const id = await store.insertExperiment(tx, projectId, ctx.actor.id, {
      name: body.name,
      description: body.description ?? "",
      featureFlagId: flagId,
      holdoutId: holdout?.id ?? null,
      startDate: body.start_date ? new Date(body.start_date) : null,
      endDate: body.end_date ? new Date(body.end_date) : null,
      parameters,
      filters: body.filters ?? {},
      metrics: body.metrics ?? [],
      metricsSecondary: body.metrics_secondary ?? [],
      secondaryMetrics: body.secondary_metrics ?? [],
      exposureCriteria: body.exposure_criteria ?? {},
      statsConfig: { ...(body.stats_config ?? {}), method: statsMethod(body.stats_config?.method) },
      type: body.type ?? "product",
      conclusion: body.conclusion ?? null,
      conclusionComment: body.conclusion_comment ?? null,
      archived: body.archived ?? false,
      deleted: false,
    });
    await writeLinks(tx, id, links);
    await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "created", name: body.name });
    return id;
  });
  return experimentOf(ctx, id);
}

export async function updateExperiment(ctx: Context, id: number, body: ExperimentUpdateBody): Promise<ExperimentResource> {
  const projectId = ctx.project.id;
  const current = await store.findExperiment(ctx.db.prisma, projectId, id);
  if (!current) throw notFound();
  if (body.feature_flag_key !== undefined && body.feature_flag_key !== current.featureFlag.key) throw invalid("Can't update feature_flag_key on an existing experiment.", "feature_flag_key");
  const status = experimentStatus(current);
  const startDate = body.start_date === undefined ? current.startDate : body.start_date === null ? null : new Date(body.start_date);
  const endDate = body.end_date === undefined ? current.endDate : body.end_date === null ? null : new Date(body.end_date);
  if (startDate && endDate && startDate >= endDate) throw invalid("End date must be after start date", "end_date");

  const links = body.saved_metrics_ids === undefined ? undefined : await checkedLinks(ctx, body.saved_metrics_ids ?? []);
  await checkMetricActions(ctx, "metrics", [...(body.metrics ?? []), ...(body.metrics_secondary ?? [])]);
  await checkMetricActions(ctx, "exposure_criteria", [], body.exposure_criteria);

  // The flag follows the draft: variants and holdout change only before launch (PostHog's newer rule).
  const variants = body.parameters?.feature_flag_variants ?? null;
  const holdoutChanged = body.holdout_id !== undefined && (body.holdout_id ?? null) !== current.holdoutId;
  if ((variants || holdoutChanged) && status !== "draft") {
    const sameVariants = variants && JSON.stringify(variants.map((v) => [v.key, v.rollout_percentage])) === JSON.stringify(flagVariants(current).map((v) => [v.key, v.rollout_percentage]));
    if (holdoutChanged || !sameVariants) throw invalid("Variants and holdout can only be changed on a draft experiment.", holdoutChanged ? "holdout_id" : "parameters__feature_flag_variants");
  }
  if (variants) checkVariants(variants);
  const holdout = holdoutChanged ? await flagHoldout(ctx, body.holdout_id ?? null) : undefined;
  const flagFilters = {
    ...(variants && status === "draft" ? { multivariate: { variants: variants.map(({ key, name, rollout_percentage }) => ({ key, name: name ?? "", rollout_percentage })) } } : {}),
    ...(holdout !== undefined ? { holdout } : {}),
  };
  const launching = current.startDate === null && startDate !== null;
  if (Object.keys(flagFilters).length > 0 || launching) await updateFlag(ctx, current.featureFlagId, { ...(Object.keys(flagFilters).length > 0 ? { filters: flagFilters } : {}), ...(launching ? { active: true } : {}) });

  const next = {
    name: body.name ?? current.name,
    description: body.description === undefined ? current.description : (body.description ?? ""),
    holdoutId: holdout !== undefined ? (holdout?.id ?? null) : current.holdoutId,
    startDate,
    endDate,
    parameters: body.parameters === undefined ? current.parameters : { ...(body.parameters ?? {}), feature_flag_variants: variants ?? flagVariants(current) },
    filters: body.filters === undefined ? current.filters : (body.filters ?? {}),
    metrics: body.metrics === undefined ? (current.metrics as unknown[]) : (body.metrics ?? []),
    metricsSecondary: body.metrics_secondary === undefined ? (current.metricsSecondary as unknown[]) : (body.metrics_secondary ?? []),
    secondaryMetrics: body.secondary_metrics === undefined ? (current.secondaryMetrics as unknown[]) : (body.secondary_metrics ?? []),
    exposureCriteria: body.exposure_criteria === undefined ? current.exposureCriteria : (body.exposure_criteria ?? {}),
    statsConfig: body.stats_config === undefined ? current.statsConfig : { ...(body.stats_config ?? {}), method: statsMethod(body.stats_config?.method) },
    type: body.type ?? current.type,
    conclusion: body.conclusion === undefined ? current.conclusion : body.conclusion,
    conclusionComment: body.conclusion_comment === undefined ? current.conclusionComment : body.conclusion_comment,
    archived: body.archived ?? current.archived,
    deleted: body.deleted ?? current.deleted,
  };
  const tracked = (row: typeof next) => ({ name: row.name, description: row.description, start_date: row.startDate?.toISOString() ?? null, end_date: row.endDate?.toISOString() ?? null, archived: row.archived, deleted: row.deleted, metrics: row.metrics, conclusion: row.conclusion });
  const changes = changesBetween(tracked({ ...next, ...current, metrics: current.metrics as unknown[], metricsSecondary: current.metricsSecondary as unknown[], secondaryMetrics: current.secondaryMetrics as unknown[] }), tracked(next));
  await inTransaction(ctx.db, async (tx) => {
    await store.updateExperimentRow(tx, id, next);
    await writeLinks(tx, id, links);
    if (changes.length > 0) {
      const activity = next.deleted && !current.deleted ? "deleted" : "updated";
      await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity, name: next.name, changes });
    }
  });
  return experimentOf(ctx, id);
}

/**
 * "Ship variant" (POSTHOG-PLATFORM-NOTES §4.7, newest behaviour): the flag's split gives the
 * variant 100 %, its conditions stay (with `release_to_everyone` a catch-all condition is
 * put first); a running experiment is also ended.
 */
export async function shipVariant(ctx: Context, id: number, body: ShipVariantBody): Promise<ExperimentResource> {
  const current = await store.findExperiment(ctx.db.prisma, ctx.project.id, id);
  if (!current) throw notFound();
  if (current.startDate === null) throw invalid("Experiment has not been launched yet.", "variant_key");
  const flag = await getFlag(ctx, current.featureFlagId);
  const variants = flag.filters.multivariate?.variants ?? [];
  if (!variants.some((variant) => variant.key === body.variant_key)) throw invalid(`Variant ${body.variant_key} is not a variant of the experiment's flag.`, "variant_key");
  await updateFlag(ctx, flag.id, {
    filters: {
      // `groups` given replaces the filters whole, so the rest (payloads, holdout) is passed along
      ...(body.release_to_everyone ? { ...flag.filters, groups: [{ properties: [], rollout_percentage: 100, description: "Added automatically when the experiment was shipped" }, ...flag.filters.groups] } : {}),
      multivariate: { variants: variants.map((variant) => ({ ...variant, rollout_percentage: variant.key === body.variant_key ? 100 : 0 })) },
    },
    active: true,
  });
  return updateExperiment(ctx, id, {
    ...(current.endDate === null ? { end_date: new Date().toISOString() } : {}),
    ...(body.conclusion !== undefined ? { conclusion: body.conclusion } : {}),
    ...(body.conclusion_comment !== undefined ? { conclusion_comment: body.conclusion_comment } : {}),
  });
}

/** Each flag's experiments' ids (PostHog's `experiment_set` of a flag). */
export async function experimentIdsByFlag(ctx: Context, flagIds: readonly number[]): Promise<Map<number, number[]>> {
  const byFlag = new Map<number, number[]>();
  if (flagIds.length === 0) return byFlag;
  for (const { id, featureFlagId } of await store.experimentsOfFlags(ctx.db.prisma, ctx.project.id, flagIds)) byFlag.set(featureFlagId, [...(byFlag.get(featureFlagId) ?? []), id]);
  return byFlag;
}
