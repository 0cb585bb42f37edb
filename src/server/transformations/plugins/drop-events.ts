import { z } from "zod";
import { isPropertyGroup, propertiesParamSchema, type PropertyNode } from "@/server/properties/contract";
import { propertyMatcher } from "@/server/properties/match";
import { definePlugin, field, propertyNameList } from "../plugin";

function usesPersonProperties(node: PropertyNode): boolean {
  return isPropertyGroup(node) ? node.values.some(usesPersonProperties) : node.type === "person";
}

/** PostHog's property filter list (or group); only event properties: a transformation sees no person. */
const eventPropertyFilter = propertiesParamSchema.refine((group) => !usesPersonProperties(group), {
  message: "Only event property filters can be used here: transformations run before the person is known.",
});

export const dropEventsPlugin = definePlugin({
  key: "drop-events",
  name: "Drop events",
  description:
    "Drops events that match: by event name, by event property filters, or both. A config with neither drops nothing.",
  config: z.object({
    events: propertyNameList.default([]).meta(field("Event names", "Drop events with any of these names. Empty: any name.")),
    properties: eventPropertyFilter
      .prefault([])
      .meta({ ...field("Property filters", "PostHog property filters, e.g. [{\"key\": \"$host\", \"value\": \"localhost\"}]. All must hold."), default: [] }),
  }),
  build(config) {
    const names = new Set(config.events);
    // Compiled once per config; relative dates still count back from each event's "now".
    const filter = config.properties.values.length > 0 ? propertyMatcher(config.properties) : null;
    if (names.size === 0 && !filter) return (event) => event;
    return (event) => {
      if (names.size > 0 && !names.has(event.event)) return event;
      if (filter && !filter({ event: event.properties })) return event;
      return null;
    };
  },
});
