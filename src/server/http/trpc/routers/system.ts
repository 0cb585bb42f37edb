import { systemStatusSchema } from "@/server/system/contract";
import { getSystemStatus } from "@/server/system/service";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const systemRouter = createTRPCRouter({
  // Signed-in users only; the database line only for organization admins and owners.
  status: protectedProcedure.output(systemStatusSchema).query(({ ctx }) => getSystemStatus(ctx)),
});
