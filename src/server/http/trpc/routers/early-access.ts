import { z } from "zod";
import { eafCreateBody, eafListQuery, eafUpdateBody } from "@/server/early-access/contract";
import { createFeature, deleteFeature, enrolledPersons, listFeatures, updateFeature } from "@/server/early-access/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const featureId = z.object({ id: z.string().max(64) });

/** The early-access page: the REST resource's operations, and each feature's enrolled persons. */
export const earlyAccessRouter = createTRPCRouter({
  list: projectProcedure.input(eafListQuery).query(({ ctx, input }) => listFeatures(ctx, input)),
  create: projectProcedure.input(z.object({ feature: eafCreateBody })).mutation(({ ctx, input }) => createFeature(ctx, input.feature)),
  update: projectProcedure.input(featureId.extend({ patch: eafUpdateBody })).mutation(({ ctx, input }) => updateFeature(ctx, input.id, input.patch)),
  delete: projectProcedure.input(featureId).mutation(async ({ ctx, input }) => {
    await deleteFeature(ctx, input.id);
    return { success: true as const };
  }),
  enrolled: projectProcedure.input(featureId).query(({ ctx, input }) => enrolledPersons(ctx, input.id)),
});
