import { z } from "zod";
import { getEvent, listEventPage } from "@/server/events/api";
import { eventFiltersInput, eventPageCursor } from "@/server/events/filters";
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
        cursor: eventPageCursor.nullish(),
      }),
    )
    .query(({ ctx, input }) => listEventPage(ctx.db, ctx.project.id, { filters: input, limit: input.limit, cursor: input.cursor })),

  get: projectProcedure.input(z.object({ id: z.string().max(100) })).query(({ ctx, input }) => getEvent(ctx.db, ctx.project.id, input.id)),
});
