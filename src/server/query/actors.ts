/**
 * The people behind a point of an insight: PostHog's ActorsQuery around an
 * InsightActorsQuery or FunnelsActorsQuery (and those two sent bare, which Burrow answers
 * as if wrapped). The insight's kind says which actors (its `actors`); this file pages
 * them, searches and orders them, loads their persons from PostgreSQL and lays out
 * PostHog's ActorsQueryResponse rows. Each is a QueryKind, so the query API's cache and
 * envelope serve them like any insight.
 *
 * An actor stored without a person (ANONYMOUS_ACTOR + distinct id: events captured with
 * person processing off) is shown as PostHog shows an actor whose person it cannot load,
 * `{"id": <distinct id>, "distinct_ids": [<distinct id>]}`, and counted in
 * `missing_actors_count`.
 */
import { z } from "zod";
import { ANONYMOUS_ACTOR, parseNode, QueryNodeError, type KindAnswer, type QueryEnv, type QueryKind } from "@/server/analytics/kind";
import { canonicalJson } from "@/server/analytics/cache";
import { TimeSlice } from "@/server/event-loop";
import { andGroups, propertiesField, shown, type FiltersOverride } from "@/server/analytics/nodes";
import { AppError } from "@/server/errors";
import { INT4_MAX } from "@/server/input/record-id";
import { isPropertyGroup, type PropertyGroup, type PropertyNode } from "@/server/properties/contract";
import { propertyMatcher } from "@/server/properties/match";
import { personsByUuids } from "@/server/persons/service";
import { personDisplayName, presentActorPerson, type PersonRow } from "@/server/persons/present";

/** PostHog's defaults for rows of a query (HogQL's DEFAULT_RETURNED_ROWS) and the most Burrow returns at once; a larger `limit` is lowered to it, as PostHog's paginator does. */
export const ACTORS_LIMITS = { defaultLimit: 100, maxLimit: 10_000, maxSelect: 50, maxOrderBy: 10, maxSearch: 1_000 } as const;

export const ACTORS_QUERY_KINDS = ["ActorsQuery", "InsightActorsQuery", "FunnelsActorsQuery"] as const;

// The registry holds kinds of any spec.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyKind = QueryKind<any>;

/** A column of the answer: the actor (`actor`, `person`), its uuid, … (see COLUMN below). */
type Column =
  | { type: "actor" }
  | { type: "id" }
  | { type: "delete" }
  | { type: "created_at" }
  | { type: "distinct_ids" }
  | { type: "display_name" }
  | { type: "recordings" }
  | { type: "property"; key: string };

interface OrderItem {
  column: Column;
  descending: boolean;
}

export interface ActorsSpec {
  /** The insight's kind and spec, and the rest of the InsightActorsQuery / FunnelsActorsQuery. */
  source: { kind: string; spec: unknown; selector: Record<string, unknown> };
  select: string[];
  search: string | null;
  /** `properties` and `fixedProperties` together: person property filters on the actors. */
  properties: PropertyGroup | null;
  orderBy: string[] | null;
  limit: number;
  offset: number;
}

const PROPERTY_COLUMN = /^(?:person\.)?properties\.(?:`([^`]+)`|"([^"]+)"|([A-Za-z0-9_$][A-Za-z0-9_$.-]*))$/;

/** A column as PostHog's ActorsQuery `select` names it, or null for one Burrow does not answer. */
function columnOf(text: string): Column | null {
  const trimmed = text.trim();
  if (trimmed === "actor" || trimmed === "person") return { type: "actor" };
  if (trimmed === "id" || trimmed === "person_id" || trimmed === "actor_id") return { type: "id" };
  if (trimmed === "person.$delete") return { type: "delete" };
  if (trimmed === "created_at" || trimmed === "person.created_at") return { type: "created_at" };
  if (trimmed === "event_distinct_ids" || trimmed === "distinct_ids" || trimmed === "pdi.distinct_ids") return { type: "distinct_ids" };
  // Burrow has no session recordings: PostHog's column, always empty.
  if (trimmed === "matched_recordings") return { type: "recordings" };
  // The app's "Person" column: `person_display_name -- Person`.
  if (trimmed.split("--")[0]!.trim() === "person_display_name") return { type: "display_name" };
  const property = PROPERTY_COLUMN.exec(trimmed);
  if (property) return { type: "property", key: property[1] ?? property[2] ?? property[3]! };
  return null;
}

const COLUMN_TYPES: Record<Column["type"], string> = {
  actor: "Tuple",
  id: "UUID",
  delete: "UInt8",
  created_at: "DateTime64(3, 'UTC')",
  distinct_ids: "Array(String)",
  display_name: "Tuple",
  recordings: "Array(Tuple)",
  property: "String",
};

const SUPPORTED_COLUMNS = "actor, person, id, person.$delete, created_at, event_distinct_ids, matched_recordings, person_display_name, person.properties.<name>";

function orderItemOf(text: string): OrderItem | null {
  const match = /^(.*?)(?:\s+(asc|desc))?$/i.exec(text.trim());
  const column = match ? columnOf(match[1]!) : null;
  return column ? { column, descending: (match![2] ?? "").toLowerCase() === "desc" } : null;
}

/** An actor with what is known of it: its person, or (personless, or a person since deleted) none. */
interface Actor {
  key: string;
  person: PersonRow | null;
}

function distinctIdOf(key: string): string | null {
  return key.startsWith(ANONYMOUS_ACTOR) ? key.slice(ANONYMOUS_ACTOR.length) : null;
}

function cellOf(actor: Actor, column: Column): unknown {
  const { person, key } = actor;
  const anonymous = distinctIdOf(key);
  switch (column.type) {
    case "actor":
      return person ? presentActorPerson(person) : { id: anonymous ?? key, distinct_ids: anonymous === null ? [] : [anonymous] };
    case "id":
      return person ? person.uuid : (anonymous ?? key);
    case "delete":
      return 1;
    case "created_at":
      return person ? person.createdAt.toISOString() : null;
    case "distinct_ids":
      return person ? presentActorPerson(person).distinct_ids : anonymous === null ? [] : [anonymous];
    case "recordings":
      return [];
    case "display_name":
      return { display_name: person ? personDisplayName(person) : (anonymous ?? key), id: person ? person.uuid : (anonymous ?? key) };
    case "property": {
      const properties = person?.properties;
      const value = properties && typeof properties === "object" && !Array.isArray(properties) ? (properties as Record<string, unknown>)[column.key] : undefined;
      return value === undefined ? null : value;
    }
  }
}

/** Text or number for ordering; null sorts last either way. */
function sortValue(actor: Actor, column: Column): string | number | null {
  const cell = cellOf(actor, column);
  if (cell === null || cell === undefined) return null;
  if (column.type === "actor" || column.type === "display_name") return actor.person ? personDisplayName(actor.person) : (distinctIdOf(actor.key) ?? actor.key);
  if (typeof cell === "number") return cell;
  return typeof cell === "string" ? cell : JSON.stringify(cell);
}

function compareActors(order: readonly OrderItem[]) {
  return (a: Actor, b: Actor): number => {
    for (const { column, descending } of order) {
      const x = sortValue(a, column);
      const y = sortValue(b, column);
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      const byValue = typeof x === "number" && typeof y === "number" ? x - y : String(x) < String(y) ? -1 : 1;
      return descending ? -byValue : byValue;
    }
    return 0;
  };
}

function personProperties(actor: Actor): Record<string, unknown> {
  const properties = actor.person?.properties;
  return properties && typeof properties === "object" && !Array.isArray(properties) ? (properties as Record<string, unknown>) : {};
}

/** ActorsQuery filters persons only (actor_strategies.py's `filter_conditions`): every leaf must be a person property filter. */
function checkPersonFilters(node: PropertyNode, path: PropertyKey[] = ["properties"]): void {
  if (isPropertyGroup(node)) {
    node.values.forEach((value, i) => checkPersonFilters(value, [...path, "values", i]));
    return;
  }
  if (!("type" in node) || node.type !== "person") throw new QueryNodeError("only person property filters are supported on actors.", path);
}

/** PostHog's person search: email or name containing the text (any case), the uuid, or a distinct id. */
function matchesSearch(actor: Actor, search: string): boolean {
  const needle = search.toLowerCase();
  const contains = (value: unknown) => typeof value === "string" && value.toLowerCase().includes(needle);
  if (!actor.person) return contains(distinctIdOf(actor.key) ?? actor.key);
  const properties = (actor.person.properties ?? {}) as Record<string, unknown>;
  return contains(properties.email) || contains(properties.name) || contains(actor.person.uuid) || actor.person.distinctIds.some(contains);
}

const pagingFields = {
  select: z.array(z.string().max(1_000), { error: "select must be a list of column names." }).max(ACTORS_LIMITS.maxSelect).nullish(),
  search: z.string({ error: "search must be a string." }).max(ACTORS_LIMITS.maxSearch).nullish(),
  orderBy: z.array(z.string().max(1_000), { error: "orderBy must be a list of columns." }).max(ACTORS_LIMITS.maxOrderBy).nullish(),
  limit: z.number({ error: "limit must be an integer." }).int("limit must be an integer.").min(1, "limit must be at least 1.").max(INT4_MAX, `limit must be at most ${INT4_MAX}.`).nullish(),
  offset: z.number({ error: "offset must be an integer." }).int("offset must be an integer.").min(0, "offset must not be negative.").max(INT4_MAX, `offset must be at most ${INT4_MAX}.`).nullish(),
  properties: propertiesField,
  fixedProperties: propertiesField,
};

const actorsQuerySchema = z.looseObject({ kind: z.literal("ActorsQuery"), source: z.unknown().optional(), ...pagingFields });

/** What of an InsightActorsQuery / FunnelsActorsQuery is the kind's (the selector), and what is PostHog's plumbing. */
const NOT_SELECTOR = new Set(["kind", "source", "includeRecordings", "modifiers", "response", "tags", "version"]);

function checkColumns(select: readonly string[], path: string): void {
  for (const [i, text] of select.entries()) {
    if (!columnOf(text)) throw new QueryNodeError(`column ${shown(text)} is not supported; use ${SUPPORTED_COLUMNS}.`, [path, i]);
  }
}

/** The three kinds, answering through `lookup` (the insight kinds of the registry). */
export function actorsKinds(lookup: (kind: string) => AnyKind | undefined): AnyKind[] {
  /** An InsightActorsQuery / FunnelsActorsQuery: its insight's kind (one with actors) and spec, and the selector. */
  function sourceOf(node: unknown, override: FiltersOverride | null, path: PropertyKey[]): ActorsSpec["source"] {
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      throw new QueryNodeError("source must be an InsightActorsQuery or a FunnelsActorsQuery.", path);
    }
    const wrapper = node as Record<string, unknown>;
    if (wrapper.kind !== "InsightActorsQuery" && wrapper.kind !== "FunnelsActorsQuery") {
      throw new QueryNodeError(`source kind ${shown(wrapper.kind)} is not supported; use InsightActorsQuery or FunnelsActorsQuery.`, [...path, "kind"]);
    }
    const inner = wrapper.source;
    if (typeof inner !== "object" || inner === null || Array.isArray(inner)) throw new QueryNodeError("source must be an insight query node.", [...path, "source"]);
    const innerKind = (inner as Record<string, unknown>).kind;
    if (wrapper.kind === "FunnelsActorsQuery" && innerKind !== "FunnelsQuery") {
      throw new QueryNodeError(`a FunnelsActorsQuery's source must be a FunnelsQuery, not ${shown(innerKind)}.`, [...path, "source", "kind"]);
    }
    const kind = typeof innerKind === "string" && !(ACTORS_QUERY_KINDS as readonly string[]).includes(innerKind) ? lookup(innerKind) : undefined;
    if (!kind) throw new QueryNodeError(`Query kind ${shown(innerKind)} is not supported.`, [...path, "source", "kind"]);
    if (!kind.actors) throw new QueryNodeError(`${kind.kind} does not list its actors yet.`, [...path, "source", "kind"]);
    let spec: unknown;
    try {
      spec = kind.spec(inner, override);
    } catch (error) {
      if (error instanceof QueryNodeError) throw new QueryNodeError(error.issue, [...path, "source", ...error.path]);
      throw error;
    }
    const selector = Object.fromEntries(Object.entries(wrapper).filter(([key, value]) => !NOT_SELECTOR.has(key) && value !== undefined));
    // The selector is part of the cache key: it must be plain JSON.
    canonicalJson(selector);
    return { kind: kind.kind, spec, selector };
  }

  function actorsSpec(source: ActorsSpec["source"], paging: z.output<z.ZodObject<typeof pagingFields>>): ActorsSpec {
    const select = paging.select && paging.select.length > 0 ? paging.select : ["actor"];
    checkColumns(select, "select");
    for (const [i, text] of (paging.orderBy ?? []).entries()) {
      if (!orderItemOf(text)) throw new QueryNodeError(`orderBy ${shown(text)} is not supported; order by one of ${SUPPORTED_COLUMNS}, ASC or DESC.`, ["orderBy", i]);
    }
    const properties = andGroups(paging.properties ?? null, paging.fixedProperties ?? null);
    if (properties) checkPersonFilters(properties);
    return {
      source,
      select,
      search: paging.search?.trim() ? paging.search.trim() : null,
      properties,
      orderBy: paging.orderBy && paging.orderBy.length > 0 ? paging.orderBy : null,
      limit: Math.min(paging.limit ?? ACTORS_LIMITS.defaultLimit, ACTORS_LIMITS.maxLimit),
      offset: paging.offset ?? 0,
    };
  }

  async function check(env: QueryEnv, spec: ActorsSpec): Promise<void> {
    await lookup(spec.source.kind)!.check(env, spec.source.spec);
  }

  async function compute(env: QueryEnv, spec: ActorsSpec): Promise<KindAnswer> {
    const kind = lookup(spec.source.kind);
    if (!kind?.actors) throw new AppError("invalid_input", `${spec.source.kind} does not list its actors yet.`, "query");
    const keys = [...new Set(await kind.actors(env, spec.source.spec, spec.source.selector))];
    const columns = spec.select.map((text) => columnOf(text)!);
    let total: number;
    let page: Actor[];
    if (spec.search === null && spec.orderBy === null && spec.properties === null) {
      // In the kind's order: only the page's persons are read.
      total = keys.length;
      const pageKeys = keys.slice(spec.offset, spec.offset + spec.limit);
      const persons = await personsByUuids(env.db, env.projectId, pageKeys);
      page = pageKeys.map((key) => ({ key, person: persons.get(key) ?? null }));
    } else {
      const persons = await personsByUuids(env.db, env.projectId, keys);
      // Every actor is matched here, an actor per step, yielding when the slice is up: an
      // insight's 100,000 actors searched were one long turn (issue 32).
      const matches = spec.properties === null ? null : propertyMatcher(spec.properties);
      const actors: Actor[] = [];
      const slice = new TimeSlice();
      for (const key of keys) {
        await slice.pace();
        const actor = { key, person: persons.get(key) ?? null };
        if (spec.search !== null && !matchesSearch(actor, spec.search)) continue;
        if (matches !== null && !matches({ person: personProperties(actor) }, env.now)) continue;
        actors.push(actor);
      }
      if (spec.orderBy !== null) actors.sort(compareActors(spec.orderBy.map((text) => orderItemOf(text)!)));
      total = actors.length;
      page = actors.slice(spec.offset, spec.offset + spec.limit);
    }
    return {
      results: page.map((actor) => columns.map((column) => cellOf(actor, column))),
      range: null,
      extra: {
        columns: spec.select,
        types: columns.map((column) => COLUMN_TYPES[column.type]),
        hasMore: spec.offset + page.length < total,
        limit: spec.limit,
        offset: spec.offset,
        missing_actors_count: page.filter((actor) => actor.person === null).length,
      },
      weight: Math.max(1, page.length * columns.length),
    };
  }

  const actorsQuery: QueryKind<ActorsSpec> = {
    kind: "ActorsQuery",
    spec(node, override) {
      const query = parseNode(actorsQuerySchema, node);
      if (query.source === undefined || query.source === null) {
        throw new QueryNodeError("an ActorsQuery needs a source (an InsightActorsQuery or FunnelsActorsQuery); list persons with /persons/.", ["source"]);
      }
      return actorsSpec(sourceOf(query.source, override, ["source"]), query);
    },
    check,
    compute,
  };

  /** Sent bare, the same answer as inside an ActorsQuery with PostHog's defaults. */
  const bare = (name: "InsightActorsQuery" | "FunnelsActorsQuery"): QueryKind<ActorsSpec> => ({
    kind: name,
    spec: (node, override) => actorsSpec(sourceOf(node, override, []), {}),
    check,
    compute,
  });

  return [actorsQuery, bare("InsightActorsQuery"), bare("FunnelsActorsQuery")];
}
