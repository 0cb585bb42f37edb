/**
 * The definitions API's contract: PostHog's event and property definitions (the names a
 * project has seen, for suggestions), their list parameters for REST and tRPC, and the shapes
 * they answer with. Client-safe: the comboboxes import it.
 */
import { z } from "zod";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";

/** PostHog's property `type`s Burrow keeps: 1 on events, 2 on persons. */
export const PROPERTY_DEFINITION_TYPES = ["event", "person"] as const;
export type PropertyDefinitionType = (typeof PROPERTY_DEFINITION_TYPES)[number];

/** What PostHog's ingestion guesses from a property's values. */
export const PROPERTY_TYPES = ["String", "Numeric", "Boolean", "DateTime"] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

export const DEFINITION_LIMITS = {
  /** Longer names are not kept (PostHog's column holds 400; nobody picks such a name from a list). */
  maxName: 400,
  maxSearch: 400,
  /** `event_names`: how many events a property list may be narrowed to. */
  maxEventNames: 100,
  /** Suggestions per tRPC call. */
  maxSuggestions: 100,
  /** Days summed into `volume_30_day`. */
  volumeDays: 30,
} as const;

const search = z.string().max(DEFINITION_LIMITS.maxSearch, `search must be at most ${DEFINITION_LIMITS.maxSearch} characters.`);

/** `event_names` as PostHog's frontend sends it: a JSON array in one parameter (or repeated plain names). */
const eventNamesParam = z
  .union([z.string(), z.array(z.string())])
  .transform((value, issue) => {
    if (Array.isArray(value)) return value;
    const text = value.trim();
    if (!text.startsWith("[")) return text === "" ? [] : [text];
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed) && parsed.every((name) => typeof name === "string")) return parsed as string[];
    } catch {
      // reported below
    }
    issue.addIssue({ code: "custom", message: "event_names must be a JSON array of event names." });
    return z.NEVER;
  })
  .pipe(
    z
      .array(z.string().max(DEFINITION_LIMITS.maxName, `event names are at most ${DEFINITION_LIMITS.maxName} characters.`))
      .max(DEFINITION_LIMITS.maxEventNames, `event_names may name at most ${DEFINITION_LIMITS.maxEventNames} events.`),
  );

export const eventDefinitionListQuery = pageQuery.extend({ search: search.optional() });
export type EventDefinitionListQuery = z.output<typeof eventDefinitionListQuery>;

export const propertyDefinitionListQuery = pageQuery.extend({
  search: search.optional(),
  type: z.enum(PROPERTY_DEFINITION_TYPES, { error: "type must be 'event' or 'person'." }).default("event"),
  /** Properties seen on these events first (`is_seen_on_filtered_events`), the others after. */
  event_names: eventNamesParam.optional(),
  /** Only the properties seen on `event_names` (PostHog's `filter_by_event_names`). */
  filter_by_event_names: drfBoolean.optional(),
  is_numerical: drfBoolean.optional(),
  /** Only these names (PostHog's `properties=a,b`). */
  properties: z.string().max(10_000, "properties must be at most 10000 characters.").optional(),
});
export type PropertyDefinitionListQuery = z.output<typeof propertyDefinitionListQuery>;

/** tRPC: suggestions for a combobox, most used first. */
export const eventSuggestionsInput = z.object({
  search: search.optional(),
  limit: z.number().int().min(1).max(DEFINITION_LIMITS.maxSuggestions).optional(),
});
export type EventSuggestionsInput = z.output<typeof eventSuggestionsInput>;

export const propertySuggestionsInput = z.object({
  search: search.optional(),
  type: z.enum(PROPERTY_DEFINITION_TYPES).default("event"),
  eventNames: z.array(z.string().max(DEFINITION_LIMITS.maxName)).max(DEFINITION_LIMITS.maxEventNames).optional(),
  limit: z.number().int().min(1).max(DEFINITION_LIMITS.maxSuggestions).optional(),
});
export type PropertySuggestionsInput = z.output<typeof propertySuggestionsInput>;

/** tRPC: a property's values, most frequent first (events' `values` API, or persons'). */
export const propertyValuesInput = z.object({
  key: z.string().min(1).max(DEFINITION_LIMITS.maxName),
  type: z.enum(PROPERTY_DEFINITION_TYPES).default("event"),
  search: search.optional(),
  eventName: z.string().max(DEFINITION_LIMITS.maxName).optional(),
});
export type PropertyValuesInput = z.output<typeof propertyValuesInput>;

/** What both definitions answer; Burrow keeps no descriptions, tags, owners or query usage yet. */
const definitionFields = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  /** Events with this name (or property) in the last 30 days. */
  volume_30_day: z.number().int(),
  query_usage_30_day: z.null(),
  created_at: z.iso.datetime(),
  last_seen_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  updated_by: z.null(),
  verified: z.literal(false),
  hidden: z.literal(false),
};

/** An event name as PostHog's API shows it (EventDefinitionSerializer). */
export const eventDefinitionSchema = z
  .object({ ...definitionFields, owner: z.null(), is_action: z.literal(false) })
  .meta({ id: "EventDefinition" });
export type EventDefinitionResource = z.infer<typeof eventDefinitionSchema>;

/** A property name as PostHog's API shows it (PropertyDefinitionSerializer). */
export const propertyDefinitionSchema = z
  .object({
    ...definitionFields,
    is_numerical: z.boolean(),
    property_type: z.enum(PROPERTY_TYPES).nullable(),
    type: z.enum(PROPERTY_DEFINITION_TYPES),
    /** Whether the property was seen on one of `event_names` (null when none were given). */
    is_seen_on_filtered_events: z.boolean().nullable(),
  })
  .meta({ id: "PropertyDefinition" });
export type PropertyDefinitionResource = z.infer<typeof propertyDefinitionSchema>;

export interface DefinitionList<T> {
  count: number;
  results: T[];
}

/** A value suggestion: as the events `values` API answers (`{name}`), with how often when known. */
export interface PropertyValueSuggestion {
  name: unknown;
  count?: number;
}
