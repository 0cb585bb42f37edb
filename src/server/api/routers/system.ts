import { systemStatusSchema } from "@/server/system/contract";
import { getSystemStatus } from "@/server/system/service";
import { createTRPCRouter, publicProcedure } from "../trpc";

export const systemRouter = createTRPCRouter({
  // Public until auth exists; move to protectedProcedure then (it names the database).
  status: publicProcedure.output(systemStatusSchema).query(({ ctx }) => getSystemStatus(ctx.db)),
});
