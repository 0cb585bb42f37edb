import { describe, expect, it } from "vitest";
import { lookupGeoIp } from "@/server/geoip/lookup";
import { ingestEvent, runPlugin } from "@/test-support/transformations";
import { geoIpPlugin } from "./geoip";

// An address the GeoLite2 city database places in a city (Google's public DNS resolvers are
// listed in Mountain View / the US in every edition).
const KNOWN_IP = "8.8.8.8";

describe("GeoIP plugin", () => {
  const geo = lookupGeoIp(KNOWN_IP)!;

  it("has a known address in the database", () => {
    expect(geo.$geoip_country_code).toBe("US");
  });

  it("sets the $geoip_* properties from $ip, and $set / $set_once them on the person", () => {
    const result = runPlugin(geoIpPlugin, {}, ingestEvent({ properties: { $ip: KNOWN_IP, $set: { plan: "pro" } } }))!;
    expect(result.properties).toMatchObject(geo as Record<string, unknown>);
    expect(result.properties.$set).toEqual({ plan: "pro", ...geo });
    expect(result.properties.$set_once).toMatchObject({ $initial_geoip_country_code: "US" });
  });

  it("leaves person properties alone when asked", () => {
    const result = runPlugin(geoIpPlugin, { set_person_properties: false }, ingestEvent({ properties: { $ip: KNOWN_IP } }))!;
    expect(result.properties.$geoip_country_code).toBe("US");
    expect(result.properties).not.toHaveProperty("$set");
  });

  it("passes events without a locatable $ip, or with $geoip_disable, unchanged", () => {
    for (const properties of [{}, { $ip: "10.0.0.1" }, { $ip: "not an ip" }, { $ip: KNOWN_IP, $geoip_disable: true }]) {
      const event = ingestEvent({ properties });
      expect(runPlugin(geoIpPlugin, {}, event)).toBe(event);
    }
  });
});
