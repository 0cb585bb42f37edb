/**
 * Insight alerts: PostHog's AlertConfiguration over the store, checked by the scheduled pass
 * (worker.ts) and on demand. A check recomputes the insight (the query service the insights
 * use) over its last intervals, compares the watched series with the threshold
 * (evaluate.ts), records an AlertCheck, and notifies on the change into firing and back
 * (notify.ts). No cap on how many alerts a project has.
 */
import { randomUUID } from "node:crypto";
import { projectMembersBasic } from "@/server/accounts/service";
import type { UserBasic } from "@/server/accounts/present";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db/client";
import { onWorkerConnections } from "@/server/db/database";
import { AppError } from "@/server/errors";
import { pageWindow } from "@/server/input/page";
import { computeInsight, insightForAlert } from "@/server/insights/service";
import { checkOutboundUrl } from "@/server/outbound/service";
import {
  alertRuleIssue,
  type AlertConfig,
  type AlertCreateBody,
  type AlertListQuery,
  type AlertResource,
  type AlertState,
  type AlertUpdateBody,
  type CalculationInterval,
  type ConditionType,
  type TargetsNotified,
  type ThresholdConfiguration,
} from "./contract";
import { AlertCheckError, alertQuery, evaluate } from "./evaluate";
import { notify, type Transition } from "./notify";
import { presentAlert } from "./present";
import * as store from "./store";

const notFound = () => new AppError("not_found", "Not found.");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface StoredThreshold {
  id: string;
  created_at: string;
  name: string;
  configuration: ThresholdConfiguration;
}

async function rowOf(db: Database, projectId: number, id: string): Promise<store.AlertRow> {
  // Not a uuid: no such alert (rather than a database error).
  if (!UUID.test(id)) throw notFound();
  const row = await store.findAlert(db.prisma, projectId, id);
  if (!row) throw notFound();
  return row;
}

async function membersOf(db: Database, projectId: number): Promise<{ name: string; timezone: string; members: Map<number, UserBasic> }> {
  const project = await projectMembersBasic(db.prisma, projectId);
  if (!project) throw notFound();
  return { name: project.name, timezone: project.timezone, members: new Map(project.members.map((m) => [m.id, m])) };
}

async function insightOf(db: Database, projectId: number, id: number): Promise<AlertResource["insight"]> {
  const insight = await insightForAlert(db.prisma, projectId, id);
  return insight ? { id: insight.id, short_id: insight.shortId, name: insight.name } : { id, short_id: "", name: "(deleted insight)" };
}

async function resourceOf(db: Database, projectId: number, row: store.AlertRow, checksLimit: number, members?: Map<number, UserBasic>): Promise<AlertResource> {
  const checks = await store.recentChecks(db.prisma, [row.id], checksLimit);
  return presentAlert(row, await insightOf(db, projectId, row.insightId), members ?? (await membersOf(db, projectId)).members, checks.get(row.id) ?? []);
}

export async function getAlert(ctx: Context, id: string, checksLimit = 5): Promise<AlertResource> {
  return resourceOf(ctx.db, ctx.project.id, await rowOf(ctx.db, ctx.project.id, id), checksLimit);
}

/** Newest first; `insight` filters to one insight's alerts. Each with its newest check. */
export async function listAlerts(ctx: Context, query: AlertListQuery): Promise<{ count: number; results: AlertResource[] }> {
  const { take, skip } = pageWindow(query);
  const { count, rows } = await store.listAlertRows(ctx.db.prisma, ctx.project.id, { insightId: query.insight }, take, skip);
  const { members } = await membersOf(ctx.db, ctx.project.id);
  const results: AlertResource[] = [];
  for (const row of rows) results.push(await resourceOf(ctx.db, ctx.project.id, row, 1, members));
  return { count, results };
}

/** The insight exists in the project and is a trends insight the condition can be checked on. */
async function checkInsight(ctx: Context, insightId: number, condition: ConditionType): Promise<void> {
  const insight = await insightForAlert(ctx.db.prisma, ctx.project.id, insightId);
  if (!insight) throw new AppError("invalid_input", `Insight ${insightId} does not exist in this project.`, "insight");
  try {
    alertQuery(insight.query, condition);
  } catch (error) {
    if (error instanceof AlertCheckError) throw new AppError("invalid_input", error.message, error.message.startsWith("Relative") ? "condition" : "insight");
    throw error;
  }
}

function checkWebhook(url: string | null): void {
  if (url === null) return;
  const verdict = checkOutboundUrl(url);
  if (!verdict.ok) throw new AppError("invalid_input", `The URL ${verdict.reason}.`, "webhook_url");
}

async function checkSubscribers(ctx: Context, ids: number[]): Promise<number[]> {
  const { members } = await membersOf(ctx.db, ctx.project.id);
  const stranger = ids.find((id) => !members.has(id));
  if (stranger !== undefined) throw new AppError("invalid_input", `User ${stranger} is not a member of this project's organization.`, "subscribed_users");
  return [...new Set(ids)];
}

function stateFor(snoozedUntil: Date | null, current: AlertState): AlertState {
  if (snoozedUntil && snoozedUntil.getTime() > Date.now()) return "Snoozed";
  return current === "Snoozed" ? "Not firing" : current;
}

export async function createAlert(ctx: Context, body: AlertCreateBody): Promise<AlertResource> {
  await checkInsight(ctx, body.insight, body.condition.type);
  checkWebhook(body.webhook_url);
  const subscribers = await checkSubscribers(ctx, body.subscribed_users);
  const id = randomUUID();
  const snoozedUntil = body.snoozed_until ? new Date(body.snoozed_until) : null;
  const threshold: StoredThreshold = { id: randomUUID(), created_at: new Date().toISOString(), name: body.threshold.name ?? "", configuration: body.threshold.configuration };
  await store.insertAlert(ctx.db.prisma, id, ctx.project.id, ctx.actor.id, {
    insightId: body.insight,
    name: body.name,
    enabled: body.enabled,
    threshold,
    condition: body.condition,
    config: body.config,
    calculationInterval: body.calculation_interval,
    state: stateFor(snoozedUntil, "Not firing"),
    subscribedUserIds: subscribers,
    webhookUrl: body.webhook_url,
    skipWeekend: body.skip_weekend,
    snoozedUntil,
    // Due now: the next scheduled pass makes its first check.
    nextCheckAt: new Date(),
  });
  return getAlert(ctx, id);
}

export async function updateAlert(ctx: Context, id: string, body: AlertUpdateBody): Promise<AlertResource> {
  const current = await rowOf(ctx.db, ctx.project.id, id);
  const currentThreshold = current.threshold as unknown as StoredThreshold;
  const threshold: StoredThreshold = body.threshold
    ? { id: currentThreshold.id ?? randomUUID(), created_at: currentThreshold.created_at ?? new Date().toISOString(), name: body.threshold.name ?? currentThreshold.name ?? "", configuration: body.threshold.configuration }
    : currentThreshold;
  const condition = body.condition ?? (current.condition as { type: ConditionType });
  const config = body.config ?? (current.config as AlertConfig);
  const issue = alertRuleIssue({ threshold, condition, config });
  if (issue) throw new AppError("invalid_input", issue.message, issue.path);
  const insightId = body.insight ?? current.insightId;
  if (body.insight !== undefined || body.condition) await checkInsight(ctx, insightId, condition.type);
  const webhookUrl = body.webhook_url === undefined ? current.webhookUrl : body.webhook_url;
  if (body.webhook_url !== undefined) checkWebhook(webhookUrl);
  const snoozedUntil = body.snoozed_until === undefined ? current.snoozedUntil : body.snoozed_until ? new Date(body.snoozed_until) : null;
  // What decides the answer changed, or a snooze was lifted (its state is no longer known): check again at the next pass rather than at the old time.
  const unsnoozed = current.snoozedUntil !== null && current.snoozedUntil.getTime() > Date.now() && snoozedUntil === null;
  const recheck = Boolean(body.threshold || body.condition || body.config || body.insight !== undefined || body.calculation_interval || (body.enabled && !current.enabled) || unsnoozed);
  await store.updateAlertRow(ctx.db.prisma, id, {
    insightId,
    name: body.name ?? current.name,
    enabled: body.enabled ?? current.enabled,
    threshold,
    condition,
    config,
    calculationInterval: body.calculation_interval ?? current.calculationInterval,
    state: stateFor(snoozedUntil, current.state as AlertState),
    subscribedUserIds: body.subscribed_users ? await checkSubscribers(ctx, body.subscribed_users) : current.subscribedUserIds,
    webhookUrl,
    skipWeekend: body.skip_weekend ?? current.skipWeekend,
    snoozedUntil,
    nextCheckAt: recheck ? new Date() : current.nextCheckAt,
  });
  return getAlert(ctx, id);
}

export async function deleteAlert(ctx: Context, id: string): Promise<void> {
  await rowOf(ctx.db, ctx.project.id, id);
  await store.deleteAlertRow(ctx.db.prisma, id);
}

/** "Check now": a check at once, whatever the schedule (the schedule itself is unchanged). */
export async function checkAlertNow(ctx: Context, id: string): Promise<AlertResource> {
  await rowOf(ctx.db, ctx.project.id, id);
  await checkAlert(ctx.db, ctx.project.id, id, { scheduled: false });
  return getAlert(ctx, id);
}

// ---------------------------------------------------------------------------
// Checking
// ---------------------------------------------------------------------------

const HOUR_MS = 3_600_000;

function weekdayIn(date: Date, zone: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { weekday: "short", timeZone: zone }).format(date);
  } catch {
    return new Intl.DateTimeFormat("en-US", { weekday: "short", timeZone: "UTC" }).format(date);
  }
}
const isWeekend = (date: Date, zone: string) => ["Sat", "Sun"].includes(weekdayIn(date, zone));

/** When a scheduled check comes next: one `interval` on (a calendar month for monthly), past a weekend when `skipWeekend`. */
export function nextCheckTime(from: Date, interval: CalculationInterval, skipWeekend: boolean, zone: string): Date {
  let next: Date;
  if (interval === "monthly") {
    next = new Date(from);
    next.setUTCMonth(next.getUTCMonth() + 1);
    // Jan 31 + a month is the last of February, not March 3.
    if (next.getUTCDate() !== from.getUTCDate()) next.setUTCDate(0);
  } else next = new Date(from.getTime() + { hourly: 1, daily: 24, weekly: 24 * 7 }[interval] * HOUR_MS);
  // At most two days to skip; the bound keeps a bad zone from looping.
  for (let i = 0; skipWeekend && i < 3 && isWeekend(next, zone); i++) next = new Date(next.getTime() + 24 * HOUR_MS);
  return next;
}

export interface CheckOptions {
  /** A scheduled check moves next_check_at on; a manual one leaves the schedule alone. */
  scheduled: boolean;
  /** The time relative dates count back from (tests). */
  now?: Date;
}

/**
 * Checks one alert and records the check. Errors of the insight or the query make an Errored
 * check, not a thrown error; a snoozed alert is checked (on demand) but stays Snoozed and
 * notifies nobody.
 */
export async function checkAlert(db: Database, projectId: number, alertId: string, options: CheckOptions): Promise<void> {
  const row = await store.findAlert(db.prisma, projectId, alertId);
  if (!row) return;
  const now = options.now ?? new Date();
  const project = await membersOf(db, projectId);
  const nextCheckAt = options.scheduled ? nextCheckTime(now, row.calculationInterval as CalculationInterval, row.skipWeekend, project.timezone) : row.nextCheckAt;
  if (options.scheduled && row.skipWeekend && isWeekend(now, project.timezone)) {
    await store.recordCheckless(db.prisma, alertId, nextCheckAt);
    return;
  }
  const threshold = (row.threshold as unknown as StoredThreshold).configuration;
  const condition = (row.condition as { type: ConditionType }).type;
  const config = row.config as AlertConfig;
  const insight = await insightForAlert(db.prisma, projectId, row.insightId);

  let state: AlertState;
  let value: number | null = null;
  let breaches: string[] = [];
  let error: { message: string } | null = null;
  try {
    if (!insight) throw new AlertCheckError("The alert's insight was deleted.");
    const query = alertQuery(insight.query, condition);
    const computed = await computeInsight(db, projectId, { query: query.query }, { refresh: "force", filtersOverride: query.filtersOverride, now });
    const evaluation = evaluate(computed.result, threshold, condition, config, query.timeSeries);
    value = evaluation.value;
    breaches = evaluation.breaches;
    state = breaches.length > 0 ? "Firing" : "Not firing";
  } catch (caught) {
    if (!(caught instanceof AlertCheckError) && !(caught instanceof AppError)) console.error(`burrow: alert ${alertId} check failed`, caught);
    state = "Errored";
    error = { message: caught instanceof Error ? caught.message : String(caught) };
  }

  const snoozed = row.snoozedUntil !== null && row.snoozedUntil.getTime() > now.getTime();
  const previous = row.state as AlertState;
  const transition: Transition | null = snoozed ? null : state === "Firing" && previous !== "Firing" ? "firing" : state === "Not firing" && previous === "Firing" ? "resolved" : null;
  const checkId = randomUUID();
  let targets: TargetsNotified = {};
  if (transition) {
    const recipients = row.subscribedUserIds.flatMap((id) => project.members.get(id)?.email ?? []);
    targets = await notify({
      transition,
      alert: { id: row.id, name: row.name, state },
      insight: { id: row.insightId, short_id: insight?.shortId ?? "", name: insight?.name ?? "" },
      project: { id: projectId, name: project.name },
      check: { id: checkId, created_at: now.toISOString(), calculated_value: value, breaches },
      webhookUrl: row.webhookUrl,
      recipients,
    });
  }
  await store.recordCheck(
    db.prisma,
    { id: checkId, alertId, projectId, createdAt: now, calculatedValue: value, state, error, targetsNotified: targets },
    {
      state: snoozed ? "Snoozed" : state,
      lastCheckedAt: now,
      nextCheckAt,
      ...(transition ? { lastNotifiedAt: now } : {}),
      // A snooze that has run out ends with this check.
      ...(row.snoozedUntil && !snoozed ? { snoozedUntil: null } : {}),
    },
  );
}

export interface PassOptions {
  /** Alerts claimed at a time. */
  batch?: number;
  /** How long a claim holds before another process may check the alert. */
  leaseMs?: number;
}

/**
 * One scheduled pass: every alert whose check is due, a few at a time, until none is due or a
 * stop is asked, on the workers' connections. Answers how many were checked.
 */
export async function checkDueAlerts(database: Database, stopping: () => boolean = () => false, options: PassOptions = {}): Promise<number> {
  const db = onWorkerConnections(database);
  let checked = 0;
  while (!stopping()) {
    const due = await store.claimDueAlerts(db.prisma, new Date(), options.batch ?? 10, options.leaseMs ?? 10 * 60_000);
    if (due.length === 0) break;
    for (const alert of due) {
      if (stopping()) break;
      await checkAlert(db, alert.project_id, alert.id, { scheduled: true });
      checked++;
    }
  }
  return checked;
}
