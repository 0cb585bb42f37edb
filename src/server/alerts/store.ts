/** Every database read and write of alerts and their checks. */
import type { Prisma } from "@/generated/prisma/client";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";
import type { DbClient } from "@/server/db/transaction";

const INCLUDE = { createdBy: { select: USER_BASIC_COLUMNS } } as const;
export type AlertRow = Prisma.AlertGetPayload<{ include: typeof INCLUDE }>;
export type AlertCheckRow = Prisma.AlertCheckGetPayload<object>;

export interface AlertWrite {
  insightId: number;
  name: string;
  enabled: boolean;
  threshold: unknown;
  condition: unknown;
  config: unknown;
  calculationInterval: string;
  state: string;
  subscribedUserIds: number[];
  webhookUrl: string | null;
  skipWeekend: boolean;
  snoozedUntil: Date | null;
  nextCheckAt: Date | null;
}

const json = (value: unknown) => value as Prisma.InputJsonValue;
const jsonFields = (write: AlertWrite) => ({ ...write, threshold: json(write.threshold), condition: json(write.condition), config: json(write.config) });

export function findAlert(client: DbClient, projectId: number, id: string): Promise<AlertRow | null> {
  return client.alert.findFirst({ where: { id, projectId }, include: INCLUDE });
}

export async function listAlertRows(client: DbClient, projectId: number, where: { insightId?: number }, take: number, skip: number): Promise<{ count: number; rows: AlertRow[] }> {
  const filter = { projectId, ...(where.insightId === undefined ? {} : { insightId: where.insightId }) };
  const [count, rows] = [await client.alert.count({ where: filter }), await client.alert.findMany({ where: filter, include: INCLUDE, orderBy: [{ createdAt: "desc" }, { id: "asc" }], take, skip })];
  return { count, rows };
}

export async function insertAlert(client: DbClient, id: string, projectId: number, createdById: number, write: AlertWrite): Promise<void> {
  await client.alert.create({ data: { id, projectId, createdById, ...jsonFields(write) } });
}

export async function updateAlertRow(client: DbClient, id: string, write: AlertWrite): Promise<void> {
  await client.alert.update({ where: { id }, data: jsonFields(write) });
}

export async function deleteAlertRow(client: DbClient, id: string): Promise<void> {
  await client.alert.deleteMany({ where: { id } });
}

/** The newest checks of each alert, `limit` each (one query per alert: lists are pages of at most 1,000). */
export async function recentChecks(client: DbClient, alertIds: string[], limit: number): Promise<Map<string, AlertCheckRow[]>> {
  const out = new Map<string, AlertCheckRow[]>();
  if (limit === 0) return out;
  for (const alertId of alertIds) out.set(alertId, await client.alertCheck.findMany({ where: { alertId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit }));
  return out;
}

export interface CheckRecord {
  id: string;
  alertId: string;
  projectId: number;
  createdAt: Date;
  calculatedValue: number | null;
  state: string;
  error: { message: string } | null;
  targetsNotified: Record<string, unknown>;
}

/** A check and what it does to its alert (state, when checked, when next, when notified), together. */
export async function recordCheck(
  client: DbClient,
  check: CheckRecord,
  alert: { state: string; lastCheckedAt: Date; nextCheckAt: Date | null; lastNotifiedAt?: Date; snoozedUntil?: null },
): Promise<void> {
  await client.alertCheck.create({
    data: { ...check, error: check.error === null ? undefined : json(check.error), targetsNotified: json(check.targetsNotified) },
  });
  await client.alert.updateMany({ where: { id: check.alertId }, data: alert });
}

/**
 * Claims alerts whose check is due (enabled, next_check_at reached, not snoozed): their
 * next_check_at moves `leaseMs` ahead, so a second process does not take them and one that
 * dies holding them checks them again later.
 */
export function claimDueAlerts(client: DbClient, now: Date, limit: number, leaseMs: number): Promise<{ id: string; project_id: number }[]> {
  return client.$queryRawUnsafe<{ id: string; project_id: number }[]>(
    `UPDATE alerts SET next_check_at = $1::timestamptz + ($3::int * interval '1 millisecond')
     WHERE id IN (SELECT id FROM alerts WHERE enabled AND (next_check_at IS NULL OR next_check_at <= $1::timestamptz)
                    AND (snoozed_until IS NULL OR snoozed_until <= $1::timestamptz)
                  ORDER BY next_check_at NULLS FIRST, id LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING id::text, project_id`,
    now,
    limit,
    leaseMs,
  );
}

/** A scheduled check skipped (a weekend, with skip_weekend): only the schedule moves on. */
export async function recordCheckless(client: DbClient, id: string, nextCheckAt: Date | null): Promise<void> {
  await client.alert.updateMany({ where: { id }, data: { nextCheckAt } });
}
