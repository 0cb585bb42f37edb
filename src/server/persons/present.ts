/**
 * A stored person as PostHog's API shows it: the list item (`SerializedPerson`, also the
 * members of a cohort), with PostHog's display-name rule and distinct-id order.
 */

import type { PersonListItem, PersonResource } from "./contract";

export type { PersonListItem, PersonResource } from "./contract";

/** A person row with its distinct ids, as stores read it. */
export interface PersonRow {
  id: number;
  uuid: string;
  properties: unknown;
  isIdentified: boolean;
  createdAt: Date;
  distinctIds: string[];
  /** When the person's latest event happened, where the reader knows it. */
  lastSeenAt: Date | null;
}

// PostHog's default person display-name properties, in order.
const NAME_PROPERTIES = ["email", "Email", "$email", "name", "Name", "username", "Username", "UserName"];
const UUID_LIKE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

function propertiesOf(row: PersonRow): Record<string, unknown> {
  return typeof row.properties === "object" && row.properties !== null && !Array.isArray(row.properties) ? (row.properties as Record<string, unknown>) : {};
}

/** Distinct ids with the ones a person chose (not uuid-like, so not SDK-generated) first. */
export function orderDistinctIds(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => Number(UUID_LIKE.test(a)) - Number(UUID_LIKE.test(b)));
}

/** The first non-empty display-name property, else the first distinct id, else the key. */
export function personDisplayName(row: PersonRow): string {
  const properties = propertiesOf(row);
  for (const key of NAME_PROPERTIES) {
    const value = properties[key];
    if (typeof value === "string" && value.trim() !== "") return value;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
  }
  return orderDistinctIds(row.distinctIds)[0] ?? String(row.id);
}

export function presentPersonListItem(row: PersonRow): PersonListItem {
  return {
    type: "person",
    id: row.uuid,
    uuid: row.uuid,
    name: personDisplayName(row),
    distinct_ids: orderDistinctIds(row.distinctIds),
    properties: propertiesOf(row),
    created_at: row.createdAt.toISOString(),
    last_seen_at: row.lastSeenAt?.toISOString() ?? null,
    is_identified: row.isIdentified,
    matched_recordings: [],
    value_at_data_point: null,
  };
}

export function presentPerson(row: PersonRow): PersonResource {
  return {
    id: row.id,
    uuid: row.uuid,
    name: personDisplayName(row),
    distinct_ids: orderDistinctIds(row.distinctIds),
    properties: propertiesOf(row),
    created_at: row.createdAt.toISOString(),
    is_identified: row.isIdentified,
  };
}

/** A person as the first cell of PostHog's ActorsQuery rows (actor_strategies.py's PersonStrategy). */
export interface ActorPerson {
  id: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: string;
}

export function presentActorPerson(row: PersonRow): ActorPerson {
  return {
    id: row.uuid,
    distinct_ids: orderDistinctIds(row.distinctIds),
    properties: propertiesOf(row),
    is_identified: row.isIdentified,
    created_at: row.createdAt.toISOString(),
  };
}
