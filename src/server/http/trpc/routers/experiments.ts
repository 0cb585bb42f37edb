import { z } from "zod";
import { experimentCreateBody, experimentListQuery, experimentUpdateBody, shipVariantBody } from "@/server/experiments/contract";
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
  /** One metric's results (`ExperimentQuery`), recomputed: the page shows what the events say now. */
  results: projectProcedure
    .input(experimentId.extend({ secondary: z.boolean().default(false), index: z.number().int().min(0).max(20).default(0) }))
    .query(async ({ ctx, input }) => {
      const experiment = await getExperiment(ctx, input.id);
      const metric = (input.secondary ? experiment.metrics_secondary : experiment.metrics)[input.index];
      if (!metric) return null;
      return runQuery(ctx, parseQueryRequest({ query: { kind: "ExperimentQuery", experiment_id: experiment.id, metric }, refresh: "force_blocking" }));
    }),
});
