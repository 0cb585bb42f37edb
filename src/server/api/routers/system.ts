import { systemStatusSchema } from "@/server/system/contract";
import { getSystemStatus } from "@/server/system/service";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const systemRouter = createTRPCRouter({
  // Signed-in users only: it names the database.
  status: protectedProcedure.output(systemStatusSchema).query(({ ctx }) => getSystemStatus(ctx.db)),
});
