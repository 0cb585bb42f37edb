import { z } from "zod";
import { recordId } from "@/server/input/record-id";
import { activityQuery, createConfigInput, jobInput, rearrangeInput, sampleEventInput, updateConfigInput } from "@/server/transformations/contract";
import { activityAnswer } from "@/server/transformations/present";
import {
  configActivity,
  createConfig,
  deleteConfig,
  listAllConfigs,
  listPlugins,
  rearrangeConfigs,
  runJob,
  testChain,
  updateConfig,
} from "@/server/transformations/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const configId = z.object({ id: recordId() });

/** The pipeline page: the same contracts and services as the REST resource. */
export const transformationsRouter = createTRPCRouter({
  plugins: projectProcedure.query(({ ctx }) => listPlugins(ctx)),

  list: projectProcedure.query(({ ctx }) => listAllConfigs(ctx)),

  create: projectProcedure.input(createConfigInput).mutation(({ ctx, input }) => {
    const { projectId: _projectId, ...data } = input;
    return createConfig(ctx, data);
  }),

  update: projectProcedure.input(configId.extend({ changes: updateConfigInput })).mutation(({ ctx, input }) => updateConfig(ctx, input.id, input.changes)),

  delete: projectProcedure.input(configId).mutation(({ ctx, input }) => deleteConfig(ctx, input.id)),

  rearrange: projectProcedure.input(rearrangeInput).mutation(({ ctx, input }) => rearrangeConfigs(ctx, input)),

  // No URL to link to: `next`/`previous` stay null.
  activity: projectProcedure
    .input(configId.extend(activityQuery.shape))
    .query(async ({ ctx, input }) => activityAnswer(await configActivity(ctx, input.id, input), () => null)),

  dryRun: projectProcedure.input(configId.extend(jobInput.shape)).mutation(({ ctx, input }) => runJob(ctx, input.id, input)),

  testChain: projectProcedure.input(z.object({ event: sampleEventInput })).mutation(({ ctx, input }) => testChain(ctx, input.event)),
});
