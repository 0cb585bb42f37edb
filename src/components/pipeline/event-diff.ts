/**
 * What a transformation chain did to an event, as a list of changes: the event name and
 * distinct id, and the properties — nested objects compared key by key (`address.city`),
 * anything else (lists, scalars) as one value.
 */
import { isObject } from "@/server/input/json-object";

export type DiffKind = "added" | "removed" | "changed";

export interface DiffEntry {
  /** `event`, `distinct_id`, or `properties.<key>[.<key>…]`. */
  path: string;
  kind: DiffKind;
  before?: unknown;
  after?: unknown;
}

interface EventShape {
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
}

/** Same JSON value (object key order ignored). */
function same(a: unknown, b: unknown): boolean {
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && same(a[key], b[key]));
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
  return Object.is(a, b) || (a === b);
}

function diffObjects(prefix: string, before: Record<string, unknown>, after: Record<string, unknown>, out: DiffEntry[]): void {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const key of keys) {
    const path = `${prefix}.${key}`;
    const had = Object.prototype.hasOwnProperty.call(before, key);
    const has = Object.prototype.hasOwnProperty.call(after, key);
    if (had && !has) out.push({ path, kind: "removed", before: before[key] });
    else if (!had && has) out.push({ path, kind: "added", after: after[key] });
    else if (isObject(before[key]) && isObject(after[key])) diffObjects(path, before[key] as Record<string, unknown>, after[key] as Record<string, unknown>, out);
    else if (!same(before[key], after[key])) out.push({ path, kind: "changed", before: before[key], after: after[key] });
  }
}

/** The changes from `before` to `after` (null `after`: the event was dropped — no entries, the caller says so). */
export function eventDiff(before: EventShape, after: EventShape | null): DiffEntry[] {
  if (!after) return [];
  const out: DiffEntry[] = [];
  if (before.event !== after.event) out.push({ path: "event", kind: "changed", before: before.event, after: after.event });
  if (before.distinct_id !== after.distinct_id) out.push({ path: "distinct_id", kind: "changed", before: before.distinct_id, after: after.distinct_id });
  diffObjects("properties", before.properties ?? {}, after.properties ?? {}, out);
  return out;
}

/** A value as the diff shows it: JSON, long ones cut. */
export function diffValue(value: unknown, max = 120): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
