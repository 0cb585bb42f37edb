/**
 * Request and answer shapes of destinations, PostHog's hog functions of type `destination`
 * (`/api/projects/:id/hog_functions/`, posthog/api/hog_function.py), shared by REST, tRPC and
 * the form. Browser-safe. Only the webhook template (`template-webhook`) runs here: its
 * inputs are `url`, `method`, `headers`, `body` and `debug` (template.ts).
 */
import { z } from "zod";
import { userBasicSchema } from "@/server/accounts/contract";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";
import { propertiesParamSchema } from "@/server/properties/contract";

export const DESTINATION_LIMITS = {
  maxName: 400,
  maxDescription: 2000,
  maxUrl: 2048,
  maxHeaders: 50,
  maxHeaderName: 256,
  maxHeaderValue: 8192,
  maxBodyText: 100_000,
  maxFilterEntries: 50,
} as const;

export const WEBHOOK_TEMPLATE_ID = "template-webhook";
export const WEBHOOK_METHODS = ["POST", "PUT", "PATCH", "GET", "DELETE"] as const;
export const HOG_FUNCTION_TYPES = ["destination"] as const;
export const DELIVERY_STATUSES = ["delivered", "retrying", "failed", "skipped"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** An input as PostHog sends it: `{value, templating?}`. */
const input = <T extends z.ZodType>(value: T) => z.object({ value, templating: z.enum(["hog", "liquid"]).optional() });

const headerName = z
  .string()
  .min(1, "A header name may not be blank.")
  .max(DESTINATION_LIMITS.maxHeaderName)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "A header name may hold only letters, digits and !#$%&'*+.^_`|~-.");
const headerValue = z
  .string({ error: "Header values must be strings." })
  .max(DESTINATION_LIMITS.maxHeaderValue)
  .refine((value) => !/[\r\n\0]/.test(value), "A header value may not hold line breaks or NUL.");

/** The webhook's inputs as written (a secret header may come back masked: the stored one stays). */
export const webhookInputsSchema = z.object({
  url: input(z.string({ error: "url is required." }).trim().min(1, "url is required.").max(DESTINATION_LIMITS.maxUrl)),
  method: input(z.enum(WEBHOOK_METHODS, { error: `method must be one of ${WEBHOOK_METHODS.join(", ")}.` })).optional(),
  headers: input(
    z.record(headerName, headerValue).refine((headers) => Object.keys(headers).length <= DESTINATION_LIMITS.maxHeaders, `At most ${DESTINATION_LIMITS.maxHeaders} headers.`),
  ).optional(),
  body: input(z.unknown().refine((body) => JSON.stringify(body ?? null).length <= DESTINATION_LIMITS.maxBodyText, "The body template is too large.")).optional(),
  debug: input(drfBoolean).optional(),
});
export type WebhookInputs = z.output<typeof webhookInputsSchema>;

const filterEntryBase = {
  name: z.string().max(400).nullish(),
  order: z.number().int().optional(),
  properties: propertiesParamSchema.optional(),
};
/** An event (`id` its name; null: every event). */
const eventFilterEntry = z.object({ ...filterEntryBase, id: z.string().max(400).nullable(), type: z.literal("events").optional().default("events") });
const actionFilterEntry = z.object({
  ...filterEntryBase,
  id: z.coerce.number({ error: "An action filter's id must be a number." }).int().positive().max(2_147_483_647),
  type: z.literal("actions").optional().default("actions"),
});

/**
 * `filters`: the event passes when it is one of `events` or `actions` (any; both empty: every
 * event) and every top-level `properties` filter holds.
 */
export const destinationFiltersSchema = z
  .object({
    events: z.array(eventFilterEntry).max(DESTINATION_LIMITS.maxFilterEntries).optional().default([]),
    actions: z.array(actionFilterEntry).max(DESTINATION_LIMITS.maxFilterEntries).optional().default([]),
    properties: propertiesParamSchema.optional(),
    filter_test_accounts: drfBoolean.optional(),
  })
  .nullish()
  .transform((filters) => filters ?? { events: [], actions: [] });
export type DestinationFilters = z.output<typeof destinationFiltersSchema>;

const name = z
  .string({ error: "This field is required." })
  .trim()
  .min(1, "This field may not be blank.")
  .max(DESTINATION_LIMITS.maxName, `Ensure this field has no more than ${DESTINATION_LIMITS.maxName} characters.`);
const description = z.string().max(DESTINATION_LIMITS.maxDescription).nullish();

/** `POST …/hog_functions/`. The webhook template fills `hog` and `inputs_schema`; read-only fields are ignored. */
export const hogFunctionCreateBody = z.object({
  type: z.enum(HOG_FUNCTION_TYPES, { error: "Only destinations (type `destination`) are supported." }).optional().default("destination"),
  name,
  description: description.transform((value) => value ?? ""),
  enabled: drfBoolean.optional().transform((value) => value ?? false),
  template_id: z.literal(WEBHOOK_TEMPLATE_ID, { error: `Only the ${WEBHOOK_TEMPLATE_ID} template is supported.` }).optional().default(WEBHOOK_TEMPLATE_ID),
  hog: z.string().max(100_000).nullish(),
  icon_url: z.string().max(DESTINATION_LIMITS.maxUrl).nullish(),
  inputs: webhookInputsSchema,
  filters: destinationFiltersSchema,
  masking: z.null().optional(),
});
export type HogFunctionCreateBody = z.output<typeof hogFunctionCreateBody>;
export type HogFunctionCreateInput = z.input<typeof hogFunctionCreateBody>;

/** `PATCH …/hog_functions/:id/`: `deleted: true` soft-deletes (DELETE is 405), `false` restores; `type` cannot change. */
export const hogFunctionUpdateBody = z.object({
  type: z.enum(HOG_FUNCTION_TYPES, { error: "type cannot be changed." }).optional(),
  name: name.optional(),
  description,
  enabled: drfBoolean.optional(),
  deleted: drfBoolean.optional(),
  hog: z.string().max(100_000).nullish(),
  icon_url: z.string().max(DESTINATION_LIMITS.maxUrl).nullish(),
  inputs: webhookInputsSchema.optional(),
  filters: destinationFiltersSchema.optional(),
  masking: z.null().optional(),
});
export type HogFunctionUpdateBody = z.output<typeof hogFunctionUpdateBody>;

export const hogFunctionListQuery = pageQuery.extend({
  type: z.string().max(100).optional(),
  types: z.string().max(400).optional(),
  enabled: drfBoolean.optional(),
  search: z.string().max(400).optional(),
});
export type HogFunctionListQuery = z.output<typeof hogFunctionListQuery>;

/** `GET …/:id/logs/` (PostHog's LogEntryMixin). */
export const hogFunctionLogsQuery = z.object({
  after: z.iso.datetime({ offset: true, error: "after must be an ISO 8601 date." }).optional(),
  before: z.iso.datetime({ offset: true, error: "before must be an ISO 8601 date." }).optional(),
  level: z.string().max(100).optional(),
  search: z.string().max(400).optional(),
  instance_id: z.string().max(100).optional(),
  limit: z.coerce.number({ error: "limit must be an integer." }).int().min(1).max(1000).optional().default(100),
});
export type HogFunctionLogsQuery = z.output<typeof hogFunctionLogsQuery>;

/** `GET …/:id/metrics/` (PostHog's AppMetricsMixin; kinds are delivered, retrying, failed, skipped). */
export const hogFunctionMetricsQuery = z.object({
  after: z.string().max(100).optional().default("-7d"),
  before: z.string().max(100).optional(),
  interval: z.enum(["hour", "day", "week"], { error: "interval must be hour, day or week." }).optional().default("day"),
  breakdown_by: z.enum(["kind", "name"]).optional().default("kind"),
  kind: z.string().max(100).optional(),
  name: z.string().max(100).optional(),
});
export type HogFunctionMetricsQuery = z.output<typeof hogFunctionMetricsQuery>;

const inputOut = z.object({ value: z.unknown().optional(), templating: z.string().optional(), secret: z.boolean().optional() });

export const hogFunctionSchema = z
  .object({
    id: z.uuid(),
    type: z.enum(HOG_FUNCTION_TYPES),
    name: z.string(),
    description: z.string(),
    created_at: z.iso.datetime(),
    created_by: userBasicSchema.nullable(),
    updated_at: z.iso.datetime(),
    enabled: z.boolean(),
    hog: z.string(),
    bytecode: z.null(),
    transpiled: z.null(),
    inputs_schema: z.array(z.record(z.string(), z.unknown())),
    inputs: z.record(z.string(), inputOut),
    filters: z.record(z.string(), z.unknown()),
    masking: z.null(),
    mappings: z.null(),
    icon_url: z.string().nullable(),
    template: z.object({ id: z.string(), name: z.string(), description: z.string() }).nullable(),
    status: z.object({ state: z.number().int(), tokens: z.number(), rating: z.number().optional() }),
    execution_order: z.null(),
    deleted: z.boolean(),
  })
  .meta({ id: "HogFunction" });
export type HogFunctionResource = z.infer<typeof hogFunctionSchema>;

export const logEntrySchema = z
  .object({ log_source_id: z.string(), instance_id: z.string(), timestamp: z.iso.datetime(), level: z.enum(["INFO", "WARN", "ERROR", "DEBUG"]), message: z.string() })
  .meta({ id: "HogFunctionLogEntry" });
export type LogEntry = z.infer<typeof logEntrySchema>;

/** A delivery as the UI lists it (more than a log line: status, code, duration, error). */
export const deliverySchema = z
  .object({
    id: z.string(),
    event_uuid: z.uuid(),
    attempt: z.number().int(),
    status: z.enum(DELIVERY_STATUSES),
    response_code: z.number().int().nullable(),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "HogFunctionDelivery" });
export type DeliveryResource = z.infer<typeof deliverySchema>;

export const metricsSchema = z.object({ labels: z.array(z.string()), series: z.array(z.object({ name: z.string(), values: z.array(z.number()) })) }).meta({ id: "HogFunctionMetrics" });
export type MetricsResource = z.infer<typeof metricsSchema>;
export const metricsTotalsSchema = z.object({ totals: z.record(z.string(), z.number()) }).meta({ id: "HogFunctionMetricsTotals" });
