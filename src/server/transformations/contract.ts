/**
 * Requests of the transformation configs resource, one schema per operation, shared by
 * the REST routes, tRPC and the UI's forms. Read-only fields a client sends back (id,
 * team_id, plugin_info, error, …) are ignored, as DRF does.
 */
import { z } from "zod";
import { INT4_MAX } from "@/server/input/record-id";
import { userBasicSchema } from "@/server/accounts/contract";

const integer = (name: string) =>
  z
    .number({ error: `${name} must be an integer.` })
    .int(`${name} must be an integer.`)
    .min(0, `${name} must not be negative.`)
    .max(INT4_MAX, `${name} is too large.`);

const writableFields = {
  enabled: z.boolean({ error: "enabled must be true or false." }),
  order: integer("order"),
  config: z.record(z.string(), z.unknown(), { error: "config must be a JSON object." }),
  name: z.string({ error: "name must be a string." }).max(400, "name must be at most 400 characters.").nullable(),
  description: z.string({ error: "description must be a string." }).max(2000, "description must be at most 2000 characters.").nullable(),
  deleted: z.boolean({ error: "deleted must be true or false." }),
};

/** POST: `plugin` is required; `order` defaults to after the project's last config. */
export const createConfigInput = z.object({
  plugin: integer("plugin"),
  enabled: writableFields.enabled.default(false),
  order: writableFields.order.optional(),
  config: writableFields.config.default({}),
  name: writableFields.name.optional(),
  description: writableFields.description.optional(),
  deleted: writableFields.deleted.default(false),
});
export type CreateConfig = z.output<typeof createConfigInput>;

/** PATCH: any writable field; `config` is merged into the stored one (secrets left out keep their value). */
export const updateConfigInput = z.object({
  plugin: integer("plugin").optional(),
  enabled: writableFields.enabled.optional(),
  order: writableFields.order.optional(),
  config: writableFields.config.optional(),
  name: writableFields.name.optional(),
  description: writableFields.description.optional(),
  deleted: writableFields.deleted.optional(),
});
export type UpdateConfig = z.output<typeof updateConfigInput>;

/** PATCH `rearrange/`: PostHog's body, new positions by config id. */
export const rearrangeInput = z.object({
  orders: z
    .record(z.string().regex(/^\d{1,10}$/, "orders keys must be config ids."), integer("order"), { error: "orders must be an object of {\"<config id>\": <order>}." })
    .refine((orders) => Object.keys(orders).length > 0, "orders must name at least one config.")
    .refine((orders) => Object.keys(orders).length <= 1000, "orders may name at most 1000 configs."),
});
export type Rearrange = z.output<typeof rearrangeInput>;

/** An event to try transformations on, in the shape the SDKs send. */
export const sampleEventInput = z.object({
  event: z.string({ error: "event must be a string." }).min(1, "event must not be empty.").max(200, "event must be at most 200 characters."),
  distinct_id: z.string({ error: "distinct_id must be a string." }).min(1).max(200).default("sample-user"),
  properties: z.record(z.string(), z.unknown(), { error: "properties must be a JSON object." }).default({}),
  timestamp: z.string().max(100).optional(),
  uuid: z.string().max(100).optional(),
});
export type SampleEvent = z.output<typeof sampleEventInput>;

export const DRY_RUN_LIMITS = { defaultEvents: 10, maxEvents: 100 } as const;

/** `POST …/:id/job/`: `{"job": {"type": "dry_run", "payload": {"events": [...]} | {"limit": n}}}`. */
export const jobInput = z.object({
  job: z.object(
    {
      type: z.string({ error: "job type must be a string." }).min(1).max(100),
      payload: z
        .object({
          events: z.array(sampleEventInput).min(1).max(DRY_RUN_LIMITS.maxEvents, `at most ${DRY_RUN_LIMITS.maxEvents} events.`).optional(),
          limit: z
            .number({ error: "limit must be an integer." })
            .int("limit must be an integer.")
            .min(1, "limit must be at least 1.")
            .max(DRY_RUN_LIMITS.maxEvents, `limit must be at most ${DRY_RUN_LIMITS.maxEvents}.`)
            .optional(),
        })
        .default({}),
    },
    { error: "job must be an object {type, payload}." },
  ),
});
export type Job = z.output<typeof jobInput>;

/** `GET …/:id/activity/?limit=10&page=1` (PostHog's paging of activity logs). */
export const activityQuery = z.object({
  limit: z.coerce.number({ error: "limit must be an integer." }).int("limit must be an integer.").min(1, "limit must be at least 1.").max(100, "limit must be at most 100.").default(10),
  page: z.coerce.number({ error: "page must be an integer." }).int("page must be an integer.").min(1, "page must be at least 1.").max(1_000_000).default(1),
});
export type ActivityQuery = z.infer<typeof activityQuery>;

// What the transformations API answers (the OpenAPI document's schemas; present.ts builds them).

/** A built-in transformation plugin (PostHog's PluginSerializer), with its config form. */
export const pluginSchema = z
  .object({
    id: z.number().int(),
    key: z.string(),
    plugin_type: z.string(),
    name: z.string(),
    description: z.string(),
    icon: z.string().nullable(),
    config_schema: z.unknown().describe("The config's fields, as PostHog's plugin.json `config` list."),
    capabilities: z.unknown(),
  })
  .meta({ id: "Plugin" });
export type PluginResource = z.infer<typeof pluginSchema>;

/** A transformation config (PostHog's PluginConfigSerializer); secret fields read as PostHog's mask. */
export const pluginConfigSchema = z
  .object({
    id: z.number().int(),
    plugin: z.number().int(),
    enabled: z.boolean(),
    order: z.number().int(),
    config: z.record(z.string(), z.unknown()),
    error: z.string().nullable(),
    team_id: z.number().int(),
    plugin_info: pluginSchema,
    /** Share of the events seen in the last 24 h that ran without error (0–1); null when it saw none. */
    delivery_rate_24h: z.number().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    name: z.string(),
    description: z.string(),
    deleted: z.boolean(),
  })
  .meta({ id: "PluginConfig" });
export type ConfigResource = z.infer<typeof pluginConfigSchema>;

export const activitySchema = z
  .object({
    id: z.string(),
    user: userBasicSchema.nullable(),
    activity: z.string(),
    scope: z.string(),
    item_id: z.string(),
    detail: z.unknown(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "ActivityLogEntry" });
export type ActivityResource = z.infer<typeof activitySchema>;

const runStatsSchema = z.object({ events_seen: z.number().int(), events_dropped: z.number().int(), errors: z.number().int() });
export type RunStatsResource = z.infer<typeof runStatsSchema>;
const hourlyRunSchema = runStatsSchema.extend({ hour: z.iso.datetime(), last_error: z.string().nullable() });
export type HourlyRunResource = z.infer<typeof hourlyRunSchema>;

/** `GET …/:id/activity/`: PostHog's activity envelope, with the config's run statistics (last 24 hours, and each hour newest first). */
export const activityAnswerSchema = z
  .object({
    results: z.array(activitySchema),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    total_count: z.number().int(),
    stats: z.object({ last_24h: runStatsSchema, hourly: z.array(hourlyRunSchema) }),
  })
  .meta({ id: "PluginConfigActivity" });
export type ActivityAnswer = z.infer<typeof activityAnswerSchema>;

const eventViewSchema = z.object({
  uuid: z.string(),
  event: z.string(),
  distinct_id: z.string(),
  properties: z.record(z.string(), z.unknown()),
  timestamp: z.iso.datetime(),
});
export type EventView = z.infer<typeof eventViewSchema>;

/** `POST …/:id/job/`: each event before and after the config ran on it (nothing is stored). */
export const jobAnswerSchema = z
  .object({
    job: z.object({ type: z.string() }),
    results: z.array(
      z.object({
        before: eventViewSchema,
        /** null when the transformation dropped the event. */
        after: eventViewSchema.nullable(),
        dropped: z.boolean(),
        error: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: "PluginConfigJobResult" });
export type DryRunResult = z.infer<typeof jobAnswerSchema>["results"][number];
