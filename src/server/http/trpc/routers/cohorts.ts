import { z } from "zod";
import { addPersonsBody, cohortCreateFields, cohortListQuery, cohortPersonsQuery, cohortUpdateFields, removePersonBody } from "@/server/cohorts/contract";
import {
  addPersonsToStaticCohort,
  cohortPersons,
  createCohort,
  getCohort,
  listCohorts,
  removePersonFromStaticCohort,
  updateCohort,
} from "@/server/cohorts/service";
import { recordId } from "@/server/input/record-id";
import { createTRPCRouter, projectProcedure } from "../trpc";

const cohortId = z.object({ id: recordId() });

/**
 * The cohorts page: the REST resource's operations over the same service and schemas (a
 * static cohort's CSV goes to the REST resource as multipart, which tRPC's JSON cannot carry).
 */
export const cohortsRouter = createTRPCRouter({
  list: projectProcedure.input(cohortListQuery).query(({ ctx, input }) => listCohorts(ctx, input)),

  get: projectProcedure.input(cohortId).query(({ ctx, input }) => getCohort(ctx, input.id)),

  create: projectProcedure.input(z.object({ cohort: cohortCreateFields })).mutation(({ ctx, input }) => createCohort(ctx, input.cohort)),

  update: projectProcedure.input(cohortId.extend({ patch: cohortUpdateFields })).mutation(({ ctx, input }) => updateCohort(ctx, input.id, input.patch)),

  /** Soft delete (PATCH `deleted: true`), refused while an active flag uses the cohort. */
  delete: projectProcedure.input(cohortId).mutation(({ ctx, input }) => updateCohort(ctx, input.id, { deleted: true })),

  /** The members, as PostHog's person list items. */
  persons: projectProcedure.input(cohortId.extend(cohortPersonsQuery.shape)).query(({ ctx, input }) => cohortPersons(ctx, input.id, input)),

  addPersons: projectProcedure.input(cohortId.extend(addPersonsBody.shape)).mutation(({ ctx, input }) => addPersonsToStaticCohort(ctx, input.id, input)),

  removePerson: projectProcedure.input(cohortId.extend(removePersonBody.shape)).mutation(({ ctx, input }) => removePersonFromStaticCohort(ctx, input.id, input)),
});
