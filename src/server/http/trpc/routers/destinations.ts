import { z } from "zod";
import { hogFunctionCreateBody, hogFunctionListQuery, hogFunctionLogsQuery, hogFunctionUpdateBody } from "@/server/destinations/contract";
import { createHogFunction, getHogFunction, hogFunctionDeliveries, hogFunctionMetricTotals, listHogFunctions, updateHogFunction } from "@/server/destinations/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const destinationId = z.object({ id: z.uuid("Not a destination id.") });

/** The destinations page: the REST resource's operations over the same service and schemas. */
export const destinationsRouter = createTRPCRouter({
  list: projectProcedure.input(hogFunctionListQuery).query(({ ctx, input }) => listHogFunctions(ctx, input)),
  get: projectProcedure.input(destinationId).query(({ ctx, input }) => getHogFunction(ctx, input.id)),
  create: projectProcedure.input(z.object({ destination: hogFunctionCreateBody })).mutation(({ ctx, input }) => createHogFunction(ctx, input.destination)),
  update: projectProcedure.input(destinationId.extend({ patch: hogFunctionUpdateBody })).mutation(({ ctx, input }) => updateHogFunction(ctx, input.id, input.patch)),
  /** Soft delete (PATCH `deleted: true`). */
  delete: projectProcedure.input(destinationId).mutation(({ ctx, input }) => updateHogFunction(ctx, input.id, { deleted: true })),
  deliveries: projectProcedure.input(destinationId.extend({ query: hogFunctionLogsQuery })).query(({ ctx, input }) => hogFunctionDeliveries(ctx, input.id, input.query)),
  totals: projectProcedure.input(destinationId).query(({ ctx, input }) => hogFunctionMetricTotals(ctx, input.id, { after: "-7d", interval: "day", breakdown_by: "kind" })),
});
