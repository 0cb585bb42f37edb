import { z } from "zod";

/** Objects a personal API key can be scoped to, as `<object>:read` / `<object>:write`. */
export const SCOPE_OBJECTS = [
  "dashboard",
  "feature_flag",
  "insight",
  "person",
  "plugin",
  "project",
  "query",
  "sharing_configuration",
  /** PostHog's `user` scope object: `/api/users/@me/`. */
  "user",
] as const;
export type ScopeObject = (typeof SCOPE_OBJECTS)[number];

export const ALL_SCOPES = [
  "*",
  ...SCOPE_OBJECTS.flatMap((object) => [`${object}:read`, `${object}:write`] as const),
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

export const scopeSchema = z.enum(ALL_SCOPES, { error: (issue) => `Unknown scope '${String(issue.input)}'.` });
export const scopesSchema = z.array(scopeSchema).min(1, "Choose at least one scope.");

/** Whether a key's scopes allow `needed`; write implies read. */
export function hasScope(scopes: readonly string[], needed: `${ScopeObject}:${"read" | "write"}`): boolean {
  if (scopes.includes("*") || scopes.includes(needed)) return true;
  const [object, access] = needed.split(":");
  return access === "read" && scopes.includes(`${object}:write`);
}
