import { z } from "zod";
import { actionCreateBody, actionListQuery, actionUpdateBody } from "@/server/actions/contract";
import { createAction, getAction, listActions, updateAction } from "@/server/actions/service";
import { recordId } from "@/server/input/record-id";
import { createTRPCRouter, projectProcedure } from "../trpc";

const actionId = z.object({ id: recordId() });

/** The actions page: the REST resource's operations over the same service and schemas. */
export const actionsRouter = createTRPCRouter({
  list: projectProcedure.input(actionListQuery).query(({ ctx, input }) => listActions(ctx, input)),
  get: projectProcedure.input(actionId).query(({ ctx, input }) => getAction(ctx, input.id)),
  create: projectProcedure.input(z.object({ action: actionCreateBody })).mutation(({ ctx, input }) => createAction(ctx, input.action)),
  update: projectProcedure.input(actionId.extend({ patch: actionUpdateBody })).mutation(({ ctx, input }) => updateAction(ctx, input.id, input.patch)),
  /** Soft delete (PATCH `deleted: true`). */
  delete: projectProcedure.input(actionId).mutation(({ ctx, input }) => updateAction(ctx, input.id, { deleted: true })),
});
