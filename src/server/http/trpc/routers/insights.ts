import { z } from "zod";
import { recordId } from "@/server/input/record-id";
import { filtersOverrideSchema, insightCreateBody, insightListQuery, insightUpdateBody } from "@/server/insights/contract";
import { computeResult, createInsight, getInsight, listInsights, updateInsight } from "@/server/insights/service";
import { insightChartPng } from "@/server/subscriptions/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const insightId = z.object({ insightId: recordId() });
const refresh = z.enum(["force", "blocking", "cache_only"]).optional();

/**
 * Insights for the dashboard tiles and editors: the REST API's contracts and services, so
 * validation, caching and results are the same on both.
 */
export const insightsRouter = createTRPCRouter({
  list: projectProcedure.input(insightListQuery).query(({ ctx, input }) => listInsights(ctx, input)),

  /** "Export PNG": the chart drawn on the server (as subscriptions send it), base64 in JSON. */
  chartPng: projectProcedure.input(insightId).mutation(async ({ ctx, input }) => {
    const { fileName, png } = await insightChartPng(ctx, input.insightId);
    return { fileName, base64: png.toString("base64") };
  }),

  /** One insight with its result; `dashboardId` lays that dashboard's filters (and its tile's) over it. */
  get: projectProcedure
    .input(insightId.extend({ refresh, dashboardId: recordId().optional(), filtersOverride: filtersOverrideSchema.nullish() }))
    .query(({ ctx, input }) =>
      getInsight(ctx, input.insightId, { refresh: input.refresh, fromDashboard: input.dashboardId, filtersOverride: input.filtersOverride ?? null }),
    ),

  /**
   * A result alone: of a saved insight (`insightId`, optionally as shown on `dashboardId`) or
   * of an unsaved query (`query`, e.g. while editing), cached as the REST API's.
   */
  compute: projectProcedure
    .input(
      z.object({
        insightId: recordId().optional(),
        query: z.unknown().optional(),
        dashboardId: recordId().optional(),
        filtersOverride: filtersOverrideSchema.nullish(),
        refresh,
      }),
    )
    .query(({ ctx, input }) => computeResult(ctx, input)),

  create: projectProcedure.input(insightCreateBody).mutation(({ ctx, input }) => {
    const { projectId: _project, ...body } = input;
    return createInsight(ctx, body);
  }),

  /** Edits, soft delete (`deleted: true`) and restore (`deleted: false`). */
  update: projectProcedure
    .input(insightId)
    .input(insightUpdateBody)
    .mutation(({ ctx, input }) => {
      const { projectId: _project, insightId: id, ...body } = input;
      return updateInsight(ctx, id, body);
    }),
});
