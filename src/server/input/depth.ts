/**
 * How deeply management input may nest. JSON.parse reads any depth, but every walk over
 * the value afterwards (the NUL check, zod, the cache key) recurses, and a body of 50,000
 * nested lists ran them out of stack: a 500. No contract nests anywhere near this deep.
 */
import { AppError } from "@/server/errors";

export const MAX_INPUT_DEPTH = 200;

/** Throws a 400 when `value` nests objects or lists more than MAX_INPUT_DEPTH deep (measured without recursion). */
export function refuseDeepNesting(value: unknown): void {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth >= MAX_INPUT_DEPTH) throw new AppError("invalid_input", `The input is nested more than ${MAX_INPUT_DEPTH} levels deep.`);
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === "object" && child !== null) pending.push([child, depth + 1]);
    }
  }
}
