import { z } from "zod";
import { recordId } from "@/server/input/record-id";
import { createFlagInput, flagListFilters, flagReachInput, testFlagInput, updateFlagInput } from "@/server/flags/contract";
import { cohortOptions, createFlag, deleteFlag, flagActivity, flagReach, flagTestGroupTypes, getFlag, listFlags, testFlagForUser, updateFlag } from "@/server/flags/service";
import { MAX_PAGE_SIZE } from "@/server/input/page";
import { createTRPCRouter, projectProcedure } from "../trpc";

const flagId = z.object({ id: recordId() });

/**
 * The feature-flags page: the REST resource's operations over the same service and
 * schemas, plus "test for a user", which asks the flag engine (the code /decide and /flags
 * run) what one distinct id gets and why.
 */
export const flagsRouter = createTRPCRouter({
  list: projectProcedure
    .input(flagListFilters.extend({ limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional(), offset: z.number().int().min(0).default(0) }))
    .query(({ ctx, input }) => listFlags(ctx, input)),

  get: projectProcedure.input(flagId).query(({ ctx, input }) => getFlag(ctx, input.id)),

  create: projectProcedure.input(z.object({ flag: createFlagInput })).mutation(({ ctx, input }) => createFlag(ctx, input.flag)),

  update: projectProcedure
    .input(flagId.extend({ patch: updateFlagInput }))
    .mutation(({ ctx, input }) => updateFlag(ctx, input.id, input.patch)),

  delete: projectProcedure.input(flagId).mutation(({ ctx, input }) => deleteFlag(ctx, input.id)),

  activity: projectProcedure.input(flagId).query(({ ctx, input }) => flagActivity(ctx, input.id)),

  /** The project's cohorts for the condition builder's cohort picker (read through flags' own store). */
  cohortOptions: projectProcedure.query(({ ctx }) => cohortOptions(ctx)),

  /** The group types the test box asks a key of: those the flag aggregates by. */
  testGroupTypes: projectProcedure.input(flagId).query(({ ctx, input }) => flagTestGroupTypes(ctx, input.id)),

  /** The saved flag's value for one distinct id and the groups given (stored properties overridden by the given ones), and why. */
  testForUser: projectProcedure.input(flagId.extend(testFlagInput.shape)).mutation(({ ctx, input }) => testFlagForUser(ctx, input.id, input)),

  /** "Will match about X% of users" for condition sets being edited. */
  reach: projectProcedure.input(flagReachInput).query(({ ctx, input }) => flagReach(ctx, input.filters)),
});
