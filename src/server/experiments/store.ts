/** Every database read and write of experiments and their holdouts (Prisma). */
import type { Prisma } from "@/generated/prisma/client";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";
import type { DbClient, Tx } from "@/server/db/transaction";
import type { ExperimentListQuery } from "./contract";

const HOLDOUT_INCLUDE = { createdBy: { select: USER_BASIC_COLUMNS } } as const;
const EXPERIMENT_INCLUDE = {
  createdBy: { select: USER_BASIC_COLUMNS },
  featureFlag: { select: { id: true, projectId: true, key: true, name: true, active: true, deleted: true, filters: true, ensureExperienceContinuity: true, version: true } },
  holdout: { select: { id: true, name: true, description: true, filters: true } },
  savedMetrics: { include: { savedMetric: { select: { id: true, name: true, query: true } } }, orderBy: { id: "asc" } },
} as const;
const SAVED_METRIC_INCLUDE = { createdBy: { select: USER_BASIC_COLUMNS } } as const;

export type ExperimentRow = Prisma.ExperimentGetPayload<{ include: typeof EXPERIMENT_INCLUDE }>;
/** What an experiment's results read of it: two queries, where the whole row takes six (results run on every refresh). */
const EXPERIMENT_RESULTS_SELECT = {
  deleted: true,
  startDate: true,
  endDate: true,
  createdAt: true,
  updatedAt: true,
  parameters: true,
  exposureCriteria: true,
  statsConfig: true,
  featureFlag: { select: { key: true, filters: true, version: true } },
} as const;
export type ExperimentResultsRow = Prisma.ExperimentGetPayload<{ select: typeof EXPERIMENT_RESULTS_SELECT }>;
export type SavedMetricRow = Prisma.ExperimentSavedMetricGetPayload<{ include: typeof SAVED_METRIC_INCLUDE }>;
export type HoldoutRow = Prisma.ExperimentHoldoutGetPayload<{ include: typeof HOLDOUT_INCLUDE }>;

export interface ExperimentWrite {
  name: string;
  description: string;
  featureFlagId: number;
  holdoutId: number | null;
  startDate: Date | null;
  endDate: Date | null;
  parameters: unknown;
  filters: unknown;
  metrics: unknown[];
  metricsSecondary: unknown[];
  secondaryMetrics: unknown[];
  exposureCriteria: unknown;
  statsConfig: unknown;
  type: string;
  conclusion: string | null;
  conclusionComment: string | null;
  archived: boolean;
  deleted: boolean;
}

const json = (value: unknown) => value as Prisma.InputJsonValue;

function jsonColumns(write: Partial<ExperimentWrite>) {
  const { parameters, filters, metrics, metricsSecondary, secondaryMetrics, exposureCriteria, statsConfig, ...rest } = write;
  return {
    ...rest,
    ...(parameters === undefined ? {} : { parameters: json(parameters) }),
    ...(filters === undefined ? {} : { filters: json(filters) }),
    ...(metrics === undefined ? {} : { metrics: json(metrics) }),
    ...(metricsSecondary === undefined ? {} : { metricsSecondary: json(metricsSecondary) }),
    ...(secondaryMetrics === undefined ? {} : { secondaryMetrics: json(secondaryMetrics) }),
    ...(exposureCriteria === undefined ? {} : { exposureCriteria: json(exposureCriteria) }),
    ...(statsConfig === undefined ? {} : { statsConfig: json(statsConfig) }),
  };
}

export function findExperiment(client: DbClient, projectId: number, id: number): Promise<ExperimentRow | null> {
  return client.experiment.findFirst({ where: { id, projectId }, include: EXPERIMENT_INCLUDE });
}

export function findExperimentForResults(client: DbClient, projectId: number, id: number): Promise<ExperimentResultsRow | null> {
  return client.experiment.findFirst({ where: { id, projectId }, select: EXPERIMENT_RESULTS_SELECT });
}

/** Live experiments, newest first (PostHog's `-created_at`). */
export function listExperimentRows(client: DbClient, projectId: number, query: ExperimentListQuery): Promise<ExperimentRow[]> {
  return client.experiment.findMany({
    where: {
      projectId,
      deleted: false,
      ...(query.archived === undefined ? {} : { archived: query.archived }),
      ...(query.search ? { name: { contains: query.search, mode: "insensitive" } } : {}),
    },
    include: EXPERIMENT_INCLUDE,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
}

export async function insertExperiment(tx: Tx, projectId: number, createdById: number, write: ExperimentWrite): Promise<number> {
  const row = await tx.experiment.create({ data: { projectId, createdById, ...jsonColumns(write) } as Prisma.ExperimentUncheckedCreateInput, select: { id: true } });
  return row.id;
}

export async function updateExperimentRow(tx: Tx, id: number, write: Partial<ExperimentWrite>): Promise<void> {
  await tx.experiment.update({ where: { id }, data: jsonColumns(write) as Prisma.ExperimentUncheckedUpdateInput });
}

/** The live experiments of a holdout: their flags follow the holdout. */
export function experimentsOfHoldout(client: DbClient, projectId: number, holdoutId: number): Promise<{ id: number; featureFlagId: number }[]> {
  return client.experiment.findMany({ where: { projectId, holdoutId, deleted: false }, select: { id: true, featureFlagId: true } });
}

export function findHoldout(client: DbClient, projectId: number, id: number): Promise<HoldoutRow | null> {
  return client.experimentHoldout.findFirst({ where: { id, projectId }, include: HOLDOUT_INCLUDE });
}

export function listHoldoutRows(client: DbClient, projectId: number): Promise<HoldoutRow[]> {
  return client.experimentHoldout.findMany({ where: { projectId }, include: HOLDOUT_INCLUDE, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
}

export async function insertHoldout(tx: Tx, projectId: number, createdById: number, write: { name: string; description: string; filters: unknown[] }): Promise<number> {
  const row = await tx.experimentHoldout.create({ data: { projectId, createdById, name: write.name, description: write.description, filters: json(write.filters) }, select: { id: true } });
  return row.id;
}

export async function updateHoldoutRow(tx: Tx, id: number, write: { name?: string; description?: string; filters?: unknown[] }): Promise<void> {
  const { filters, ...rest } = write;
  await tx.experimentHoldout.update({ where: { id }, data: { ...rest, ...(filters === undefined ? {} : { filters: json(filters) }) } });
}

export async function deleteHoldoutRow(tx: Tx, id: number): Promise<void> {
  await tx.experimentHoldout.delete({ where: { id } });
}

/** The ids of the experiments on each of these flags (PostHog's `experiment_set` of a flag), deleted ones left out. */
export function experimentsOfFlags(client: DbClient, projectId: number, flagIds: readonly number[]): Promise<{ id: number; featureFlagId: number }[]> {
  return client.experiment.findMany({ where: { projectId, deleted: false, featureFlagId: { in: [...flagIds] } }, select: { id: true, featureFlagId: true }, orderBy: { id: "asc" } });
}

export function findSavedMetric(client: DbClient, projectId: number, id: number): Promise<SavedMetricRow | null> {
  return client.experimentSavedMetric.findFirst({ where: { id, projectId }, include: SAVED_METRIC_INCLUDE });
}

/** Newest first (PostHog's `-created_at`). */
export function listSavedMetricRows(client: DbClient, projectId: number): Promise<SavedMetricRow[]> {
  return client.experimentSavedMetric.findMany({ where: { projectId }, include: SAVED_METRIC_INCLUDE, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
}

/** Which of these ids are shared metrics of the project. */
export async function savedMetricIdsIn(client: DbClient, projectId: number, ids: readonly number[]): Promise<Set<number>> {
  const rows = await client.experimentSavedMetric.findMany({ where: { projectId, id: { in: [...ids] } }, select: { id: true } });
  return new Set(rows.map((row) => row.id));
}

export async function insertSavedMetric(tx: Tx, projectId: number, createdById: number, write: { name: string; description: string; query: unknown; tags: string[] }): Promise<number> {
  const row = await tx.experimentSavedMetric.create({ data: { projectId, createdById, name: write.name, description: write.description, query: json(write.query), tags: json(write.tags) }, select: { id: true } });
  return row.id;
}

export async function updateSavedMetricRow(tx: Tx, id: number, write: { name?: string; description?: string; query?: unknown; tags?: string[] }): Promise<void> {
  const { query, tags, ...rest } = write;
  await tx.experimentSavedMetric.update({ where: { id }, data: { ...rest, ...(query === undefined ? {} : { query: json(query) }), ...(tags === undefined ? {} : { tags: json(tags) }) } });
}

/** The live experiments linking a shared metric, by id: what its deletion changes. */
export function experimentsLinkingSavedMetric(client: DbClient, projectId: number, savedMetricId: number): Promise<{ id: number; name: string }[]> {
  return client.experiment.findMany({ where: { projectId, deleted: false, savedMetrics: { some: { savedMetricId } } }, select: { id: true, name: true }, orderBy: { id: "asc" } });
}

/** Deleting a shared metric unlinks it from every experiment (the links cascade). */
export async function deleteSavedMetricRow(tx: Tx, id: number): Promise<void> {
  await tx.experimentSavedMetric.delete({ where: { id } });
}

/** The experiment's links become exactly `links` (PostHog replaces them on every write that names them). */
export async function replaceSavedMetricLinks(tx: Tx, experimentId: number, links: readonly { savedMetricId: number; type: string }[]): Promise<void> {
  await tx.experimentToSavedMetric.deleteMany({ where: { experimentId } });
  if (links.length > 0) await tx.experimentToSavedMetric.createMany({ data: links.map((link) => ({ experimentId, savedMetricId: link.savedMetricId, metadata: json({ type: link.type }) })) });
}
