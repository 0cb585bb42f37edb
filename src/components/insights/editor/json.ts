/** Reading a stored query node, which is JSON of any shape: what the editor's readers share. */
export type Json = Record<string, unknown>;

export { isObject } from "@/server/input/json-object";

export const isScalar = (value: unknown): value is string | number | boolean => typeof value === "string" || typeof value === "number" || typeof value === "boolean";

/** A scalar as the form's text (numbers and booleans spelled out), anything else empty. */
export const text = (value: unknown): string => (isScalar(value) ? String(value) : "");
