import { z } from "zod";
import { EVENT_LIMITS, eventFiltersInput, eventPageCursor } from "@/server/events/contract";
import { countEventMatches, eventValues, getEvent, listCohortChoices, listEventPage } from "@/server/events/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

/**
 * The events explorer: the REST list's filters (read by its own `listQueryOf`, so a bad
 * `after` or property filter is the same 400 here as there) and one event with its person.
 */
export const eventsRouter = createTRPCRouter({
  list: projectProcedure
    .input(
      eventFiltersInput.extend({
        limit: z.number().int().min(1).max(EVENT_LIMITS.maxLimit).optional(),
        cursor: eventPageCursor.nullish(),
      }),
    )
    .query(({ ctx, input }) => listEventPage(ctx, input)),

  /** How many events the filters match (capped: the footer's "of N matching events"). */
  count: projectProcedure.input(eventFiltersInput).query(({ ctx, input }) => countEventMatches(ctx, input)),

  get: projectProcedure.input(z.object({ id: z.string().max(100) })).query(({ ctx, input }) => getEvent(ctx, input.id)),

  /** The seen values of one event property, most frequent first (REST's `events/values/`). */
  values: projectProcedure
    .input(
      z.object({
        key: z.string().min(1).max(EVENT_LIMITS.maxText),
        prefix: z.string().max(EVENT_LIMITS.maxText).optional(),
        eventName: z.string().min(1).max(EVENT_LIMITS.maxText).optional(),
      }),
    )
    .query(({ ctx, input }) => eventValues(ctx, { key: input.key, prefix: input.prefix || null, eventName: input.eventName ?? null })),

  /** The cohorts the filter bar offers (id and name; the cohorts API is the cohorts domain's). */
  cohorts: projectProcedure.query(({ ctx }) => listCohortChoices(ctx)),
});
