/**
 * PostHog's `ActionsNode` (`{kind: "ActionsNode", id}`, schema-general.ts) and retention's
 * action entities (`{type: "actions", id}`), wherever a query holds them: each becomes the
 * EventsNode every kind already reads — any event (`event: null`) with the action's steps
 * (actions/matching.ts) ANDed to the node's own properties, and `action_id` naming it for the
 * kind's labels. So every kind answers an action series alike on all three stores, and the
 * cache key holds the steps: an edited action is a new query.
 *
 * Without definitions (`parseQueryRequest`, which has no database) only the shape is checked.
 */
import { QueryNodeError } from "@/server/analytics/kind";
import type { ActionDefinition } from "@/server/actions/service";
import { isObject } from "@/server/input/json-object";

const ENTITY_KEYS = new Set(["targetEntity", "returningEntity"]);
const MAX_WALK_DEPTH = 30;

function actionId(node: Record<string, unknown>, path: PropertyKey[]): number {
  const raw = node.id;
  const id = typeof raw === "number" ? raw : typeof raw === "string" && /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(id) || id < 1 || id > 2_147_483_647) throw new QueryNodeError("An ActionsNode needs the id of an action.", [...path, "id"]);
  return id;
}

/** Whether a node names an action: an ActionsNode, or a retention entity of type `actions`. */
function namesAction(node: Record<string, unknown>, key: PropertyKey | undefined): boolean {
  if (node.kind === "ActionsNode") return true;
  return typeof key === "string" && ENTITY_KEYS.has(key) && node.type === "actions";
}

function withTree(properties: unknown, definition: ActionDefinition | undefined): unknown {
  if (!definition) return properties;
  if (properties === undefined || properties === null) return definition.tree;
  if (Array.isArray(properties)) return { type: "AND", values: [...properties, definition.tree] };
  return { type: "AND", values: [properties, definition.tree] };
}

function walk(value: unknown, definitions: ReadonlyMap<number, ActionDefinition> | null, seen: number[], path: PropertyKey[]): unknown {
  if (path.length > MAX_WALK_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item, i) => walk(item, definitions, seen, [...path, i]));
  if (!isObject(value)) return value;
  const key = path.at(-1);
  if (namesAction(value, key)) {
    const id = actionId(value, path);
    seen.push(id);
    const definition = definitions?.get(id);
    const { kind: _kind, id: _id, type: _type, ...rest } = value;
    const entity = typeof key === "string" && ENTITY_KEYS.has(key);
    return {
      ...rest,
      kind: "EventsNode",
      ...(entity ? { id: null, type: "events" } : { event: null }),
      name: typeof rest.name === "string" && rest.name ? rest.name : (definition?.name ?? `Action ${id}`),
      action_id: id,
      properties: withTree(rest.properties, definition),
    };
  }
  const out: Record<string, unknown> = {};
  for (const [field, child] of Object.entries(value)) out[field] = walk(child, definitions, seen, [...path, field]);
  return out;
}

/** The action ids a query names, its shape checked (a malformed id is a QueryNodeError). */
export function actionIdsOf(query: unknown): number[] {
  const seen: number[] = [];
  walk(query, null, seen, []);
  return [...new Set(seen)];
}

/** The query with every action node expanded (definitions null: only checked, each node an EventsNode of any event). */
export function expandActionNodes(query: unknown, definitions: ReadonlyMap<number, ActionDefinition> | null): unknown {
  return walk(query, definitions, [], []);
}
