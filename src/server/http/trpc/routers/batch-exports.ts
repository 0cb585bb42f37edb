import { z } from "zod";
import { backfillCreateBody, batchExportCreateBody, batchExportUpdateBody, runListQuery } from "@/server/batch-exports/contract";
import { createBackfill, createBatchExport, deleteBatchExport, getBatchExport, listBackfills, listBatchExports, listRuns, retryRun, updateBatchExport } from "@/server/batch-exports/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const exportId = z.object({ id: z.uuid("Not a batch export id.") });

/** The batch exports pages: the REST resource's operations over the same service and schemas. */
export const batchExportsRouter = createTRPCRouter({
  list: projectProcedure.query(({ ctx }) => listBatchExports(ctx, { offset: 0, limit: 1000 })),
  get: projectProcedure.input(exportId).query(({ ctx, input }) => getBatchExport(ctx, input.id)),
  create: projectProcedure.input(z.object({ batchExport: batchExportCreateBody })).mutation(({ ctx, input }) => createBatchExport(ctx, input.batchExport)),
  update: projectProcedure.input(exportId.extend({ patch: batchExportUpdateBody })).mutation(({ ctx, input }) => updateBatchExport(ctx, input.id, input.patch)),
  delete: projectProcedure.input(exportId).mutation(({ ctx, input }) => deleteBatchExport(ctx, input.id)),
  runs: projectProcedure.input(exportId.extend({ query: runListQuery })).query(({ ctx, input }) => listRuns(ctx, input.id, input.query)),
  retryRun: projectProcedure.input(exportId.extend({ runId: z.uuid() })).mutation(({ ctx, input }) => retryRun(ctx, input.id, input.runId)),
  backfills: projectProcedure.input(exportId).query(({ ctx, input }) => listBackfills(ctx, input.id, { offset: 0, limit: 100 })),
  backfill: projectProcedure.input(exportId.extend({ backfill: backfillCreateBody })).mutation(({ ctx, input }) => createBackfill(ctx, input.id, input.backfill)),
});
