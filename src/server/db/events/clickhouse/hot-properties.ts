/**
 * Event properties kept beside the JSON as materialised columns (migration
 * 0002_hot_properties.sql): the ones PostHog's own installations break down by most. Each
 * column holds the text PostgreSQL's `properties ->> key` gives, '' when the key is missing
 * or null. Breakdowns by these keys read the column instead of parsing every event's JSON.
 */
export const HOT_PROPERTY_COLUMNS: Readonly<Record<string, string>> = {
  $browser: "mat_browser",
  $os: "mat_os",
  $device_type: "mat_device_type",
  $lib: "mat_lib",
  $current_url: "mat_current_url",
  $pathname: "mat_pathname",
  $host: "mat_host",
  $referring_domain: "mat_referring_domain",
};

/** The materialised column of a hot key, or null. */
export function hotPropertyColumn(key: string): string | null {
  return Object.hasOwn(HOT_PROPERTY_COLUMNS, key) ? HOT_PROPERTY_COLUMNS[key]! : null;
}
