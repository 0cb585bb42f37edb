import { z } from "zod";
import { parseQueryRequest, runQuery } from "@/server/query/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

/**
 * The query API for the app: any query node (an insight kind, HogQLQuery, ActorsQuery),
 * checked, cached and answered exactly as `POST …/query/`.
 */
export const queryRouter = createTRPCRouter({
  /** PostHog's QueryRequest (`query`, `refresh`, `filters_override`, …): the REST envelope back. */
  run: projectProcedure
    .input(z.object({ request: z.unknown() }))
    .query(({ ctx, input }) => runQuery(ctx, parseQueryRequest(input.request))),

  /**
   * The actors behind one point of an insight: `source` is an InsightActorsQuery or
   * FunnelsActorsQuery, paged by `limit`/`offset`, searched and ordered as ActorsQuery is.
   */
  actors: projectProcedure
    .input(
      z.object({
        source: z.unknown(),
        search: z.string().max(1_000).optional(),
        select: z.array(z.string().max(1_000)).max(50).optional(),
        orderBy: z.array(z.string().max(1_000)).max(10).optional(),
        limit: z.number().int().min(1).max(10_000).optional(),
        offset: z.number().int().min(0).max(2_147_483_647).optional(),
        refresh: z.enum(["blocking", "force_blocking"]).optional(),
      }),
    )
    .query(({ ctx, input }) => {
      const { refresh, ...actors } = input;
      return runQuery(ctx, parseQueryRequest({ query: { kind: "ActorsQuery", ...actors }, refresh }));
    }),
});
