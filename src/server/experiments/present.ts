/** Experiments and holdouts as PostHog's serializers show them, from their stored rows. */
import { toUserBasic } from "@/server/accounts/present";
import { holdoutVariant, type ExperimentMetric, type ExperimentResource, type ExperimentVariant, type HoldoutResource, type SavedMetricResource } from "./contract";
import type { ExperimentRow, HoldoutRow, SavedMetricRow } from "./store";

export type { ExperimentResource, HoldoutResource, SavedMetricResource } from "./contract";

const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** An experiment's state, from its dates (PostHog derives it the same way). */
export type ExperimentStatus = "draft" | "running" | "stopped";
export function experimentStatus(row: { startDate: Date | null; endDate: Date | null }): ExperimentStatus {
  return row.startDate === null ? "draft" : row.endDate === null ? "running" : "stopped";
}

/** The variants of the experiment's flag (what it actually serves), else of its parameters. */
export function flagVariants(row: Pick<ExperimentRow, "parameters"> & { featureFlag: Pick<ExperimentRow["featureFlag"], "filters"> }): ExperimentVariant[] {
  const multivariate = record(record(row.featureFlag.filters).multivariate);
  const variants = list(multivariate.variants) as ExperimentVariant[];
  return variants.length > 0 ? variants : (list(record(row.parameters).feature_flag_variants) as ExperimentVariant[]);
}

export function storedMetrics(value: unknown): ExperimentMetric[] {
  return list(value) as ExperimentMetric[];
}

function holdoutFilters(row: { id: number; filters: unknown }) {
  return list(row.filters).map((entry) => {
    const filter = record(entry);
    return { properties: list(filter.properties), rollout_percentage: Number(filter.rollout_percentage ?? 0), variant: holdoutVariant(row.id) };
  });
}

const uuidsOf = (metrics: unknown[]) => {
  const uuids = metrics.map((metric) => record(metric).uuid).filter((uuid): uuid is string => typeof uuid === "string");
  return uuids.length > 0 ? uuids : null;
};

const linkType = (metadata: unknown): "primary" | "secondary" => (record(metadata).type === "secondary" ? "secondary" : "primary");

/**
 * The metrics an experiment reads, primary or secondary: its own, then its shared ones (each
 * marked as PostHog's frontend marks them, `isSharedMetric` and `sharedMetricId`).
 */
export function experimentMetrics(experiment: ExperimentResource, secondary: boolean): Record<string, unknown>[] {
  const own = (secondary ? experiment.metrics_secondary : experiment.metrics) as Record<string, unknown>[];
  const shared = experiment.saved_metrics
    .filter((link) => link.metadata.type === (secondary ? "secondary" : "primary"))
    .map((link) => ({ ...link.query, name: link.name, isSharedMetric: true, sharedMetricId: link.saved_metric }));
  return [...own, ...shared];
}

export function presentExperiment(row: ExperimentRow): ExperimentResource {
  const flag = row.featureFlag;
  const metrics = list(row.metrics);
  const metricsSecondary = list(row.metricsSecondary);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    start_date: row.startDate?.toISOString() ?? null,
    end_date: row.endDate?.toISOString() ?? null,
    feature_flag_key: flag.key,
    feature_flag: {
      id: flag.id,
      team_id: flag.projectId,
      name: flag.name,
      key: flag.key,
      active: flag.active,
      deleted: flag.deleted,
      filters: record(flag.filters),
      ensure_experience_continuity: flag.ensureExperienceContinuity,
    },
    holdout: row.holdout ? { id: row.holdout.id, name: row.holdout.name, description: row.holdout.description, filters: holdoutFilters(row.holdout) } : null,
    holdout_id: row.holdoutId,
    exposure_cohort: null,
    parameters: record(row.parameters),
    secondary_metrics: list(row.secondaryMetrics),
    saved_metrics: row.savedMetrics.map((link) => ({
      id: link.id,
      experiment: row.id,
      saved_metric: link.savedMetricId,
      metadata: { type: linkType(link.metadata) },
      created_at: link.createdAt.toISOString(),
      query: record(link.savedMetric.query),
      name: link.savedMetric.name,
    })),
    saved_metrics_ids: row.savedMetrics.map((link) => ({ id: link.savedMetricId, metadata: { type: linkType(link.metadata) } })),
    filters: record(row.filters),
    archived: row.archived,
    deleted: row.deleted,
    created_by: row.createdBy ? toUserBasic(row.createdBy) : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    type: row.type,
    exposure_criteria: record(row.exposureCriteria),
    metrics,
    metrics_secondary: metricsSecondary,
    stats_config: record(row.statsConfig),
    conclusion: row.conclusion,
    conclusion_comment: row.conclusionComment,
    primary_metrics_ordered_uuids: uuidsOf(metrics),
    secondary_metrics_ordered_uuids: uuidsOf(metricsSecondary),
    user_access_level: "editor",
  };
}

export function presentHoldout(row: HoldoutRow): HoldoutResource {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    filters: holdoutFilters(row),
    created_by: row.createdBy ? toUserBasic(row.createdBy) : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentSavedMetric(row: SavedMetricRow): SavedMetricResource {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    query: record(row.query),
    tags: list(row.tags).filter((tag): tag is string => typeof tag === "string"),
    created_by: row.createdBy ? toUserBasic(row.createdBy) : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    user_access_level: "editor",
  };
}
