import { testEventInput } from "@/server/install/contract";
import { sendTestEvent } from "@/server/install/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

/** First run: prove the install works without an SDK. */
export const installRouter = createTRPCRouter({
  sendTestEvent: projectProcedure.input(testEventInput).mutation(({ ctx, input }) => sendTestEvent(ctx, input)),
});
