import { describe, expect, it } from "vitest";
import { lookupGeoIp, warmGeoIp } from "./lookup";

describe("lookupGeoIp", () => {
  it("answers for both families after warmGeoIp, the server's warm-up read of the databases off the main thread", async () => {
    await warmGeoIp();
    expect(lookupGeoIp("89.160.20.129")).toMatchObject({ $geoip_country_code: "SE" });
    expect(lookupGeoIp("2001:218::1")?.$geoip_country_code).toEqual(expect.any(String));
  });

  it("gives PostHog's $geoip_* properties for a city-level IPv4 address", () => {
    // 89.160.20.129 and 81.2.69.142 are MaxMind's own test addresses (Sweden, England).
    const sweden = lookupGeoIp("89.160.20.129");
    expect(sweden).toMatchObject({
      $geoip_country_code: "SE",
      $geoip_country_name: "Sweden",
      $geoip_continent_code: "EU",
      $geoip_continent_name: "Europe",
      $geoip_time_zone: "Europe/Stockholm",
    });
    expect(typeof sweden?.$geoip_city_name).toBe("string");
    expect(sweden?.$geoip_latitude).toBeGreaterThan(55);
    expect(sweden?.$geoip_latitude).toBeLessThan(70);
    expect(sweden?.$geoip_longitude).toBeGreaterThan(10);
    expect(sweden?.$geoip_longitude).toBeLessThan(25);

    const england = lookupGeoIp("81.2.69.142");
    expect(england).toMatchObject({
      $geoip_country_code: "GB",
      $geoip_country_name: "United Kingdom",
      $geoip_continent_code: "EU",
      $geoip_subdivision_1_name: "England",
      $geoip_time_zone: "Europe/London",
    });
  });

  it("looks up IPv6 and IPv4-mapped IPv6 addresses", () => {
    const google6 = lookupGeoIp("2001:4860:4860::8888");
    expect(google6).toMatchObject({ $geoip_country_code: "US", $geoip_continent_code: "NA", $geoip_country_name: "United States" });
    expect(lookupGeoIp("::ffff:89.160.20.129")).toEqual(lookupGeoIp("89.160.20.129"));
    expect(lookupGeoIp("[2001:4860:4860::8888]")).toEqual(google6);
  });

  it("leaves out what the database does not know (country-level addresses have no city)", () => {
    const google = lookupGeoIp("8.8.8.8");
    expect(google?.$geoip_country_code).toBe("US");
    expect(google).not.toHaveProperty("$geoip_city_name");
    expect(google).not.toHaveProperty("$geoip_postal_code");
  });

  it("answers null for private, loopback and malformed addresses", () => {
    for (const ip of ["127.0.0.1", "10.1.2.3", "192.168.0.1", "::1", "", "not an ip", "999.1.1.1", "1.2.3"]) {
      expect(lookupGeoIp(ip), ip).toBeNull();
    }
  });
});
