/** Every database read and write of early-access features (Prisma). */
import type { Prisma } from "@/generated/prisma/client";
import { isUniqueViolation, type DbClient, type Tx } from "@/server/db/transaction";
import type { EarlyAccessStage } from "./contract";

// The backing flag in PostHog's minimal shape (a read of the flags table: declared in the architecture test).
const EAF_INCLUDE = {
  featureFlag: { select: { id: true, projectId: true, name: true, key: true, filters: true, deleted: true, active: true, ensureExperienceContinuity: true } },
} as const;

export type EafRow = Prisma.EarlyAccessFeatureGetPayload<{ include: typeof EAF_INCLUDE }>;

export interface EafWrite {
  name: string;
  description: string;
  stage: EarlyAccessStage;
  documentationUrl: string;
  payload: Record<string, unknown>;
}

export function findFeature(client: DbClient, projectId: number, id: string): Promise<EafRow | null> {
  return client.earlyAccessFeature.findFirst({ where: { id, projectId }, include: EAF_INCLUDE });
}

/** The project's features, newest first; `stages` narrows them. */
export function listFeatureRows(client: DbClient, projectId: number, stages: readonly EarlyAccessStage[] | null): Promise<EafRow[]> {
  return client.earlyAccessFeature.findMany({
    where: { projectId, ...(stages ? { stage: { in: [...stages] } } : {}) },
    include: EAF_INCLUDE,
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
  });
}

export async function featureIdOfFlag(client: DbClient, flagId: number): Promise<string | null> {
  const row = await client.earlyAccessFeature.findUnique({ where: { featureFlagId: flagId }, select: { id: true } });
  return row?.id ?? null;
}

export async function insertFeature(tx: Tx, projectId: number, createdById: number, id: string, flagId: number, feature: EafWrite): Promise<void> {
  await tx.earlyAccessFeature.create({
    data: { id, projectId, createdById, featureFlagId: flagId, ...feature, payload: feature.payload as Prisma.InputJsonValue },
  });
}

/**
 * The failure of `insertFeature` when another feature took the flag after the service checked
 * it (a flag backs at most one feature: the unique index on feature_flag_id).
 */
export function isFlagTaken(error: unknown): boolean {
  return isUniqueViolation(error, "early_access_features_feature_flag_id_key");
}

export async function updateFeatureRow(tx: Tx, id: string, feature: Partial<EafWrite>): Promise<void> {
  const { payload, ...rest } = feature;
  await tx.earlyAccessFeature.update({ where: { id }, data: { ...rest, ...(payload === undefined ? {} : { payload: payload as Prisma.InputJsonValue }) } });
}

export async function deleteFeatureRow(tx: Tx, id: string): Promise<void> {
  await tx.earlyAccessFeature.delete({ where: { id } });
}

/** The early-access features these flags gate: a flag's `features`. */
export function featuresOfFlags(client: DbClient, projectId: number, flagIds: readonly number[]): Promise<EafRow[]> {
  return client.earlyAccessFeature.findMany({ where: { projectId, featureFlagId: { in: [...flagIds] } }, include: EAF_INCLUDE, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}
