/**
 * Saving an edit changes only what was edited. The editor's node for the form (`built`) is
 * laid over the stored query node, piece by piece: a piece the form left as it read it
 * (`built` equals the editor's node for the stored query, `fromStored`) is written as it was
 * stored, byte for byte; an edited piece is the editor's, and a piece cleared in the form is
 * removed. Fields the editor has no control for (compareFilter, samplingFactor, a
 * breakdown's limit, a trend's legend, …) are kept as they were.
 */

import { isGroupNode, itemFromNode, itemNode } from "./filter-groups";
import { isObject, type Json } from "./json";

/** Structural equality of JSON values (key order ignored, as jsonb stores them). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((value, index) => sameJson(value, b[index]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a).filter((key) => a[key] !== undefined);
  if (keys.length !== Object.keys(b).filter((key) => b[key] !== undefined).length) return false;
  return keys.every((key) => sameJson(a[key], b[key]));
}

/**
 * The fields the editor writes, in pieces that change together: the formula's three
 * spellings are one piece (writing `formula` beside a stored `formulaNodes` would leave two
 * answers), a breakdown's value and type another.
 */
const TOP_PIECES: readonly (readonly string[])[] = [["interval"], ["properties"], ["filterTestAccounts"]];
const PART_PIECES: Record<string, readonly (readonly string[])[]> = {
  dateRange: [["date_from"], ["date_to"]],
  breakdownFilter: [["breakdown", "breakdown_type"]],
  trendsFilter: [["display"], ["formula", "formulas", "formulaNodes"]],
  funnelsFilter: [["funnelOrderType"], ["funnelVizType"], ["funnelWindowInterval"], ["funnelWindowIntervalUnit"], ["exclusions"]],
  retentionFilter: [["targetEntity"], ["returningEntity"], ["period"], ["totalIntervals"], ["retentionType"]],
  pathsFilter: [["includeEventTypes"], ["stepLimit"], ["startPoint"], ["endPoint"]],
  stickinessFilter: [["computedAs"]],
};

/** JSON with keys sorted: one spelling per value. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) => (isObject(inner) ? Object.fromEntries(Object.keys(inner).sort().map((key) => [key, inner[key]])) : inner));

/** The stored filter leaves of a tree (lists and groups), by how the editor writes each. */
function leavesOf(node: unknown, leaves = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(node)) node.forEach((value) => leavesOf(value, leaves));
  else if (isGroupNode(node)) node.values.forEach((value) => leavesOf(value, leaves));
  else if (node !== undefined) {
    const written = canonical(itemNode(itemFromNode(node)));
    if (!leaves.has(written)) leaves.set(written, node);
  }
  return leaves;
}

/** An edited filter tree with each leaf the editor writes as it would a stored one put back as stored ("a" stays "a", not ["a"]). */
function withStoredLeaves(node: unknown, leaves: Map<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((value) => withStoredLeaves(value, leaves));
  if (isGroupNode(node)) return { ...node, values: node.values.map((value) => withStoredLeaves(value, leaves)) };
  return node === undefined ? node : (leaves.get(canonical(node)) ?? node);
}

function layPieces(target: Json, built: Json, fromStored: Json, stored: Json, pieces: readonly (readonly string[])[]) {
  for (const piece of pieces) {
    const untouched = piece.every((field) => sameJson(built[field], fromStored[field]));
    for (const field of piece) {
      const value = untouched ? stored[field] : built[field];
      if (value === undefined) delete target[field];
      else target[field] = value;
    }
  }
}

/** A series left as read is the stored one; an edited one is the editor's (which carries the stored series' other fields). */
function laySeries(built: unknown, fromStored: unknown, stored: unknown): unknown {
  if (sameJson(built, fromStored)) return stored;
  if (!Array.isArray(built)) return built;
  const storedSeries = Array.isArray(stored) ? stored : [];
  const readSeries = Array.isArray(fromStored) ? fromStored : [];
  const leaves = new Map<string, unknown>();
  for (const one of storedSeries) if (isObject(one)) leavesOf(one.properties, leaves);
  return built.map((one: unknown, index) => {
    const match = sameJson(one, readSeries[index]) ? index : readSeries.findIndex((read) => sameJson(one, read));
    if (match >= 0 && storedSeries[match] !== undefined) return storedSeries[match];
    return isObject(one) && one.properties !== undefined ? { ...one, properties: withStoredLeaves(one.properties, leaves) } : one;
  });
}

/** The stored node with the edited pieces of `built` laid over it (both nodes of one kind). */
export function overStored(built: Json, fromStored: Json, stored: Json): Json {
  const source: Json = { ...stored, kind: built.kind };
  layPieces(source, built, fromStored, stored, TOP_PIECES);
  if (source.properties !== stored.properties && source.properties !== undefined) source.properties = withStoredLeaves(source.properties, leavesOf(stored.properties));
  const series = laySeries(built.series, fromStored.series, stored.series);
  if (series === undefined) delete source.series;
  else source.series = series;
  for (const [part, pieces] of Object.entries(PART_PIECES)) {
    const storedPart = isObject(stored[part]) ? stored[part] : {};
    const builtPart = isObject(built[part]) ? built[part] : {};
    const readPart = isObject(fromStored[part]) ? fromStored[part] : {};
    const merged: Json = { ...storedPart };
    layPieces(merged, builtPart, readPart, storedPart, pieces);
    if (Object.keys(merged).length) source[part] = merged;
    else if (part in stored && sameJson(builtPart, readPart)) source[part] = stored[part];
    else delete source[part];
  }
  return source;
}
