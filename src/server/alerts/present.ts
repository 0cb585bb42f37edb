/** An alert as PostHog's API shows it (AlertSerializer), and its checks (AlertCheckSerializer). */
import { toUserBasic, type UserBasic } from "@/server/accounts/present";
import type { AlertCheckResource, AlertResource, AlertState, TargetsNotified } from "./contract";
import type { AlertCheckRow, AlertRow } from "./store";

export type { AlertCheckResource, AlertResource } from "./contract";

export function presentCheck(row: AlertCheckRow): AlertCheckResource {
  const error = row.error as { message?: unknown } | null;
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    calculated_value: row.calculatedValue,
    state: row.state as AlertState,
    error: error && typeof error === "object" ? { message: String(error.message ?? "") } : null,
    targets_notified: (row.targetsNotified ?? {}) as TargetsNotified,
  };
}

export function presentAlert(row: AlertRow, insight: AlertResource["insight"], members: Map<number, UserBasic>, checks: AlertCheckRow[]): AlertResource {
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  return {
    id: row.id,
    created_by: row.createdBy ? toUserBasic(row.createdBy) : null,
    created_at: row.createdAt.toISOString(),
    insight,
    name: row.name,
    // A subscriber who has left the organization is no longer shown (nor notified).
    subscribed_users: row.subscribedUserIds.flatMap((id) => members.get(id) ?? []),
    threshold: row.threshold as AlertResource["threshold"],
    condition: row.condition as AlertResource["condition"],
    state: row.state as AlertState,
    enabled: row.enabled,
    last_notified_at: iso(row.lastNotifiedAt),
    last_checked_at: iso(row.lastCheckedAt),
    next_check_at: iso(row.nextCheckAt),
    checks: checks.map(presentCheck),
    config: row.config as AlertResource["config"],
    calculation_interval: row.calculationInterval as AlertResource["calculation_interval"],
    snoozed_until: iso(row.snoozedUntil),
    skip_weekend: row.skipWeekend,
    webhook_url: row.webhookUrl,
  };
}
