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
  return (name) => {
    // PostHog's own names ($pageview, $browser) are what its UI and SDKs look for.
    if (keepPostHogNames && name.startsWith("$")) return name;
    return convert(name) || name;
  };
}

/** Events repeat the same few names: remembers what a name becomes (bounded). */
function remembered(rename: (name: string) => string): (name: string) => string {
  const seen = new Map<string, string>();
  return (name) => {
    let target = seen.get(name);
    if (target === undefined) {
      target = rename(name);
      if (seen.size >= 10_000) seen.clear();
      seen.set(name, target);
    }
    return target;
  };
}

/**
 * How the properties of one key sequence are renamed. Events from one SDK carry the same
 * keys in the same order, so each sequence is worked out once: `template` holds the new
 * names in order (null when no name changes), and an event's renamed properties are a
 * spread copy of it with the values filled in. Building a 30-key object key by key instead
 * costs V8 several times more, and leaves an object that is slower to serialise.
 */
interface RenamedShape {
  keys: string[];
  targets: string[];
  template: Record<string, unknown> | null;
  /** No new name is "__proto__": plain assignment is safe (setOwn costs a call per key). */
  plain: boolean;
}

/** The last few key sequences seen, most recent first. */
const SHAPES_KEPT = 16;

function shapeCache(targetOf: (name: string) => string): (keys: string[]) => RenamedShape {
  const shapes: RenamedShape[] = [];
  const same = (a: string[], b: string[]) => {
    if (a.length !== b.length) return false;
    for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
    return true;
  };
  return (keys) => {
    const index = shapes.findIndex((shape) => same(shape.keys, keys));
    let shape = shapes[index];
    if (shape) {
      if (index > 0) {
        shapes.splice(index, 1);
        shapes.unshift(shape);
      }
      return shape;
    }
    const targets = keys.map(targetOf);
    const changed = targets.some((target, i) => target !== keys[i]);
    // fromEntries defines own properties: a "__proto__" name stays a plain key.
    shape = {
      keys,
      targets,
      template: changed ? Object.fromEntries(targets.map((target) => [target, undefined])) : null,
      plain: !targets.includes("__proto__"),
    };
    shapes.unshift(shape);
    if (shapes.length > SHAPES_KEPT) shapes.pop();
    return shape;
  };
}

export const renamePlugin = definePlugin({
  key: "rename",
  name: "Rename and standardise names",
  description:
    "Renames events and properties: exact renames first, then an optional naming convention (snake_case or camelCase) for event names and top-level property names.",
  config: z.object({
    event_renames: renames("event").default({}).meta(field("Event renames", "Events named the old name get the new one. In the API: a JSON object {\"old name\": \"new name\"}.")),
    property_renames: renames("property").default({}).meta(field("Property renames", "Properties named the old name get the new one. In the API: a JSON object {\"old name\": \"new name\"}.")),
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
    const eventName = remembered((name) => {
      const renamed = eventRenames.get(name) ?? name;
      const converted = eventCase ? eventCase(renamed) : renamed;
      // A convention may lengthen a name; past the stored limit the event keeps its name.
      return converted.length > MAX_EVENT_NAME_LENGTH ? name : converted;
    });
    const shapeOf =
      propertyRenames.size > 0 || propertyCase !== null
        ? shapeCache(
            remembered((key) => {
              const renamed = propertyRenames.get(key) ?? key;
              return propertyCase ? propertyCase(renamed) : renamed;
            }),
          )
        : null;
    return (event) => {
      const name = eventName(event.event);
      let properties = event.properties;
      const shape = shapeOf?.(Object.keys(properties));
      if (shape?.template) {
        const { keys, targets } = shape;
        const renamed = { ...shape.template };
        // Two names may become one: the later value wins, as it would key by key.
        if (shape.plain) for (let i = 0; i < keys.length; i++) renamed[targets[i]!] = properties[keys[i]!];
        else for (let i = 0; i < keys.length; i++) setOwn(renamed, targets[i]!, properties[keys[i]!]);
        properties = renamed;
      }
      if (name === event.event && properties === event.properties) return event;
      return { ...withProperties(event, properties), event: name };
    };
  },
});
