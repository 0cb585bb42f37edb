/**
 * Event properties kept beside the JSON as materialised columns (migrations
 * 0002_hot_properties.sql, 0004_sessions_v2.sql and 0006_flag_properties.sql): the ones
 * PostHog's own installations and web analytics break down by most, and the flag and
 * variant every experiment exposure is read by. Each
 * column holds the text PostgreSQL's `properties ->> key` gives, '' when the key is missing
 * or null. Breakdowns by these keys read the column instead of parsing every event's JSON.
 */
import type { ChParams } from "@/server/sql/bind";

export const HOT_PROPERTY_COLUMNS: Readonly<Record<string, string>> = {
  $browser: "mat_browser",
  $os: "mat_os",
  $device_type: "mat_device_type",
  $lib: "mat_lib",
  $current_url: "mat_current_url",
  $pathname: "mat_pathname",
  $host: "mat_host",
  $referring_domain: "mat_referring_domain",
  $geoip_country_code: "mat_geoip_country_code",
  $geoip_subdivision_1_code: "mat_geoip_subdivision_1_code",
  $geoip_city_name: "mat_geoip_city_name",
  $browser_language: "mat_browser_language",
  $feature_flag: "mat_feature_flag",
  $feature_flag_response: "mat_feature_flag_response",
};

/** The materialised column of a hot key, or null. */
export function hotPropertyColumn(key: string): string | null {
  return Object.hasOwn(HOT_PROPERTY_COLUMNS, key) ? HOT_PROPERTY_COLUMNS[key]! : null;
}

/**
 * An event property's text as PostgreSQL's `->>` gives it ('' for missing or null): strings
 * as they are, anything else its JSON text (as the hot columns hold it). Read from the
 * value's raw JSON, so that the event's JSON is parsed once; a hot key reads its column.
 */
export function chEventPropertyText(key: string, params: ChParams): string {
  const hot = hotPropertyColumn(key);
  if (hot !== null) return `e.${hot}`;
  const raw = `JSONExtractRaw(e.properties, ${params.add(key, "text")})`;
  return `multiIf(startsWith(${raw}, '"'), JSONExtractString(${raw}), ${raw} = 'null', '', ${raw})`;
}
