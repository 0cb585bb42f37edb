import { z } from "zod";
import { definePlugin, field, isPlainObject, setOwn, withProperties } from "../plugin";

/** Properties with a meaning to ingestion or PostHog's UI: their structure is kept. */
const STRUCTURED = new Set(["$set", "$set_once", "$unset", "$group_set", "$groups", "$elements"]);

/** Adds `prefix<sep>key` for every leaf below `value` (arrays by index; empty objects and arrays are leaves). */
function addLeaves(out: Record<string, unknown>, prefix: string, value: unknown, separator: string): void {
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : isPlainObject(value) ? Object.entries(value) : null;
  if (entries === null || entries.length === 0) {
    setOwn(out, prefix, value);
    return;
  }
  for (const [key, item] of entries) addLeaves(out, `${prefix}${separator}${key}`, item, separator);
}

function isNested(value: unknown): boolean {
  return (Array.isArray(value) && value.length > 0) || (isPlainObject(value) && Object.keys(value).length > 0);
}

export const flattenPlugin = definePlugin({
  key: "flatten",
  name: "Flatten properties",
  description:
    "Turns nested properties into top-level ones: {\"address\": {\"city\": \"Paris\"}} adds \"address__city\": \"Paris\" (list items by index), so they can be filtered on. $set, $set_once and other PostHog structures are left as they are.",
  config: z.object({
    separator: z
      .string()
      .min(1, "the separator must not be empty.")
      .max(5, "the separator must be at most 5 characters.")
      .default("__")
      .meta(field("Separator", "Joins the names along the path (PostHog's plugin uses __).")),
    keep_nested: z.boolean().default(true).meta(field("Keep the nested originals", "Off: the nested property is replaced by its flattened ones.")),
  }),
  build(config) {
    const { separator, keep_nested: keepNested } = config;
    return (event) => {
      let flattened: Record<string, unknown> | null = null;
      for (const [key, value] of Object.entries(event.properties)) {
        if (STRUCTURED.has(key) || !isNested(value)) continue;
        if (!flattened) flattened = {};
        addLeaves(flattened, key, value, separator);
      }
      if (!flattened) return event;
      const properties: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(event.properties)) {
        if (keepNested || STRUCTURED.has(key) || !isNested(value)) setOwn(properties, key, value);
      }
      for (const [key, value] of Object.entries(flattened)) setOwn(properties, key, value);
      return withProperties(event, properties);
    };
  },
});
