import { z } from "zod";
import { experimentCreateBody, experimentListQuery, experimentUpdateBody, savedMetricCreateBody, savedMetricUpdateBody, shipVariantBody } from "@/server/experiments/contract";
import { experimentMetrics } from "@/server/experiments/present";
import { createSavedMetric, deleteSavedMetric, listSavedMetrics, savedMetricUsage, updateSavedMetric } from "@/server/experiments/saved-metrics";
import { createExperiment, getExperiment, listExperiments, shipVariant, updateExperiment } from "@/server/experiments/service";
import { recordId } from "@/server/input/record-id";
import { parseQueryRequest, runQuery } from "@/server/query/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const experimentId = z.object({ id: recordId() });

/** The experiments pages: the REST resource's operations over the same service and schemas, and results through the query API. */
export const experimentsRouter = createTRPCRouter({
  list: projectProcedure.input(experimentListQuery).query(({ ctx, input }) => listExperiments(ctx, input)),
  get: projectProcedure.input(experimentId).query(({ ctx, input }) => getExperiment(ctx, input.id)),
  create: projectProcedure.input(z.object({ experiment: experimentCreateBody })).mutation(({ ctx, input }) => createExperiment(ctx, input.experiment)),
  update: projectProcedure.input(experimentId.extend({ patch: experimentUpdateBody })).mutation(({ ctx, input }) => updateExperiment(ctx, input.id, input.patch)),
  ship: projectProcedure.input(experimentId.extend({ ship: shipVariantBody })).mutation(({ ctx, input }) => shipVariant(ctx, input.id, input.ship)),
  /** Shared metrics, for the form's picker and the page that creates, edits and deletes them. */
  savedMetrics: projectProcedure.query(({ ctx }) => listSavedMetrics(ctx)),
  createSavedMetric: projectProcedure.input(z.object({ metric: savedMetricCreateBody })).mutation(({ ctx, input }) => createSavedMetric(ctx, input.metric)),
  updateSavedMetric: projectProcedure.input(experimentId.extend({ patch: savedMetricUpdateBody })).mutation(({ ctx, input }) => updateSavedMetric(ctx, input.id, input.patch)),
  /** The experiments a deletion would remove the metric from, for its confirmation. */
  savedMetricUsage: projectProcedure.input(experimentId).query(({ ctx, input }) => savedMetricUsage(ctx, input.id)),
  deleteSavedMetric: projectProcedure.input(experimentId).mutation(({ ctx, input }) => deleteSavedMetric(ctx, input.id)),
  /** One metric's results (`ExperimentQuery`), recomputed: the page shows what the events say now. Its own metrics come first, then its shared ones. */
  results: projectProcedure
    .input(experimentId.extend({ secondary: z.boolean().default(false), index: z.number().int().min(0).max(40).default(0) }))
    .query(async ({ ctx, input }) => {
      const experiment = await getExperiment(ctx, input.id);
      const metric = experimentMetrics(experiment, input.secondary)[input.index];
      if (!metric) return null;
      return runQuery(ctx, parseQueryRequest({ query: { kind: "ExperimentQuery", experiment_id: experiment.id, metric }, refresh: "force_blocking" }));
    }),
});
