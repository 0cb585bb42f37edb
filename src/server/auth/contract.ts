import { z } from "zod";

/** Objects a personal API key can be scoped to, as `<object>:read` / `<object>:write`. */
export const SCOPE_OBJECTS = [
  "action",
  /** Insight alerts: `/alerts/` (PostHog's scope object). */
  "alert",
  /** Batch exports: `/batch_exports/`, their runs and backfills (PostHog's scope object). */
  "batch_export",
  "cohort",
  "dashboard",
  "early_access_feature",
  "event_definition",
  /** Experiments, their holdouts and results (PostHog's `experiment` scope object). */
  "experiment",
  "feature_flag",
  /** Destinations: `/hog_functions/` (PostHog's scope object). */
  "hog_function",
  "insight",
  "person",
  "plugin",
  "project",
  "property_definition",
  "query",
  /** Session replay: `/session_recordings/` (PostHog's scope object). */
  "session_recording",
  "sharing_configuration",
  /** Subscriptions: `/subscriptions/` (PostHog's scope object). */
  "subscription",
  "survey",
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

/** Wrong passwords in a row before an e-mail address is locked out of sign-in. */
export const SIGN_IN_MAX_FAILURES = 5;

/** next-auth's session cookie: `__Secure-` prefixed when the site is served over https. */
export const SESSION_COOKIES = ["__Secure-next-auth.session-token", "next-auth.session-token"] as const;

/**
 * Sessions are next-auth JWT cookies, valid for 14 days by their signature alone. To end
 * them early, each user has a session version: the JWT carries the version at sign-in
 * (claim `sv`), the session check compares it with the user's row (read on every request
 * anyway, for `isActive`), and sign-out or a password change bumps it. Bumping ends every
 * session of that user on every node at once, since the check reads the database.
 */
export const SESSION_VERSION_CLAIM = "sv";

/** The signed-in user of a browser session. */
export interface SessionUser {
  id: number;
  uuid: string;
  email: string;
  firstName: string;
  currentProjectId: number | null;
}

/** Who a personal API key speaks for, and what it may do. */
export interface ApiKeyPrincipal {
  keyId: string;
  user: { id: number; uuid: string; email: string; currentProjectId: number | null };
  scopes: string[];
  /** Projects the key is limited to; empty: every project the user can access. */
  scopedProjects: number[];
}

/** The request header the proxy (src/proxy.ts) puts the page's path and query in, for the sign-in redirect. */
export const RETURN_PATH_HEADER = "x-burrow-return-path";

/**
 * Where sign-in may send the browser back to: a path of this site (`/events?event=x`), never
 * another origin. Anything else — absolute URLs, protocol-relative `//evil.com`, `/\evil.com`
 * (browsers read the backslash as a slash), control characters (which the URL parser drops,
 * turning `/\t/evil.com` into `//evil.com`), the sign-in pages themselves — is "/".
 */
export function safeReturnPath(raw: unknown): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2000) return "/";
  if (!raw.startsWith("/") || raw.startsWith("//") || raw.includes("\\")) return "/";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return "/";
  const base = "http://burrow.invalid";
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return "/";
  }
  if (url.origin !== base) return "/";
  if (/^\/(login|signup)(\/|$)/.test(url.pathname)) return "/";
  if (url.searchParams.has("_rsc")) url.searchParams.delete("_rsc");
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page for a visitor who wanted `path` (no callback for the home page). */
export function loginPathFor(path: string | null | undefined): string {
  const back = safeReturnPath(path);
  return back === "/" ? "/login" : `/login?callbackUrl=${encodeURIComponent(back)}`;
}
