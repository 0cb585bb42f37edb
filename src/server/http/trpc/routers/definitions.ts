import { eventSuggestionsInput, propertySuggestionsInput, propertyValuesInput } from "@/server/definitions/contract";
import { suggestEvents, suggestProperties, suggestPropertyValues } from "@/server/definitions/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

/** Suggestions for the comboboxes: event names, property keys and values, most used first. */
export const definitionsRouter = createTRPCRouter({
  events: projectProcedure.input(eventSuggestionsInput).query(({ ctx, input }) => suggestEvents(ctx, input)),
  properties: projectProcedure.input(propertySuggestionsInput).query(({ ctx, input }) => suggestProperties(ctx, input)),
  values: projectProcedure.input(propertyValuesInput).query(({ ctx, input }) => suggestPropertyValues(ctx, input)),
});
