import { z } from "zod";
import { alertCreateBody, alertListQuery, alertUpdateBody } from "@/server/alerts/contract";
import { checkAlertNow, createAlert, deleteAlert, getAlert, listAlerts, updateAlert } from "@/server/alerts/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const alertId = z.object({ id: z.uuid("Not an alert id.") });

/** The alerts page and the insight's alerts control: the REST resource's operations over the same service and schemas. */
export const alertsRouter = createTRPCRouter({
  list: projectProcedure.input(alertListQuery).query(({ ctx, input }) => listAlerts(ctx, input)),
  get: projectProcedure.input(alertId.extend({ checksLimit: z.number().int().min(0).max(50).optional() })).query(({ ctx, input }) => getAlert(ctx, input.id, input.checksLimit ?? 20)),
  create: projectProcedure.input(z.object({ alert: alertCreateBody })).mutation(({ ctx, input }) => createAlert(ctx, input.alert)),
  update: projectProcedure.input(alertId.extend({ patch: alertUpdateBody })).mutation(({ ctx, input }) => updateAlert(ctx, input.id, input.patch)),
  delete: projectProcedure.input(alertId).mutation(({ ctx, input }) => deleteAlert(ctx, input.id)),
  checkNow: projectProcedure.input(alertId).mutation(({ ctx, input }) => checkAlertNow(ctx, input.id)),
});
