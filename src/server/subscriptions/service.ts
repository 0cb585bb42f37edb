/**
 * Subscriptions: PostHog's rules for what is sent (an insight, or up to 6 of a dashboard's
 * insights), where (e-mail addresses or a webhook URL that passes the outbound check) and when
 * (the rrule schedule, recurrence.ts); the pass that sends what is due and moves each to its
 * next occurrence; and "send test now", which sends at once without moving the schedule.
 *
 * A due occurrence is claimed (moved to the next one) before it is sent: across a crash or a
 * failing receiver it is sent at most once, and the next occurrence tries again; the outcome
 * is kept (`last_delivered_at`, `last_delivery_error`).
 */
import { changesBetween, logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import { findPublicDashboard } from "@/server/dashboards/service";
import type { Database } from "@/server/db/client";
import { onWorkerConnections } from "@/server/db/database";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { pageWindow } from "@/server/input/page";
import { computeSavedInsight, findLiveInsight } from "@/server/insights/service";
import { checkOutboundUrl } from "@/server/outbound/service";
import {
  targetProblem,
  type SubscriptionCreateBody,
  type SubscriptionFrequency,
  type SubscriptionListQuery,
  type SubscriptionTargetType,
  type SubscriptionUpdateBody,
  type SubscriptionWeekday,
  type TestDeliveryResource,
} from "./contract";
import { chartOf } from "./chart-data";
import { renderChartPng } from "./chart-image";
import { buildReport, DeliveryError, sendWebhook, webhookPayload } from "./delivery";
import { sendReportEmail } from "./email";
import { presentSubscription, type SubscriptionResource } from "./present";
import { nextDeliveryDate, sameSchedule, type Schedule } from "./recurrence";
import * as store from "./store";

const ACTIVITY_SCOPE = "Subscription";
const notFound = () => new AppError("not_found", "Not found.");
const invalid = (message: string, attr: string) => new AppError("invalid_input", message, attr);
const SCHEDULE_ENDED = "Subscription schedule has reached its end date. Extend until_date or remove count";

async function rowOf(ctx: Context, id: number): Promise<store.SubscriptionRow> {
  const row = await store.findSubscription(ctx.db.prisma, ctx.project.id, id);
  if (!row) throw notFound();
  return row;
}

export function scheduleOf(write: Pick<store.SubscriptionWrite, "frequency" | "interval" | "count" | "byweekday" | "bysetpos" | "startDate" | "untilDate">): Schedule {
  return {
    frequency: write.frequency as SubscriptionFrequency,
    interval: write.interval,
    count: write.count,
    byweekday: write.byweekday as SubscriptionWeekday[],
    bysetpos: write.bysetpos,
    startDate: write.startDate,
    untilDate: write.untilDate,
  };
}

export async function listSubscriptions(ctx: Context, query: SubscriptionListQuery): Promise<{ count: number; results: SubscriptionResource[] }> {
  const { count, rows } = await store.findSubscriptionPage(
    ctx.db.prisma,
    ctx.project.id,
    { insightId: query.insight, dashboardId: query.dashboard, deleted: query.deleted ?? false, targetType: query.target_type },
    pageWindow(query),
  );
  return { count, results: rows.map(presentSubscription) };
}

/** Deleted ones too (PostHog retrieves them; test delivery refuses them). */
export async function getSubscription(ctx: Context, id: number): Promise<SubscriptionResource> {
  return presentSubscription(await rowOf(ctx, id));
}

/** What is sent must be the project's: a live insight, or a live dashboard and insights on it. */
async function checkContent(ctx: Context, write: store.SubscriptionWrite, exportInsightsGiven: boolean, creating: boolean): Promise<void> {
  if (write.contentType === "insight") {
    if (write.insightId === null) throw invalid("Insight is required for insight subscriptions.", "insight");
    if (write.dashboardId !== null) throw invalid("Insight subscriptions cannot also set dashboard.", "insight");
    if (write.dashboardExportInsights.length > 0) throw invalid("Cannot set insights selection without a dashboard.", "dashboard_export_insights");
    if (!(await findLiveInsight(ctx.db, ctx.project.id, write.insightId))) throw invalid(`Invalid pk "${write.insightId}" - object does not exist.`, "insight");
    return;
  }
  if (write.dashboardId === null) throw invalid("Dashboard is required for dashboard subscriptions.", "dashboard");
  if (write.insightId !== null) throw invalid("Dashboard subscriptions cannot also set insight.", "dashboard");
  const dashboard = await findPublicDashboard(ctx.db, ctx.project.id, write.dashboardId);
  if (!dashboard) throw invalid(`Invalid pk "${write.dashboardId}" - object does not exist.`, "dashboard");
  if ((creating || exportInsightsGiven) && write.dashboardExportInsights.length === 0) throw invalid("Select at least one insight for this subscription.", "dashboard_export_insights");
  const onDashboard = new Set(dashboard.tiles.flatMap((tile) => (tile.insight && !tile.insight.deleted ? [tile.insight.id] : [])));
  const stranger = write.dashboardExportInsights.find((id) => !onDashboard.has(id));
  if (stranger !== undefined) throw invalid(`Insight ${stranger} is not on this dashboard.`, "dashboard_export_insights");
}

function checkTarget(targetType: SubscriptionTargetType, targetValue: string): void {
  const problem = targetProblem(targetType, targetValue);
  if (problem) throw invalid(problem, "target_value");
  if (targetType === "webhook") {
    const verdict = checkOutboundUrl(targetValue);
    if (!verdict.ok) throw invalid(`Invalid webhook URL: the URL ${verdict.reason}.`, "target_value");
  }
}

const dateOf = (text: string | null | undefined) => (text ? new Date(text) : null);
const normalisedTarget = (targetType: string, value: string) => (targetType === "email" ? value.split(",").map((a) => a.trim()).filter(Boolean).join(",") : value.trim());

export async function createSubscription(ctx: Context, body: SubscriptionCreateBody): Promise<SubscriptionResource> {
  const contentType = body.content_type ?? (body.dashboard ? "dashboard" : "insight");
  const write: store.SubscriptionWrite = {
    contentType,
    insightId: body.insight ?? null,
    dashboardId: body.dashboard ?? null,
    dashboardExportInsights: body.dashboard_export_insights ?? [],
    title: body.title || null,
    targetType: body.target_type,
    targetValue: normalisedTarget(body.target_type, body.target_value),
    frequency: body.frequency,
    interval: body.interval ?? 1,
    count: body.count ?? null,
    byweekday: [...new Set(body.byweekday ?? [])],
    bysetpos: body.bysetpos ?? null,
    startDate: new Date(body.start_date),
    untilDate: dateOf(body.until_date),
    nextDeliveryDate: null,
    inviteMessage: body.invite_message ?? null,
    enabled: body.enabled ?? true,
    deleted: false,
  };
  await checkContent(ctx, write, body.dashboard_export_insights !== undefined, true);
  checkTarget(body.target_type, write.targetValue);
  write.nextDeliveryDate = nextDeliveryDate(scheduleOf(write));
  if (!write.nextDeliveryDate) throw invalid(`${SCHEDULE_ENDED}.`, "start_date");
  const id = await inTransaction(ctx.db, async (tx) => {
    const created = await store.insertSubscription(tx, ctx.project.id, ctx.actor.id, write);
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: String(created), activity: "created", name: write.title ?? undefined });
    return created;
  });
  return getSubscription(ctx, id);
}

function tracked(write: store.SubscriptionWrite) {
  const { nextDeliveryDate: _next, ...rest } = write;
  return { ...rest, startDate: rest.startDate.toISOString(), untilDate: rest.untilDate?.toISOString() ?? null };
}

export async function updateSubscription(ctx: Context, id: number, body: SubscriptionUpdateBody): Promise<SubscriptionResource> {
  const current = await rowOf(ctx, id);
  if (body.content_type !== undefined && body.content_type !== current.contentType) throw invalid("content_type cannot be changed after the subscription is created.", "content_type");
  const targetType = body.target_type ?? (current.targetType as SubscriptionTargetType);
  const next: store.SubscriptionWrite = {
    contentType: current.contentType,
    insightId: body.insight === undefined ? current.insightId : body.insight,
    dashboardId: body.dashboard === undefined ? current.dashboardId : body.dashboard,
    dashboardExportInsights: body.dashboard_export_insights ?? current.dashboardExportInsights,
    title: body.title === undefined ? current.title : body.title || null,
    targetType,
    targetValue: normalisedTarget(targetType, body.target_value ?? current.targetValue),
    frequency: body.frequency ?? current.frequency,
    interval: body.interval ?? current.interval,
    count: body.count === undefined ? current.count : body.count,
    byweekday: body.byweekday === undefined ? current.byweekday : [...new Set(body.byweekday ?? [])],
    bysetpos: body.bysetpos === undefined ? current.bysetpos : body.bysetpos,
    startDate: body.start_date ? new Date(body.start_date) : current.startDate,
    untilDate: body.until_date === undefined ? current.untilDate : dateOf(body.until_date),
    nextDeliveryDate: current.nextDeliveryDate,
    inviteMessage: body.invite_message === undefined ? current.inviteMessage : body.invite_message,
    enabled: body.enabled ?? current.enabled,
    deleted: body.deleted ?? current.deleted,
  };
  if (body.insight !== undefined || body.dashboard !== undefined || body.dashboard_export_insights !== undefined) await checkContent(ctx, next, body.dashboard_export_insights !== undefined, false);
  if (body.target_type !== undefined || body.target_value !== undefined) checkTarget(targetType, next.targetValue);
  // As PostHog: the next delivery moves only when the schedule changed (or it is re-enabled), and may not end up nowhere.
  const reEnabling = next.enabled && !current.enabled;
  if (reEnabling || !sameSchedule(scheduleOf(current), scheduleOf(next))) {
    next.nextDeliveryDate = nextDeliveryDate(scheduleOf(next));
    if (!next.nextDeliveryDate && next.enabled) throw invalid(reEnabling ? `${SCHEDULE_ENDED} before re-enabling.` : `${SCHEDULE_ENDED}.`, reEnabling ? "enabled" : "start_date");
  }
  const before = tracked({ ...current, byweekday: current.byweekday, dashboardExportInsights: current.dashboardExportInsights });
  const changes = changesBetween(before, tracked(next));
  await inTransaction(ctx.db, async (tx) => {
    await store.updateSubscriptionRow(tx, id, next);
    if (changes.length > 0) {
      const activity = next.deleted && !current.deleted ? "deleted" : !next.deleted && current.deleted ? "restored" : "updated";
      await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: String(id), activity, name: next.title ?? undefined, changes });
    }
  });
  return getSubscription(ctx, id);
}

/** Builds and sends one delivery; the outcome is recorded on the subscription. */
async function deliver(db: Database, row: store.SubscriptionRow, test: boolean): Promise<{ error: string | null; images: number }> {
  const sentAt = new Date();
  let images = 0;
  let error: string | null = null;
  try {
    const report = await buildReport(db, row);
    images = report.assets.filter((asset) => asset.png).length;
    if (row.targetType === "webhook") await sendWebhook(row.targetValue, webhookPayload(row, report, sentAt, test));
    else await sendReportEmail(row, report);
  } catch (caught) {
    if (!(caught instanceof DeliveryError) && !(caught instanceof AppError)) throw caught;
    error = caught.message;
  }
  await store.recordOutcome(db.prisma, row.id, sentAt, error);
  return { error, images };
}

/** `POST …/:id/test-delivery/`: sends now; the schedule does not move. Deleted: 404; disabled: 400 (PostHog's newer 409). */
export async function testDelivery(ctx: Context, id: number): Promise<TestDeliveryResource> {
  const row = await rowOf(ctx, id);
  if (row.deleted) throw notFound();
  if (!row.enabled) throw new AppError("conflict", "This subscription is disabled: enable it to send a test.", "enabled");
  const outcome = await deliver(ctx.db, row, true);
  return { delivered: outcome.error === null, error: outcome.error, images: outcome.images, target_type: row.targetType as SubscriptionTargetType };
}

export interface DuePassOptions {
  now?: () => Date;
  /** Subscriptions read per statement. */
  batch?: number;
  shouldStop?: () => boolean;
}

/** Sends every subscription due now, each moved to its next occurrence first, on the workers' connections; returns how many were sent. */
export async function runDueSubscriptions(database: Database, options: DuePassOptions = {}): Promise<number> {
  const db = onWorkerConnections(database);
  const batch = options.batch ?? 20;
  let sent = 0;
  for (;;) {
    const now = options.now?.() ?? new Date();
    const due = await store.dueSubscriptions(db.prisma, now, batch);
    for (const row of due) {
      if (options.shouldStop?.()) return sent;
      const next = nextDeliveryDate(scheduleOf(row), row.nextDeliveryDate, now);
      if (!(await store.claimDelivery(db.prisma, row.id, row.nextDeliveryDate!, next))) continue;
      await deliver(db, row, false);
      sent++;
      // Others get the embedded database's one connection between deliveries.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (due.length < batch) return sent;
  }
}

/**
 * A saved insight's chart as a PNG, drawn on the server as subscriptions draw it (the
 * insight's "Export PNG"): the same image whatever the browser, and no canvas needed.
 */
export async function insightChartPng(ctx: Context, insightId: number): Promise<{ fileName: string; png: Buffer }> {
  const insight = await findLiveInsight(ctx.db, ctx.project.id, insightId);
  if (!insight) throw new AppError("not_found", "Not found.");
  const computed = await computeSavedInsight(ctx.db, ctx.project.id, insight.id);
  const slug = insight.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 80) || "insight";
  return { fileName: `${slug}.png`, png: renderChartPng(chartOf(insight.name, insight.query, computed.result)) };
}
