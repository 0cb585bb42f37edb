import Bowser from "bowser";
import { z } from "zod";
import { copyRecord, definePlugin, field, withProperties } from "../plugin";

const DEVICE_TYPES: Record<string, string> = { desktop: "Desktop", mobile: "Mobile", tablet: "Tablet", tv: "TV", bot: "Bot" };

/** posthog-js sends `$browser_version` as a number (124, 17.4); a version that is not one stays text. */
function versionValue(version: string): number | string {
  const number = Number.parseFloat(version);
  return Number.isFinite(number) && /^\d/.test(version) ? number : version;
}

/** PostHog's device and browser properties read from a user-agent string; only what was recognised. */
export function userAgentProperties(userAgent: string): Record<string, string | number> {
  const parsed = Bowser.parse(userAgent);
  const out: Record<string, string | number> = {};
  if (parsed.browser.name) out.$browser = parsed.browser.name;
  if (parsed.browser.version) out.$browser_version = versionValue(parsed.browser.version);
  if (parsed.os.name) out.$os = parsed.os.name;
  const osVersion = parsed.os.versionName ?? parsed.os.version;
  if (osVersion) out.$os_version = osVersion;
  const device = parsed.platform.type ? DEVICE_TYPES[parsed.platform.type] : undefined;
  if (device) out.$device_type = device;
  return out;
}

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
