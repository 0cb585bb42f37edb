/**
 * Reading JSON of unknown shape — request bodies, stored query nodes and filters, answers a
 * page checks before it trusts them: whether a value is an object (not null, not a list).
 * Client-safe: the pages read their answers with it too.
 */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
