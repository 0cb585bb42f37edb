/**
 * Request and answer shapes of subscriptions (PostHog's `ee/api/subscription.py`): an insight
 * or a dashboard sent on a schedule by e-mail or webhook (Burrow has no Slack), shared by
 * REST, tRPC and the form. Browser-safe.
 */
import { z } from "zod";
import { userBasicSchema } from "@/server/accounts/contract";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";
import { recordId } from "@/server/input/record-id";

export const SUBSCRIPTION_LIMITS = {
  maxTitle: 100,
  maxTargetValue: 4000,
  maxRecipients: 50,
  maxUrl: 2048,
  maxInviteMessage: 2000,
  maxInterval: 1000,
  maxCount: 100_000,
  /** A dashboard's insights sent at most (PostHog's DEFAULT_MAX_ASSET_COUNT). */
  maxDashboardInsights: 6,
} as const;

export const CONTENT_TYPES = ["insight", "dashboard"] as const;
export type SubscriptionContentType = (typeof CONTENT_TYPES)[number];
export const TARGET_TYPES = ["email", "webhook"] as const;
export type SubscriptionTargetType = (typeof TARGET_TYPES)[number];
export const FREQUENCIES = ["daily", "weekly", "monthly", "yearly"] as const;
export type SubscriptionFrequency = (typeof FREQUENCIES)[number];
export const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
export type SubscriptionWeekday = (typeof WEEKDAYS)[number];
/** 1 first … 4 fourth, -1 last (PostHog's summary names no others). */
export const SETPOS = [1, 2, 3, 4, -1] as const;

const EMAIL = /^[^\s@,<>"]+@[^\s@,<>"]+\.[^\s@,<>"]+$/;

/** The recipients of an e-mail subscription: comma-separated addresses, as PostHog stores them. */
export function recipientsOf(targetValue: string): string[] {
  return targetValue
    .split(",")
    .map((address) => address.trim())
    .filter(Boolean);
}

/** What is wrong with a target for its type, or null (the webhook URL's address rules are checked by the service). */
export function targetProblem(targetType: SubscriptionTargetType, targetValue: string): string | null {
  if (targetType === "email") {
    const recipients = recipientsOf(targetValue);
    if (recipients.length === 0) return "Enter at least one e-mail address.";
    if (recipients.length > SUBSCRIPTION_LIMITS.maxRecipients) return `At most ${SUBSCRIPTION_LIMITS.maxRecipients} recipients.`;
    const bad = recipients.find((address) => !EMAIL.test(address));
    return bad ? `${bad} is not an e-mail address.` : null;
  }
  if (targetValue.length > SUBSCRIPTION_LIMITS.maxUrl) return `A webhook URL has at most ${SUBSCRIPTION_LIMITS.maxUrl} characters.`;
  try {
    const url = new URL(targetValue);
    return url.protocol === "http:" || url.protocol === "https:" ? null : "A webhook URL must use http or https.";
  } catch {
    return "Enter a valid URL.";
  }
}

const date = z.iso.datetime({ offset: true, error: "Enter a valid ISO 8601 date." });
const int = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be an integer.` })
    .int(`${name} must be an integer.`)
    .min(min, `Ensure this value is greater than or equal to ${min}.`)
    .max(max, `Ensure this value is less than or equal to ${max}.`);

const targetType = z.enum(TARGET_TYPES, { error: (issue) => (issue.input === "slack" ? "Slack is not available here: use email or webhook." : `target_type must be one of ${TARGET_TYPES.join(", ")}.`) });
const targetValue = z.string({ error: "This field is required." }).trim().min(1, "This field may not be blank.").max(SUBSCRIPTION_LIMITS.maxTargetValue);
const frequency = z.enum(FREQUENCIES, { error: `frequency must be one of ${FREQUENCIES.join(", ")}.` });
const byweekday = z
  .array(z.enum(WEEKDAYS, { error: `byweekday holds days: ${WEEKDAYS.join(", ")}.` }))
  .max(7)
  .nullish();
const bysetpos = z
  .number({ error: "bysetpos must be an integer." })
  .refine((value) => (SETPOS as readonly number[]).includes(value), "bysetpos must be 1, 2, 3, 4 or -1 (last).")
  .nullish();
const exportInsights = z
  .array(recordId("All items must be integers."), { error: "Expected a list of insight IDs." })
  .max(SUBSCRIPTION_LIMITS.maxDashboardInsights, `Cannot select more than ${SUBSCRIPTION_LIMITS.maxDashboardInsights} insights.`)
  .refine((ids) => new Set(ids).size === ids.length, "Each insight only once.");
const title = z.string().trim().max(SUBSCRIPTION_LIMITS.maxTitle, `Ensure this field has no more than ${SUBSCRIPTION_LIMITS.maxTitle} characters.`).nullish();
const inviteMessage = z.string().max(SUBSCRIPTION_LIMITS.maxInviteMessage).nullish();

/** The schedule and target fields the form and both writes share. */
const scheduleFields = {
  frequency,
  interval: int("interval", 1, SUBSCRIPTION_LIMITS.maxInterval).optional(),
  byweekday,
  bysetpos,
  count: int("count", 1, SUBSCRIPTION_LIMITS.maxCount).nullish(),
  start_date: date,
  until_date: date.nullish(),
};

/** `POST …/subscriptions/`. `content_type` is inferred from `insight`/`dashboard` when omitted; read-only fields are ignored. */
export const subscriptionCreateBody = z.object({
  content_type: z.enum(CONTENT_TYPES, { error: "content_type must be insight or dashboard." }).optional(),
  insight: recordId().nullish(),
  dashboard: recordId().nullish(),
  dashboard_export_insights: exportInsights.optional(),
  target_type: targetType,
  target_value: targetValue,
  ...scheduleFields,
  title,
  enabled: drfBoolean.optional(),
  invite_message: inviteMessage,
});
export type SubscriptionCreateBody = z.output<typeof subscriptionCreateBody>;
export type SubscriptionCreateInput = z.input<typeof subscriptionCreateBody>;

/** `PATCH …/subscriptions/:id/`: any writable field; `deleted: true` soft-deletes (DELETE is 405); `content_type` cannot change. */
export const subscriptionUpdateBody = z.object({
  content_type: z.enum(CONTENT_TYPES, { error: "content_type must be insight or dashboard." }).optional(),
  insight: recordId().nullish(),
  dashboard: recordId().nullish(),
  dashboard_export_insights: exportInsights.optional(),
  target_type: targetType.optional(),
  target_value: targetValue.optional(),
  frequency: frequency.optional(),
  interval: scheduleFields.interval,
  byweekday,
  bysetpos,
  count: scheduleFields.count,
  start_date: date.optional(),
  until_date: date.nullish(),
  title,
  enabled: drfBoolean.optional(),
  deleted: drfBoolean.optional(),
  invite_message: inviteMessage,
});
export type SubscriptionUpdateBody = z.output<typeof subscriptionUpdateBody>;

export const subscriptionListQuery = pageQuery.extend({
  insight: z.coerce.number({ error: "insight must be an integer." }).int().min(1).max(2_147_483_647).optional(),
  dashboard: z.coerce.number({ error: "dashboard must be an integer." }).int().min(1).max(2_147_483_647).optional(),
  deleted: drfBoolean.optional(),
  target_type: z.string().max(20).optional(),
});
export type SubscriptionListQuery = z.output<typeof subscriptionListQuery>;

export const subscriptionSchema = z
  .object({
    id: z.number().int(),
    content_type: z.enum(CONTENT_TYPES),
    dashboard: z.number().int().nullable(),
    insight: z.number().int().nullable(),
    insight_short_id: z.string().nullable(),
    resource_name: z.string().nullable(),
    dashboard_export_insights: z.array(z.number().int()),
    target_type: z.enum(TARGET_TYPES),
    target_value: z.string(),
    frequency: z.enum(FREQUENCIES),
    interval: z.number().int(),
    byweekday: z.array(z.enum(WEEKDAYS)).nullable(),
    bysetpos: z.number().int().nullable(),
    count: z.number().int().nullable(),
    start_date: z.iso.datetime(),
    until_date: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    created_by: userBasicSchema.nullable(),
    deleted: z.boolean(),
    enabled: z.boolean(),
    title: z.string().nullable(),
    summary: z.string(),
    next_delivery_date: z.iso.datetime().nullable(),
    integration_id: z.null(),
    invite_message: z.string().nullable(),
    /** Burrow: when the last scheduled or test delivery went out, and why the last one failed. */
    last_delivered_at: z.iso.datetime().nullable(),
    last_delivery_error: z.string().nullable(),
  })
  .meta({ id: "Subscription" });
export type SubscriptionResource = z.infer<typeof subscriptionSchema>;

/** `POST …/subscriptions/:id/test-delivery/` (202): sent at once; the schedule does not move. */
export const testDeliverySchema = z
  .object({ delivered: z.boolean(), error: z.string().nullable(), images: z.number().int(), target_type: z.enum(TARGET_TYPES) })
  .meta({ id: "SubscriptionTestDelivery" });
export type TestDeliveryResource = z.infer<typeof testDeliverySchema>;
