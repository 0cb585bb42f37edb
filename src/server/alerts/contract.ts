/**
 * Request and answer shapes of insight alerts, PostHog's AlertConfiguration
 * (`/api/projects/:id/alerts/`, posthog/api/alert.py), shared by REST, tRPC and the form.
 * Browser-safe. Burrow adds `webhook_url`: where a change of state is POSTed (PostHog's newer
 * versions route alerts through hog functions instead).
 */
import { z } from "zod";
import { userBasicSchema } from "@/server/accounts/contract";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";

export const ALERT_LIMITS = { maxName: 400, maxUrl: 2048, maxSubscribers: 200, maxChecksShown: 50, maxSeriesIndex: 49 } as const;

export const CALCULATION_INTERVALS = ["hourly", "daily", "weekly", "monthly"] as const;
export type CalculationInterval = (typeof CALCULATION_INTERVALS)[number];
export const CONDITION_TYPES = ["absolute_value", "relative_increase", "relative_decrease"] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];
export const THRESHOLD_TYPES = ["absolute", "percentage"] as const;
export const ALERT_STATES = ["Firing", "Not firing", "Errored", "Snoozed"] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** Trends displays of one value for the whole range (trends/contract.ts's TOTAL_VALUE_DISPLAYS, kept browser-safe here; a test keeps them equal). */
export const SINGLE_VALUE_DISPLAYS = ["BoldNumber", "ActionsPie", "ActionsBarValue", "ActionsTable", "WorldMap"] as const;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The trends query an insight holds (its InsightVizNode's source, or the query itself); null when it is not a trends insight. */
export function trendsSourceOf(query: unknown): Json | null {
  const source = isObject(query) && query.kind === "InsightVizNode" ? query.source : query;
  return isObject(source) && source.kind === "TrendsQuery" ? source : null;
}

/** What an alert form needs of an insight: its series' names and whether it charts intervals (null: alerts cannot watch it). */
export function alertableInsight(query: unknown): { seriesNames: string[]; timeSeries: boolean } | null {
  const source = trendsSourceOf(query);
  if (!source) return null;
  const display = isObject(source.trendsFilter) ? source.trendsFilter.display : undefined;
  const series = Array.isArray(source.series) ? (source.series as Json[]) : [];
  return {
    seriesNames: series.map((s) => String(s.custom_name || s.name || s.event || (s.kind === "ActionsNode" ? `Action ${String(s.id)}` : "All events"))),
    timeSeries: !(SINGLE_VALUE_DISPLAYS as readonly unknown[]).includes(display),
  };
}

const bound = (name: string) => z.number({ error: `${name} must be a number.` }).finite().nullish();

export const thresholdConfigurationSchema = z.object({
  type: z.enum(THRESHOLD_TYPES, { error: `threshold type must be one of ${THRESHOLD_TYPES.join(", ")}.` }).default("absolute"),
  bounds: z
    .object({ lower: bound("lower"), upper: bound("upper") })
    .refine((b) => (b.lower ?? null) !== null || (b.upper ?? null) !== null, "Give a lower bound, an upper bound or both.")
    .refine((b) => b.lower == null || b.upper == null || b.lower <= b.upper, "The lower bound must not be above the upper bound."),
});
export type ThresholdConfiguration = z.output<typeof thresholdConfigurationSchema>;

/** PostHog's threshold as written: `{configuration}` (a name is optional; id and created_at are read-only). */
const thresholdBody = z.object({ name: z.string().max(ALERT_LIMITS.maxName).nullish(), configuration: thresholdConfigurationSchema });
const conditionBody = z.object({ type: z.enum(CONDITION_TYPES, { error: `condition type must be one of ${CONDITION_TYPES.join(", ")}.` }) });
const configBody = z.object({
  type: z.literal("TrendsAlertConfig", { error: "config type must be TrendsAlertConfig (alerts are checked on trends insights)." }).default("TrendsAlertConfig"),
  series_index: z.coerce.number({ error: "series_index must be an integer." }).int("series_index must be an integer.").min(0).max(ALERT_LIMITS.maxSeriesIndex).default(0),
  check_ongoing_interval: drfBoolean.nullish(),
});
export type AlertConfig = z.output<typeof configBody>;

const name = z
  .string({ error: "This field is required." })
  .trim()
  .min(1, "This field may not be blank.")
  .max(ALERT_LIMITS.maxName, `Ensure this field has no more than ${ALERT_LIMITS.maxName} characters.`);
const insightId = z.coerce.number({ error: "insight must be an insight id." }).int("insight must be an insight id.").positive("insight must be an insight id.").max(2_147_483_647);
const userIds = z
  .array(z.coerce.number({ error: "subscribed_users holds user ids." }).int().positive().max(2_147_483_647))
  .max(ALERT_LIMITS.maxSubscribers, `At most ${ALERT_LIMITS.maxSubscribers} subscribed users.`);
const webhookUrl = z.string({ error: "webhook_url must be a URL." }).trim().max(ALERT_LIMITS.maxUrl).nullish().transform((url) => (url ? url : null));
const dateTime = (field: string) => z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 date and time.` }).nullish();

/** The rules that tie the fields together (PostHog's serializer checks), for a whole alert as it would be saved. */
export function alertRuleIssue(alert: { threshold: { configuration: ThresholdConfiguration }; condition: { type: ConditionType }; config: AlertConfig }): { message: string; path: string } | null {
  const { configuration } = alert.threshold;
  if (alert.condition.type === "absolute_value" && configuration.type === "percentage") {
    return { message: "A percentage threshold needs a relative condition (relative_increase or relative_decrease).", path: "threshold" };
  }
  if (alert.config.check_ongoing_interval) {
    if (configuration.bounds.upper == null) return { message: "Checking the ongoing interval needs an upper bound (its value can only grow).", path: "config" };
    if (alert.condition.type === "relative_decrease") return { message: "Checking the ongoing interval is not possible with relative_decrease.", path: "config" };
  }
  return null;
}

/** `POST …/alerts/`. */
export const alertCreateBody = z
  .object({
    insight: insightId,
    name,
    subscribed_users: userIds.optional().default([]),
    threshold: thresholdBody,
    condition: conditionBody.optional().default({ type: "absolute_value" }),
    config: configBody.optional().default({ type: "TrendsAlertConfig", series_index: 0 }),
    calculation_interval: z.enum(CALCULATION_INTERVALS, { error: `calculation_interval must be one of ${CALCULATION_INTERVALS.join(", ")}.` }).optional().default("daily"),
    enabled: drfBoolean.optional().default(true),
    snoozed_until: dateTime("snoozed_until"),
    skip_weekend: drfBoolean.optional().default(false),
    webhook_url: webhookUrl,
  })
  .superRefine((alert, issues) => {
    const issue = alertRuleIssue(alert);
    if (issue) issues.addIssue({ code: "custom", message: issue.message, path: [issue.path] });
  });
export type AlertCreateBody = z.output<typeof alertCreateBody>;
export type AlertCreateInput = z.input<typeof alertCreateBody>;

/** `PATCH …/alerts/:id/`: any writable field (the combined rules are checked on the result). */
export const alertUpdateBody = z.object({
  insight: insightId.optional(),
  name: name.optional(),
  subscribed_users: userIds.optional(),
  threshold: thresholdBody.optional(),
  condition: conditionBody.optional(),
  config: configBody.optional(),
  calculation_interval: z.enum(CALCULATION_INTERVALS, { error: `calculation_interval must be one of ${CALCULATION_INTERVALS.join(", ")}.` }).optional(),
  enabled: drfBoolean.optional(),
  snoozed_until: dateTime("snoozed_until"),
  skip_weekend: drfBoolean.optional(),
  webhook_url: webhookUrl.optional(),
});
export type AlertUpdateBody = z.output<typeof alertUpdateBody>;

export const alertListQuery = pageQuery.extend({
  insight: z.coerce.number({ error: "insight must be an insight id." }).int().positive().max(2_147_483_647).optional(),
});
export type AlertListQuery = z.output<typeof alertListQuery>;

export const alertRetrieveQuery = z.object({
  checks_limit: z.coerce.number({ error: "checks_limit must be an integer." }).int().min(0).max(ALERT_LIMITS.maxChecksShown).optional().default(5),
});

export const targetsNotifiedSchema = z.object({
  /** The subscribed users' addresses the e-mail went to. */
  users: z.array(z.string()).optional(),
  /** Why the e-mail did not go (not set up, or the mail server refused). */
  email_error: z.string().optional(),
  webhooks: z.array(z.object({ url: z.string(), status: z.number().int().nullable(), error: z.string().nullable() })).optional(),
});
export type TargetsNotified = z.infer<typeof targetsNotifiedSchema>;

export const alertCheckSchema = z
  .object({
    id: z.uuid(),
    created_at: z.iso.datetime(),
    calculated_value: z.number().nullable(),
    state: z.enum(ALERT_STATES),
    error: z.object({ message: z.string() }).nullable(),
    targets_notified: targetsNotifiedSchema,
  })
  .meta({ id: "AlertCheck" });
export type AlertCheckResource = z.infer<typeof alertCheckSchema>;

export const alertSchema = z
  .object({
    id: z.uuid(),
    created_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    insight: z.object({ id: z.number().int(), short_id: z.string(), name: z.string() }),
    name: z.string(),
    subscribed_users: z.array(userBasicSchema),
    threshold: z.object({ id: z.uuid(), created_at: z.iso.datetime(), name: z.string(), configuration: thresholdConfigurationSchema }),
    condition: z.object({ type: z.enum(CONDITION_TYPES) }),
    state: z.enum(ALERT_STATES),
    enabled: z.boolean(),
    last_notified_at: z.iso.datetime().nullable(),
    last_checked_at: z.iso.datetime().nullable(),
    next_check_at: z.iso.datetime().nullable(),
    checks: z.array(alertCheckSchema),
    config: z.object({ type: z.literal("TrendsAlertConfig"), series_index: z.number().int(), check_ongoing_interval: z.boolean().nullable().optional() }),
    calculation_interval: z.enum(CALCULATION_INTERVALS),
    snoozed_until: z.iso.datetime().nullable(),
    skip_weekend: z.boolean(),
    webhook_url: z.string().nullable(),
  })
  .meta({ id: "AlertConfiguration" });
export type AlertResource = z.infer<typeof alertSchema>;
