/**
 * Management input's two shape checks — nesting depth (depth.ts) and U+0000 (nul.ts) — in
 * one walk without recursion that copies no path: each frame points at its parent, and a
 * path is spelled out only for the field refused. The two walks it replaces each copied the
 * path for every element, twice per request: 1 MB of `[{},{},…]` stalled the server up to
 * 2.6 s (issue 32). Same answers: the first NUL in document order (a key before its value).
 */
import { AppError } from "@/server/errors";
import { MAX_INPUT_DEPTH } from "./depth";
import { hasNul, NUL_MESSAGE } from "./nul";

/** A container being walked: its keys (null: a list) and the position of the next child. */
interface Level {
  node: object;
  keys: string[] | null;
  next: number;
}

const isPlainObject = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** The children a walk reads: a list's items, a plain object's own keys, anything else's enumerable values (a Date: none). */
const keysOf = (node: object): string[] | null => (Array.isArray(node) ? null : isPlainObject(node) ? Object.keys(node) : Object.keys(node));

const isEmpty = (node: object): boolean => {
  if (Array.isArray(node)) return node.length === 0;
  for (const _ in node) return false;
  return true;
};

const tooDeep = () => new AppError("invalid_input", `The input is nested more than ${MAX_INPUT_DEPTH} levels deep.`);

/** Throws a 400 when `value` nests more than MAX_INPUT_DEPTH deep or holds U+0000 (naming the field, `a__b__0`). */
export function refuseHostileInput(value: unknown): void {
  const nul = (levels: Level[]) => {
    const path = levels.map((level) => String(level.keys ? level.keys[level.next - 1] : level.next - 1));
    return new AppError("invalid_input", NUL_MESSAGE, path.length > 0 ? path.join("__") : null);
  };
  if (typeof value === "string") {
    if (hasNul(value)) throw nul([]);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  // Containers are entered depth first, so the path to a child is the levels' positions;
  // empty ones are only counted (a list of a million `{}` enters none).
  const levels: Level[] = [{ node: value, keys: keysOf(value), next: 0 }];
  while (levels.length > 0) {
    const level = levels[levels.length - 1]!;
    const { node, keys } = level;
    const size = keys ? keys.length : (node as unknown[]).length;
    if (level.next >= size) {
      levels.pop();
      continue;
    }
    const index = level.next++;
    let child: unknown;
    if (keys) {
      const key = keys[index]!;
      if (hasNul(key)) throw nul(levels);
      child = (node as Record<string, unknown>)[key];
    } else child = (node as unknown[])[index];
    if (typeof child === "string") {
      if (hasNul(child)) throw nul(levels);
    } else if (typeof child === "object" && child !== null) {
      // The child's depth is the number of levels above it.
      if (levels.length >= MAX_INPUT_DEPTH) throw tooDeep();
      if (!isEmpty(child)) levels.push({ node: child, keys: keysOf(child), next: 0 });
    }
  }
}
