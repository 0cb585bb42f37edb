/**
 * PostHog's `ExperimentQuery` on the query API (POST …/query/ with
 * `{kind: "ExperimentQuery", metric, experiment_id}`): each variant's exposures and
 * conversions or means, aggregated in the event store (db/events/experiment-tally/), compared with the control (statistics.ts), in PostHog's
 * new result shape `{baseline, variant_results}`, plus Burrow's sample-ratio-mismatch check
 * on the exposures against the flag's split (`srm`) and the exposure counts (`exposures`).
 */
import { z } from "zod";
import { parseNode, QueryNodeError, type QueryEnv, type QueryKind } from "@/server/analytics/kind";
import { MULTIPLE_VARIANT_KEY, type EventMatcher, type ExperimentTally, type ExperimentTallyMetric } from "@/server/db/events";
import { projectTestAccountFilters } from "@/server/accounts/service";
import { actionDefinitions } from "@/server/actions/service";
import { AppError } from "@/server/errors";
import { WINDOW_UNIT_SECONDS } from "@/server/funnels/contract";
import { propertiesParamSchema, type PropertyGroup } from "@/server/properties/contract";
import { experimentMetricSchema, type ExperimentMetric, type ExposureCriteria, type MetricEventsNode } from "./contract";
import { sampleRatioMismatch } from "./planning";
import { flagVariants } from "./present";
import { experimentStatistics, statsMethod } from "./statistics";
import * as store from "./store";

export const DEFAULT_EXPOSURE_EVENT = "$feature_flag_called";

const experimentQuerySchema = z.looseObject({
  kind: z.literal("ExperimentQuery"),
  metric: experimentMetricSchema,
  experiment_id: z.number({ error: "experiment_id is required." }).int().positive().max(2147483647),
  name: z.string().max(400).nullish(),
});

export interface ExperimentSpec {
  experimentId: number;
  metric: ExperimentMetric;
}

const groupOf = (properties: unknown): PropertyGroup[] => {
  const group = propertiesParamSchema.parse(properties);
  return group.values.length > 0 ? [group] : [];
};
const matcherOf = (node: MetricEventsNode): EventMatcher => {
  // The query API expands every ActionsNode before a kind reads it (query/actions-node.ts)
  if (node.kind === "ActionsNode") throw new QueryNodeError("An ActionsNode must be expanded before it is read.", ["metric"]);
  return { event: node.event, filters: groupOf(node.properties) };
};

function windowMs(metric: ExperimentMetric): number | null {
  if (!metric.conversion_window) return null;
  return metric.conversion_window * WINDOW_UNIT_SECONDS[metric.conversion_window_unit ?? "day"] * 1000;
}

/**
 * The exposure matcher and the property holding the variant (PostHog: `$feature_flag_response`,
 * or `$feature/<key>` for a custom event or action). An action exposes with any of its events,
 * its steps ANDed to the config's properties; an action deleted since is a 400.
 */
async function exposureOf(env: QueryEnv, criteria: ExposureCriteria, flagKey: string): Promise<{ matcher: EventMatcher; variantKey: string }> {
  const custom = criteria.exposure_config;
  const variantKey = `$feature/${flagKey}`;
  if (custom?.kind === "ActionsNode") {
    const definition = (await actionDefinitions(env.db.prisma, env.projectId, [custom.id]).catch((error: unknown) => {
      throw error instanceof AppError ? new AppError("invalid_input", `The exposure's action ${custom.id} does not exist.`, "exposure_criteria") : error;
    })).get(custom.id)!;
    return { matcher: { event: null, filters: [...groupOf(custom.properties ?? []), definition.tree] }, variantKey };
  }
  if (custom) return { matcher: { event: custom.event, filters: groupOf(custom.properties) }, variantKey };
  return { matcher: { event: DEFAULT_EXPOSURE_EVENT, filters: groupOf([{ key: "$feature_flag", value: flagKey, operator: "exact", type: "event" }]) }, variantKey: "$feature_flag_response" };
}

const record = (value: unknown) => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

export const experimentQueryKind: QueryKind<ExperimentSpec> = {
  kind: "ExperimentQuery",
  spec(node) {
    const parsed = parseNode(experimentQuerySchema, node);
    return { experimentId: parsed.experiment_id, metric: parsed.metric };
  },
  async check() {},
  // Dates, variants, exposure and statistics settings live on the experiment and its flag, not in the node.
  async cacheVersion(env: QueryEnv, spec: ExperimentSpec) {
    const row = await store.findExperimentForResults(env.db.prisma, env.projectId, spec.experimentId);
    if (!row) return "missing";
    // An exposure action's steps and the project's test account filters are not in the node either
    const criteria = record(row.exposureCriteria) as ExposureCriteria;
    const action = criteria.exposure_config?.kind === "ActionsNode" ? `.${JSON.stringify((await exposureOf(env, criteria, row.featureFlag.key).catch(() => null))?.matcher ?? null)}` : "";
    const testAccounts = criteria.filterTestAccounts ? `.${JSON.stringify(await projectTestAccountFilters(env.db.prisma, env.projectId))}` : "";
    return `${row.updatedAt.getTime()}.${row.featureFlag.version}${action}${testAccounts}`;
  },
  async compute(env: QueryEnv, spec: ExperimentSpec) {
    const row = await store.findExperimentForResults(env.db.prisma, env.projectId, spec.experimentId);
    if (!row || row.deleted) throw new QueryNodeError(`Experiment ${spec.experimentId} does not exist.`, ["experiment_id"], true);
    const variants = flagVariants(row);
    if (variants.length === 0 || variants[0]!.key !== "control") throw new AppError("invalid_input", "The experiment's flag has no control variant.", "query");
    const criteria = record(row.exposureCriteria) as ExposureCriteria;
    const exposure = await exposureOf(env, criteria, row.featureFlag.key);
    const metric = spec.metric;
    const from = row.startDate ?? row.createdAt;
    const to = row.endDate ?? env.now;
    const tallyMetric: ExperimentTallyMetric =
      metric.metric_type === "funnel"
        ? { type: "funnel", steps: metric.series.map(matcherOf), ordered: metric.funnel_order_type !== "unordered", windowMs: windowMs(metric) }
        : {
            type: "mean",
            source: matcherOf(metric.source),
            math: metric.source.math === "sum" ? "sum" : "total",
            property: metric.source.math === "sum" ? metric.source.math_property! : null,
            windowMs: windowMs(metric),
          };
    const tally: ExperimentTally =
      to < from
        ? { variants: variants.map((variant) => ({ key: variant.key, number_of_samples: 0, sum: 0, sum_squares: 0, ...(tallyMetric.type === "funnel" ? { step_counts: new Array<number>(tallyMetric.steps.length + 1).fill(0) } : {}) })), multiple: 0 }
        : await env.db.events.experimentTally(env.projectId, {
            from,
            to,
            now: env.now,
            // PostHog's filterTestAccounts: the project's test account filters hold for every event read, exposures and metric events alike
            filters: criteria.filterTestAccounts ? groupOf(await projectTestAccountFilters(env.db.prisma, env.projectId)) : [],
            exposure: exposure.matcher,
            variantKey: exposure.variantKey,
            variants: variants.map((variant) => variant.key),
            handling: criteria.multiple_variant_handling === "first_seen" ? "first_seen" : "exclude",
            metric: tallyMetric,
          });
    const stats = record(row.statsConfig);
    const [baseline, ...others] = tally.variants;
    const result = experimentStatistics(metric.metric_type, baseline!, others, {
      method: statsMethod(stats.method),
      ciLevel: typeof stats.ci_level === "number" ? stats.ci_level : undefined,
      alpha: typeof stats.alpha === "number" ? stats.alpha : undefined,
      inverse: metric.goal === "decrease",
    });
    // step_counts ride along on the funnel's rows, as PostHog's do
    const withSteps = <T extends { key: string }>(entry: T) => ({ ...entry, ...(tally.variants.find((v) => v.key === entry.key)?.step_counts ? { step_counts: tally.variants.find((v) => v.key === entry.key)!.step_counts } : {}) });
    const exposures = Object.fromEntries(tally.variants.map((variant) => [variant.key, variant.number_of_samples]));
    const srm = sampleRatioMismatch(exposures, Object.fromEntries(variants.map((variant) => [variant.key, variant.rollout_percentage])));
    return {
      results: null,
      range: { from, to },
      extra: {
        kind: "ExperimentQuery",
        metric,
        baseline: withSteps(result.baseline),
        variant_results: result.variant_results.map(withSteps),
        stats_version: 2,
        exposures: { ...exposures, [MULTIPLE_VARIANT_KEY]: tally.multiple },
        srm,
      },
      weight: tally.variants.length + 1,
    };
  },
};
