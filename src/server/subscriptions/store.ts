/** Every database read and write of subscriptions (the `subscriptions` table). */
import type { Prisma } from "@/generated/prisma/client";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";
import type { DbClient, Tx } from "@/server/db/transaction";

const INCLUDE = {
  createdBy: { select: USER_BASIC_COLUMNS },
  insight: { select: { shortId: true, name: true, derivedName: true } },
  dashboard: { select: { name: true } },
} as const;
export type SubscriptionRow = Prisma.SubscriptionGetPayload<{ include: typeof INCLUDE }>;

export interface SubscriptionWrite {
  contentType: string;
  insightId: number | null;
  dashboardId: number | null;
  dashboardExportInsights: number[];
  title: string | null;
  targetType: string;
  targetValue: string;
  frequency: string;
  interval: number;
  count: number | null;
  byweekday: string[];
  bysetpos: number | null;
  startDate: Date;
  untilDate: Date | null;
  nextDeliveryDate: Date | null;
  inviteMessage: string | null;
  enabled: boolean;
  deleted: boolean;
}

export function findSubscription(client: DbClient, projectId: number, id: number): Promise<SubscriptionRow | null> {
  return client.subscription.findFirst({ where: { id, projectId }, include: INCLUDE });
}

export interface SubscriptionFilter {
  insightId?: number;
  dashboardId?: number;
  deleted: boolean;
  targetType?: string;
}

export async function findSubscriptionPage(client: DbClient, projectId: number, filter: SubscriptionFilter, page: { take: number; skip: number }): Promise<{ count: number; rows: SubscriptionRow[] }> {
  const where: Prisma.SubscriptionWhereInput = {
    projectId,
    deleted: filter.deleted,
    ...(filter.insightId !== undefined ? { insightId: filter.insightId } : {}),
    ...(filter.dashboardId !== undefined ? { dashboardId: filter.dashboardId } : {}),
    ...(filter.targetType !== undefined ? { targetType: filter.targetType } : {}),
  };
  const [count, rows] = await Promise.all([
    client.subscription.count({ where }),
    client.subscription.findMany({ where, include: INCLUDE, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: page.take, skip: page.skip }),
  ]);
  return { count, rows };
}

export async function insertSubscription(tx: Tx, projectId: number, createdById: number, write: SubscriptionWrite): Promise<number> {
  const row = await tx.subscription.create({ data: { projectId, createdById, ...write }, select: { id: true } });
  return row.id;
}

export async function updateSubscriptionRow(tx: Tx, id: number, write: SubscriptionWrite): Promise<void> {
  await tx.subscription.update({ where: { id }, data: write });
}

/** Live, enabled subscriptions due by `now`, soonest first. */
export function dueSubscriptions(client: DbClient, now: Date, limit: number): Promise<SubscriptionRow[]> {
  return client.subscription.findMany({
    where: { enabled: true, deleted: false, nextDeliveryDate: { lte: now } },
    include: INCLUDE,
    orderBy: [{ nextDeliveryDate: "asc" }, { id: "asc" }],
    take: limit,
  });
}

/**
 * Moves a due subscription to its next delivery, only if no one else did since it was read
 * (`expected`): true when this caller claimed the occurrence.
 */
export async function claimDelivery(client: DbClient, id: number, expected: Date, next: Date | null): Promise<boolean> {
  const { count } = await client.subscription.updateMany({ where: { id, nextDeliveryDate: expected }, data: { nextDeliveryDate: next } });
  return count === 1;
}

/** The outcome of a delivery, scheduled or test. */
export async function recordOutcome(client: DbClient, id: number, at: Date, error: string | null): Promise<void> {
  await client.subscription.update({ where: { id }, data: { lastDeliveryError: error, ...(error === null ? { lastDeliveredAt: at } : {}) } });
}
