/**
 * Query-string parameters as zod building blocks: one value each (a repeated parameter is a
 * 400 naming it), bounded, as the list contracts read them.
 */
import { z } from "zod";
import { storableText } from "@/server/properties/coerce";

/** One text value, at most `max` characters; NUL and lone surrogates read as U+FFFD. */
export function queryText(name: string, max: number) {
  return z
    .string({ error: `${name} must be given once.` })
    .max(max, `${name} must be at most ${max} characters.`)
    .transform(storableText);
}

/** One non-negative integer, at most `max`. */
export function queryCount(name: string, max: number) {
  return z
    .string({ error: `${name} must be given once.` })
    .regex(/^[0-9]{1,10}$/, `${name} must be a non-negative integer.`)
    .transform(Number)
    .refine((n) => n <= max, `${name} must be at most ${max}.`);
}
