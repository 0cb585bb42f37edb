/** PostHog's event and property definition shapes, from store rows. */
import type { EventDefinitionResource, PropertyDefinitionResource, PropertyType } from "./contract";
import type { DefinitionRow, PropertyDefinitionRow } from "./store";

const iso = (date: Date) => new Date(date).toISOString();

export function eventDefinitionResource(row: DefinitionRow): EventDefinitionResource {
  return {
    id: row.id,
    name: row.name,
    description: "",
    tags: [],
    owner: null,
    volume_30_day: row.volume,
    // Burrow does not count which definitions queries use.
    query_usage_30_day: null,
    created_at: iso(row.created_at),
    last_seen_at: iso(row.last_seen_at),
    updated_at: iso(row.last_seen_at),
    updated_by: null,
    verified: false,
    is_action: false,
    hidden: false,
  };
}

export function propertyDefinitionResource(row: PropertyDefinitionRow): PropertyDefinitionResource {
  const propertyType = (row.property_type ?? null) as PropertyType | null;
  return {
    id: row.id,
    name: row.name,
    description: "",
    tags: [],
    is_numerical: propertyType === "Numeric",
    property_type: propertyType,
    type: row.type === 2 ? "person" : "event",
    is_seen_on_filtered_events: row.seen_on_events,
    volume_30_day: row.volume,
    query_usage_30_day: null,
    created_at: iso(row.created_at),
    last_seen_at: iso(row.last_seen_at),
    updated_at: iso(row.last_seen_at),
    updated_by: null,
    verified: false,
    hidden: false,
  };
}
