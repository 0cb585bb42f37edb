import { z } from "zod";
import { surveyCreateBody, surveyListQuery, surveyResultsQuery, surveyUpdateBody } from "@/server/surveys/contract";
import { createSurvey, deleteSurvey, getSurvey, listSurveys, surveyResults, updateSurvey } from "@/server/surveys/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const surveyId = z.object({ id: z.string().max(64) });

/** The surveys pages: the REST resource's operations over the same service and schemas. */
export const surveysRouter = createTRPCRouter({
  list: projectProcedure.input(surveyListQuery).query(({ ctx, input }) => listSurveys(ctx, input)),
  get: projectProcedure.input(surveyId).query(({ ctx, input }) => getSurvey(ctx, input.id)),
  create: projectProcedure.input(z.object({ survey: surveyCreateBody })).mutation(({ ctx, input }) => createSurvey(ctx, input.survey)),
  update: projectProcedure.input(surveyId.extend({ patch: surveyUpdateBody })).mutation(({ ctx, input }) => updateSurvey(ctx, input.id, input.patch)),
  delete: projectProcedure.input(surveyId).mutation(async ({ ctx, input }) => {
    await deleteSurvey(ctx, input.id);
    return { success: true as const };
  }),
  results: projectProcedure.input(surveyId.extend({ query: surveyResultsQuery })).query(({ ctx, input }) => surveyResults(ctx, input.id, input.query)),
});
