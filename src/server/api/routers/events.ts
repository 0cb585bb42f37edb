import { z } from "zod";
import { eventFiltersInput, filterSearchParams } from "@/components/events/filter-params";
import { getEvent, listEventPage } from "@/server/events/api";
import { EVENT_LIMITS } from "@/server/events/params";
import { createTRPCRouter, projectProcedure } from "../trpc";

/**
 * The events explorer: the REST list's filters (parsed by its own `parseListQuery`, so a
 * bad `after` or property filter is the same 400 here as there) and one event with its person.
 */
export const eventsRouter = createTRPCRouter({
  list: projectProcedure
    .input(
      eventFiltersInput.extend({
        limit: z.number().int().min(1).max(EVENT_LIMITS.maxLimit).optional(),
        cursor: z.object({ before: z.string().max(100), beforeUuid: z.string().max(100) }).nullish(),
      }),
    )
    .query(({ ctx, input }) => {
      const params = filterSearchParams(input);
      if (input.limit !== undefined) params.set("limit", String(input.limit));
      return listEventPage(ctx.db, ctx.project.id, params, input.cursor ?? null);
    }),

  get: projectProcedure.input(z.object({ id: z.string().max(100) })).query(({ ctx, input }) => getEvent(ctx.db, ctx.project.id, input.id)),
});
