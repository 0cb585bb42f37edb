import { z } from "zod";
import { recordId } from "@/server/input/record-id";
import { subscriptionCreateBody, subscriptionListQuery, subscriptionUpdateBody } from "@/server/subscriptions/contract";
import { createSubscription, getSubscription, listSubscriptions, testDelivery, updateSubscription } from "@/server/subscriptions/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const subscriptionId = z.object({ id: recordId("Not a subscription id.") });

/** The Subscribe dialog on insights and dashboards: the REST resource's operations over the same service and schemas. */
export const subscriptionsRouter = createTRPCRouter({
  list: projectProcedure.input(subscriptionListQuery).query(({ ctx, input }) => listSubscriptions(ctx, input)),
  get: projectProcedure.input(subscriptionId).query(({ ctx, input }) => getSubscription(ctx, input.id)),
  create: projectProcedure.input(z.object({ subscription: subscriptionCreateBody })).mutation(({ ctx, input }) => createSubscription(ctx, input.subscription)),
  update: projectProcedure.input(subscriptionId.extend({ patch: subscriptionUpdateBody })).mutation(({ ctx, input }) => updateSubscription(ctx, input.id, input.patch)),
  /** Soft delete (PATCH `deleted: true`). */
  delete: projectProcedure.input(subscriptionId).mutation(({ ctx, input }) => updateSubscription(ctx, input.id, { deleted: true })),
  testDelivery: projectProcedure.input(subscriptionId).mutation(({ ctx, input }) => testDelivery(ctx, input.id)),
});
