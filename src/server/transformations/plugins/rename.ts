import { camelCase, snakeCase } from "change-case";
import { z } from "zod";
import { MAX_EVENT_NAME_LENGTH } from "@/server/ingestion/contract";
import { definePlugin, field, setOwn, withProperties } from "../plugin";

const CASES = ["keep", "snake_case", "camelCase"] as const;
type NameCase = (typeof CASES)[number];

const renames = (what: string) =>
  z
    .record(z.string().min(1).max(400), z.string().min(1, `new ${what} names must not be empty.`).max(400))
    .refine((map) => Object.keys(map).length <= 1000, `at most 1000 ${what} renames.`);

function caseConverter(nameCase: NameCase, keepPostHogNames: boolean): ((name: string) => string) | null {
  if (nameCase === "keep") return null;
  const convert = nameCase === "snake_case" ? snakeCase : camelCase;
  // Events repeat the same few names: remember conversions (bounded).
  const seen = new Map<string, string>();
  return (name) => {
    // PostHog's own names ($pageview, $browser) are what its UI and SDKs look for.
    if (keepPostHogNames && name.startsWith("$")) return name;
    let converted = seen.get(name);
    if (converted === undefined) {
      converted = convert(name) || name;
      if (seen.size >= 10_000) seen.clear();
      seen.set(name, converted);
    }
    return converted;
  };
}

export const renamePlugin = definePlugin({
  key: "rename",
  name: "Rename and standardise names",
  description:
    "Renames events and properties: exact renames first, then an optional naming convention (snake_case or camelCase) for event names and top-level property names.",
  config: z.object({
    event_renames: renames("event").default({}).meta(field("Event renames", "JSON object: {\"old name\": \"new name\"}.")),
    property_renames: renames("property").default({}).meta(field("Property renames", "JSON object: {\"old name\": \"new name\"}.")),
    event_case: z.enum(CASES).default("keep").meta(field("Event name convention", "Convert event names to this convention.")),
    property_case: z.enum(CASES).default("keep").meta(field("Property name convention", "Convert top-level property names to this convention.")),
    keep_posthog_names: z
      .boolean()
      .default(true)
      .meta(field("Keep PostHog's $ names", "Leave names starting with $ ($pageview, $browser …) as they are when converting.")),
  }),
  build(config) {
    const eventRenames = new Map(Object.entries(config.event_renames));
    const propertyRenames = new Map(Object.entries(config.property_renames));
    const eventCase = caseConverter(config.event_case, config.keep_posthog_names);
    const propertyCase = caseConverter(config.property_case, config.keep_posthog_names);
    const renamesProperties = propertyRenames.size > 0 || propertyCase !== null;
    return (event) => {
      let name = eventRenames.get(event.event) ?? event.event;
      if (eventCase) name = eventCase(name);
      // A convention may lengthen a name; past the stored limit the event keeps its name.
      if (name.length > MAX_EVENT_NAME_LENGTH) name = event.event;
      let properties = event.properties;
      if (renamesProperties) {
        const renamed: Record<string, unknown> = {};
        let changed = false;
        for (const [key, value] of Object.entries(event.properties)) {
          let target = propertyRenames.get(key) ?? key;
          if (propertyCase) target = propertyCase(target);
          if (target !== key) changed = true;
          setOwn(renamed, target, value);
        }
        if (changed) properties = renamed;
      }
      if (name === event.event && properties === event.properties) return event;
      return { ...withProperties(event, properties), event: name };
    };
  },
});
