import { z } from "zod";
import { copyRecord, definePlugin, field, setOwn, withProperties } from "../plugin";

export const addPropertiesPlugin = definePlugin({
  key: "add-properties",
  name: "Add or override properties",
  description: "Sets the given properties on every event: overriding what the event sent, or only where it has none.",
  config: z.object({
    properties: z
      .record(z.string().min(1).max(400), z.json())
      .refine((map) => Object.keys(map).length <= 1000, "at most 1000 properties.")
      .default({})
      .meta(field("Properties", "JSON object of the properties to set, e.g. {\"environment\": \"production\"}.")),
    override: z.boolean().default(true).meta(field("Override", "Off: only set properties the event does not have.")),
  }),
  build(config) {
    const entries = Object.entries(config.properties);
    if (entries.length === 0) return (event) => event;
    return (event) => {
      const properties = copyRecord(event.properties);
      for (const [key, value] of entries) {
        if (config.override || !Object.prototype.hasOwnProperty.call(properties, key)) setOwn(properties, key, value);
      }
      return withProperties(event, properties);
    };
  },
});
