/**
 * Request and answer shapes of the experiments API (`/api/projects/:id/experiments/`) and its
 * holdouts (`…/experiment_holdouts/`), shared by REST and the pages. Field names are
 * PostHog's (ee/clickhouse/views/experiments.py, schema-general.ts `ExperimentMetric`,
 * POSTHOG-QUERY-NOTES §10, POSTHOG-PLATFORM-NOTES §4). Browser-safe.
 *
 * Metrics are kept as sent (PostHog stores the node JSON); the contract checks what results
 * read from them: funnel `series` and mean `source` EventsNodes with property filters.
 */
import { z } from "zod";
import { userBasicSchema } from "@/server/accounts/contract";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";
import { propertiesParamSchema } from "@/server/properties/contract";
import { FLAG_KEY_MESSAGE, FLAG_KEY_PATTERN, MAX_FLAG_KEY_LENGTH } from "@/server/flags/contract";

export const EXPERIMENT_LIMITS = {
  maxName: 400,
  maxDescription: 3000,
  maxMetrics: 10,
  maxSeries: 10,
  /** PostHog: fewer than 21 variants. */
  maxVariants: 20,
  maxProperties: 50,
} as const;

export const STATS_METHODS = ["bayesian", "frequentist"] as const;
export const MEAN_MATHS = ["total", "sum"] as const;
export const METRIC_GOALS = ["increase", "decrease"] as const;
export const MULTIPLE_VARIANT_HANDLING = ["exclude", "first_seen"] as const;
export const CONVERSION_WINDOW_UNITS = ["second", "minute", "hour", "day", "week", "month"] as const;

/** A list of property filters, checked like every other filter (and kept as sent). */
const propertyList = z
  .array(z.unknown(), { error: "properties must be a list of property filters." })
  .max(EXPERIMENT_LIMITS.maxProperties, `At most ${EXPERIMENT_LIMITS.maxProperties} property filters.`)
  .superRefine((list, ctx) => {
    const parsed = propertiesParamSchema.safeParse(list);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path.map((part) => part as string | number) });
  })
  .nullish()
  .transform((list) => list ?? []);

/** A property group object (`{type: "AND", values: […]}`), as an expanded ActionsNode holds one; kept as sent. */
const propertyGroupObject = z.looseObject({ type: z.enum(["AND", "OR"]), values: z.array(z.unknown()) }).superRefine((group, ctx) => {
  const parsed = propertiesParamSchema.safeParse(group);
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path.map((part) => part as string | number) });
});

const eventName = z.string({ error: "event must be a string." }).min(1, "event must not be empty.").max(200, "event is at most 200 characters.");

/**
 * A metric's source: an EventsNode (one event, null: any), or an ActionsNode naming one of the
 * project's actions — the query API expands it (query/actions-node.ts) into an EventsNode of any
 * event with the action's steps as a property group, so `properties` may be a group too.
 */
export const metricEventsNodeSchema = z
  .object({
    kind: z.enum(["EventsNode", "ActionsNode"], { error: "Only EventsNode and ActionsNode sources are supported." }).default("EventsNode"),
    /** The action an ActionsNode names. */
    id: z.number({ error: "An ActionsNode needs the id of an action." }).int().positive().max(2147483647).nullish(),
    event: eventName.nullish().transform((value) => value ?? null),
    name: z.string().max(400).nullish(),
    custom_name: z.string().max(400).nullish(),
    properties: z.union([propertyList, propertyGroupObject]),
    math: z.enum(MEAN_MATHS, { error: `math must be one of ${MEAN_MATHS.join(", ")}.` }).nullish(),
    math_property: z.string().min(1).max(400).nullish(),
    /** Set by the expansion of an ActionsNode: the action the node reads. */
    action_id: z.number().int().positive().max(2147483647).nullish(),
  })
  .refine((node) => node.kind !== "ActionsNode" || typeof node.id === "number", { message: "An ActionsNode needs the id of an action.", path: ["id"] });
export type MetricEventsNode = z.output<typeof metricEventsNodeSchema>;

const metricBase = {
  kind: z.literal("ExperimentMetric", { error: "kind must be ExperimentMetric." }),
  uuid: z.string().max(100).nullish(),
  name: z.string().max(EXPERIMENT_LIMITS.maxName).nullish(),
  conversion_window: z.number().int().positive().max(100_000).nullish(),
  conversion_window_unit: z.enum(CONVERSION_WINDOW_UNITS).nullish(),
  goal: z.enum(METRIC_GOALS, { error: `goal must be one of ${METRIC_GOALS.join(", ")}.` }).nullish(),
  isSharedMetric: z.boolean().nullish(),
  sharedMetricId: z.number().int().nullish(),
  fingerprint: z.string().max(200).nullish(),
};

export const funnelMetricSchema = z.object({
  ...metricBase,
  metric_type: z.literal("funnel"),
  series: z.array(metricEventsNodeSchema, { error: "series must be a list of EventsNode or ActionsNode steps." }).min(1, "A funnel metric needs at least one step.").max(EXPERIMENT_LIMITS.maxSeries),
  funnel_order_type: z.enum(["ordered", "unordered"], { error: "funnel_order_type must be ordered or unordered." }).nullish(),
});

export const meanMetricSchema = z
  .object({ ...metricBase, metric_type: z.literal("mean"), source: metricEventsNodeSchema })
  .refine((metric) => metric.source.math !== "sum" || !!metric.source.math_property, { message: "A sum needs math_property.", path: ["source", "math_property"] });

/** PostHog's ExperimentMetric (funnel or mean; ratio and retention are not supported yet). */
export const experimentMetricSchema = z.discriminatedUnion("metric_type", [funnelMetricSchema, meanMetricSchema], {
  error: (issue) => (issue.code === "invalid_union" ? "metric_type must be funnel or mean." : undefined),
});
export type ExperimentMetric = z.output<typeof experimentMetricSchema>;

const metricList = z.array(experimentMetricSchema, { error: "Must be a list of ExperimentMetric." }).max(EXPERIMENT_LIMITS.maxMetrics, `At most ${EXPERIMENT_LIMITS.maxMetrics} metrics.`);

export const exposureCriteriaSchema = z.object({
  filterTestAccounts: z.boolean().nullish(),
  /** An event (ExperimentEventExposureConfig) or an action (ActionsNode) exposes; default `$feature_flag_called`. */
  exposure_config: z
    .union(
      [
        z.object({ kind: z.literal("ExperimentEventExposureConfig").default("ExperimentEventExposureConfig"), event: eventName, properties: propertyList }),
        z.object({ kind: z.literal("ActionsNode"), id: z.number({ error: "An ActionsNode needs the id of an action." }).int().positive().max(2147483647), name: z.string().max(400).nullish(), properties: propertyList }),
      ],
      { error: "exposure_config must be an ExperimentEventExposureConfig or an ActionsNode." },
    )
    .nullish(),
  multiple_variant_handling: z.enum(MULTIPLE_VARIANT_HANDLING, { error: `multiple_variant_handling must be one of ${MULTIPLE_VARIANT_HANDLING.join(", ")}.` }).nullish(),
});
export type ExposureCriteria = z.output<typeof exposureCriteriaSchema>;

export const variantSchema = z.object({
  key: z.string({ error: "A variant needs a key." }).min(1).max(MAX_FLAG_KEY_LENGTH).regex(FLAG_KEY_PATTERN, FLAG_KEY_MESSAGE),
  name: z.string().max(400).nullish(),
  rollout_percentage: z.number({ error: "rollout_percentage must be a number." }).min(0).max(100),
});
export type ExperimentVariant = z.output<typeof variantSchema>;

/** Free-form in PostHog; the variants (and the sample-size inputs the form saves) are read. */
export const parametersSchema = z.looseObject({
  feature_flag_variants: z
    .array(variantSchema, { error: "feature_flag_variants must be a list." })
    .max(EXPERIMENT_LIMITS.maxVariants, "Feature flag variants must be less than 21")
    .nullish(),
  minimum_detectable_effect: z.number().min(0).max(1000).nullish(),
  recommended_sample_size: z.number().min(0).nullish(),
});

export const statsConfigSchema = z.looseObject({
  method: z.unknown().optional(),
  ci_level: z.number().gt(0).lt(1).nullish(),
  alpha: z.number().gt(0).lt(1).nullish(),
});

export const SAVED_METRIC_TYPES = ["primary", "secondary"] as const;

/** `saved_metrics_ids`: the shared metrics an experiment reads, each primary (the default) or secondary. Replaces the links when given. */
export const savedMetricLinksSchema = z
  .array(
    z.object(
      {
        id: z.number({ error: "Saved metric must have an id" }).int().positive().max(2147483647),
        metadata: z.object({ type: z.enum(SAVED_METRIC_TYPES, { error: "Metadata must have a type key: primary or secondary." }) }, { error: "Metadata must be an object" }).nullish(),
      },
      { error: "Saved metric must be an object" },
    ),
    { error: "Saved metrics must be a list" },
  )
  .max(EXPERIMENT_LIMITS.maxMetrics * 2, `At most ${EXPERIMENT_LIMITS.maxMetrics * 2} saved metrics.`);
export type SavedMetricLink = z.output<typeof savedMetricLinksSchema>[number];

const dateField = z.iso.datetime({ offset: true, error: "Must be an ISO 8601 date." }).nullish();
const name = z.string({ error: (issue) => (issue.input === undefined ? "This field is required." : "Not a valid string.") }).min(1, "This field may not be blank.").max(EXPERIMENT_LIMITS.maxName);
const description = z.string({ error: "Not a valid string." }).max(EXPERIMENT_LIMITS.maxDescription).nullish();

const writable = {
  description,
  start_date: dateField,
  end_date: dateField,
  holdout_id: z.number({ error: "holdout_id must be an id." }).int().positive().max(2147483647).nullish(),
  parameters: parametersSchema.nullish(),
  metrics: metricList.nullish(),
  metrics_secondary: metricList.nullish(),
  secondary_metrics: z.array(z.unknown()).max(EXPERIMENT_LIMITS.maxMetrics).nullish(),
  exposure_criteria: exposureCriteriaSchema.nullish(),
  saved_metrics_ids: savedMetricLinksSchema.nullish(),
  stats_config: statsConfigSchema.nullish(),
  filters: z.record(z.string(), z.unknown()).nullish(),
  archived: drfBoolean.optional(),
  type: z.enum(["product", "web"]).nullish(),
  conclusion: z.enum(["won", "lost", "inconclusive", "stopped_early", "invalid"]).nullish(),
  conclusion_comment: z.string().max(EXPERIMENT_LIMITS.maxDescription).nullish(),
};

const datesInOrder = (body: { start_date?: string | null; end_date?: string | null }) => !body.start_date || !body.end_date || new Date(body.start_date) < new Date(body.end_date);

/** `POST …/experiments/`. Unknown fields are ignored, as DRF does. */
export const experimentCreateBody = z
  .object({
    name,
    feature_flag_key: z.string({ error: (issue) => (issue.input === undefined ? "This field is required." : "Not a valid string.") }).min(1).max(MAX_FLAG_KEY_LENGTH).regex(FLAG_KEY_PATTERN, FLAG_KEY_MESSAGE),
    ...writable,
  })
  .refine(datesInOrder, { message: "End date must be after start date", path: ["end_date"] });
export type ExperimentCreateBody = z.output<typeof experimentCreateBody>;
export type ExperimentCreateInput = z.input<typeof experimentCreateBody>;

/** `PATCH …/experiments/:id/`: the given fields change; `deleted: true` is the soft delete (DELETE is 405). */
export const experimentUpdateBody = z
  .object({
    name: name.optional(),
    /** Present only to refuse a change (PostHog: the key of an experiment's flag is fixed). */
    feature_flag_key: z.string().max(MAX_FLAG_KEY_LENGTH).optional(),
    deleted: drfBoolean.optional(),
    ...writable,
  })
  .refine(datesInOrder, { message: "End date must be after start date", path: ["end_date"] });
export type ExperimentUpdateBody = z.output<typeof experimentUpdateBody>;

export const experimentListQuery = pageQuery.extend({
  archived: drfBoolean.optional(),
  search: z.string().max(400, "search must be at most 400 characters.").optional(),
});
export type ExperimentListQuery = z.output<typeof experimentListQuery>;

/** `POST …/experiments/:id/ship_variant/` (POSTHOG-PLATFORM-NOTES §4.7). */
export const shipVariantBody = z.object({
  variant_key: z.string({ error: "variant_key is required." }).min(1).max(MAX_FLAG_KEY_LENGTH),
  conclusion: writable.conclusion,
  conclusion_comment: writable.conclusion_comment,
  release_to_everyone: z.boolean().nullish(),
});
export type ShipVariantBody = z.output<typeof shipVariantBody>;

const minimalFlag = z.object({
  id: z.number().int(),
  team_id: z.number().int(),
  name: z.string(),
  key: z.string(),
  active: z.boolean(),
  deleted: z.boolean(),
  filters: z.record(z.string(), z.unknown()),
  ensure_experience_continuity: z.boolean(),
});

/** A shared metric as an experiment shows it (PostHog's ExperimentToSavedMetricSerializer): the link, with the metric's query and name. */
const experimentSavedMetricLinkSchema = z.object({
  id: z.number().int(),
  experiment: z.number().int(),
  saved_metric: z.number().int(),
  metadata: z.object({ type: z.enum(SAVED_METRIC_TYPES) }),
  created_at: z.string(),
  query: z.record(z.string(), z.unknown()),
  name: z.string(),
});

/** An experiment as PostHog's ExperimentSerializer shows it; present.ts builds it. */
export const experimentSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
    feature_flag_key: z.string(),
    feature_flag: minimalFlag,
    holdout: z.object({ id: z.number().int(), name: z.string(), description: z.string(), filters: z.array(z.unknown()) }).nullable(),
    holdout_id: z.number().int().nullable(),
    exposure_cohort: z.null(),
    parameters: z.record(z.string(), z.unknown()),
    secondary_metrics: z.array(z.unknown()),
    saved_metrics: z.array(experimentSavedMetricLinkSchema),
    saved_metrics_ids: z.array(z.object({ id: z.number().int(), metadata: z.object({ type: z.enum(SAVED_METRIC_TYPES) }) })),
    filters: z.record(z.string(), z.unknown()),
    archived: z.boolean(),
    deleted: z.boolean(),
    created_by: userBasicSchema.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    type: z.string(),
    exposure_criteria: z.record(z.string(), z.unknown()),
    metrics: z.array(z.unknown()),
    metrics_secondary: z.array(z.unknown()),
    stats_config: z.record(z.string(), z.unknown()),
    conclusion: z.string().nullable(),
    conclusion_comment: z.string().nullable(),
    primary_metrics_ordered_uuids: z.array(z.string()).nullable(),
    secondary_metrics_ordered_uuids: z.array(z.string()).nullable(),
    user_access_level: z.literal("editor"),
  })
  .meta({ id: "Experiment" });
export type ExperimentResource = z.infer<typeof experimentSchema>;

/** A holdout's filters: PostHog requires a rollout percentage on each entry. */
export const holdoutFiltersSchema = z
  .array(
    z.object({
      properties: propertyList,
      rollout_percentage: z.number({ error: "rollout_percentage is required." }).min(0, "rollout_percentage must be between 0 and 100.").max(100, "rollout_percentage must be between 0 and 100."),
    }),
    { error: "filters must be a list." },
  )
  .min(1, "Filters are required to create an holdout group")
  .max(10);

export const holdoutCreateBody = z.object({ name, description, filters: holdoutFiltersSchema });
export type HoldoutCreateBody = z.output<typeof holdoutCreateBody>;
export const holdoutUpdateBody = z.object({ name: name.optional(), description, filters: holdoutFiltersSchema.optional() });
export type HoldoutUpdateBody = z.output<typeof holdoutUpdateBody>;

export const holdoutSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    filters: z.array(z.object({ properties: z.array(z.unknown()), rollout_percentage: z.number(), variant: z.string() })),
    created_by: userBasicSchema.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "ExperimentHoldout" });
export type HoldoutResource = z.infer<typeof holdoutSchema>;

/** The variant a holdout's members get from every flag of its experiments (PostHog's value). */
export const holdoutVariant = (id: number) => `holdout-${id}`;

/** A shared metric's `query`: an ExperimentMetric (PostHog also keeps legacy trends/funnels kinds, which Burrow does not read). */
const savedMetricQuery = z.unknown().superRefine((value, ctx) => {
  if (value === undefined || value === null || (typeof value === "object" && Object.keys(value).length === 0)) {
    ctx.addIssue({ code: "custom", message: "Query is required to create a saved metric" });
    return;
  }
  const parsed = experimentMetricSchema.safeParse(value);
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path.map((part) => part as string | number) });
});
const tags = z.array(z.string({ error: "A tag is a string." }).min(1).max(255), { error: "tags must be a list of strings." }).max(50, "At most 50 tags.");

/** `POST …/experiment_saved_metrics/`. The query is kept as sent once checked. */
export const savedMetricCreateBody = z.object({ name, description, query: savedMetricQuery, tags: tags.nullish() });
export type SavedMetricCreateBody = z.output<typeof savedMetricCreateBody>;
export type SavedMetricCreateInput = z.input<typeof savedMetricCreateBody>;
export const savedMetricUpdateBody = z.object({ name: name.optional(), description, query: savedMetricQuery.optional(), tags: tags.nullish() });
export type SavedMetricUpdateBody = z.output<typeof savedMetricUpdateBody>;

export const savedMetricSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    query: z.record(z.string(), z.unknown()),
    tags: z.array(z.string()),
    created_by: userBasicSchema.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    user_access_level: z.literal("editor"),
  })
  .meta({ id: "ExperimentSavedMetric" });
export type SavedMetricResource = z.infer<typeof savedMetricSchema>;

/** Which live experiments read a shared metric (the pages' delete confirmation; not a PostHog endpoint). */
export const savedMetricUsageSchema = z.object({ experiments: z.array(z.object({ id: z.number().int(), name: z.string() })) });
export type SavedMetricUsage = z.infer<typeof savedMetricUsageSchema>;
