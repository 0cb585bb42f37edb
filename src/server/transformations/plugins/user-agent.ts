import { userAgentProperties } from "@/server/ingestion/service";
import { z } from "zod";
import { copyRecord, definePlugin, field, withProperties } from "../plugin";

export { userAgentProperties };

export const userAgentPlugin = definePlugin({
  key: "user-agent",
  name: "User-agent parser",
  description:
    "Reads a user-agent string ($raw_user_agent by default) and sets $browser, $browser_version, $os, $os_version and $device_type.",
  config: z.object({
    source: z
      .string()
      .min(1, "must not be empty.")
      .max(400, "must be at most 400 characters.")
      .default("$raw_user_agent")
      .meta(field("User-agent property", "The property holding the user-agent string.")),
    override: z.boolean().default(false).meta(field("Override", "Off: keep what the SDK already set (posthog-js sets $browser and $os itself).")),
  }),
  build(config) {
    return (event) => {
      const userAgent = event.properties[config.source];
      if (typeof userAgent !== "string" || userAgent === "") return event;
      const found = userAgentProperties(userAgent.slice(0, 2000));
      const properties = copyRecord(event.properties);
      let changed = false;
      for (const [key, value] of Object.entries(found)) {
        if (!config.override && properties[key] !== undefined) continue;
        properties[key] = value;
        changed = true;
      }
      return changed ? withProperties(event, properties) : event;
    };
  },
});
