import { z } from "zod";
import { lookupGeoIp } from "@/server/geoip/lookup";
import { copyRecord, definePlugin, field, isPlainObject, withProperties } from "../plugin";

export const geoIpPlugin = definePlugin({
  key: "geoip",
  name: "GeoIP enrichment",
  description:
    "Looks up the event's $ip in the GeoLite2 city database (the one flag evaluation uses) and sets $geoip_city_name, $geoip_country_code and the other $geoip_* properties; with person properties on, also $set them on the person and $set_once the $initial_geoip_* ones, as PostHog does. Events with $geoip_disable pass unchanged.",
  config: z.object({
    set_person_properties: z
      .boolean()
      .default(true)
      .meta(field("Set person properties", "Also $set $geoip_* and $set_once $initial_geoip_* on the person.")),
  }),
  build(config) {
    return (event) => {
      const ip = event.properties.$ip;
      if (typeof ip !== "string" || event.properties.$geoip_disable === true) return event;
      const geo = lookupGeoIp(ip);
      if (!geo) return event;
      const properties = Object.assign(copyRecord(event.properties), geo);
      if (config.set_person_properties) {
        const set = isPlainObject(properties.$set) ? properties.$set : {};
        const setOnce = isPlainObject(properties.$set_once) ? properties.$set_once : {};
        const initial = Object.fromEntries(Object.entries(geo).map(([key, value]) => [key.replace(/^\$geoip_/, "$initial_geoip_"), value]));
        properties.$set = { ...set, ...geo };
        properties.$set_once = { ...setOnce, ...initial };
      }
      return withProperties(event, properties);
    };
  },
});
