import { liveVisitorsInput } from "@/server/live-visitors/contract";
import { countLiveVisitors } from "@/server/live-visitors/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

/** The web analytics page's extras beside the query API (its overview and tables run through `query.run`). */
export const webRouter = createTRPCRouter({
  liveVisitors: projectProcedure.input(liveVisitorsInput).query(({ ctx, input }) => countLiveVisitors(ctx, input)),
});
