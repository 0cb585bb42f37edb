/** A subscription as PostHog's API shows it (SubscriptionSerializer), with Burrow's delivery outcome. */
import { toUserBasic } from "@/server/accounts/present";
import type { SubscriptionFrequency, SubscriptionResource, SubscriptionTargetType, SubscriptionWeekday } from "./contract";
import { scheduleSummary } from "./recurrence";
import type { SubscriptionRow } from "./store";

export type { SubscriptionResource, TestDeliveryResource } from "./contract";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The name of what is sent: the insight's (or its derived one) or the dashboard's. */
export function resourceName(row: SubscriptionRow): string | null {
  if (row.insight) return row.insight.name || row.insight.derivedName || "Untitled insight";
  if (row.dashboard) return row.dashboard.name || "Untitled dashboard";
  return null;
}

export function presentSubscription(row: SubscriptionRow): SubscriptionResource {
  const byweekday = row.byweekday as SubscriptionWeekday[];
  return {
    id: row.id,
    content_type: row.contentType === "dashboard" ? "dashboard" : "insight",
    dashboard: row.dashboardId,
    insight: row.insightId,
    insight_short_id: row.insight?.shortId ?? null,
    resource_name: resourceName(row),
    dashboard_export_insights: row.dashboardExportInsights,
    target_type: row.targetType as SubscriptionTargetType,
    target_value: row.targetValue,
    frequency: row.frequency as SubscriptionFrequency,
    interval: row.interval,
    byweekday: byweekday.length > 0 ? byweekday : null,
    bysetpos: row.bysetpos,
    count: row.count,
    start_date: row.startDate.toISOString(),
    until_date: iso(row.untilDate),
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy ? toUserBasic(row.createdBy) : null,
    deleted: row.deleted,
    enabled: row.enabled,
    title: row.title,
    summary: scheduleSummary({ frequency: row.frequency as SubscriptionFrequency, interval: row.interval, byweekday, bysetpos: row.bysetpos }),
    next_delivery_date: iso(row.nextDeliveryDate),
    integration_id: null,
    invite_message: row.inviteMessage,
    last_delivered_at: iso(row.lastDeliveredAt),
    last_delivery_error: row.lastDeliveryError,
  };
}
