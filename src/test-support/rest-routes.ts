import fs from "node:fs";
import path from "node:path";
import { handlerFor, matchRestRoute, REST_ROUTES } from "@/server/http/rest/routes";
import { REST_METHODS, type RestMethod, type RestPrefix, type RouteHandler } from "@/server/http/rest/route";

/**
 * For tests that call handlers directly: what the route table serves at
 * `/api/<prefix>/:project_id/<path>`, as a route module's exports (one handler per method,
 * with PostHog's 405 for the others). `path` is the table's pattern (`dashboards/:id`); it
 * goes through the real matcher, so a resource missing under `prefix` fails here.
 */
export function restRoute(prefix: RestPrefix, path: string): Record<RestMethod, RouteHandler> {
  const match = matchRestRoute(prefix, path.split("/"));
  if (!match || match.resource.path !== path) throw new Error(`no resource ${path} under /api/${prefix}/`);
  return Object.fromEntries(REST_METHODS.map((method) => [method, handlerFor(match.resource, method)])) as Record<RestMethod, RouteHandler>;
}

const API_DIR = path.resolve("src/app/api");
const PREFIXED = /^(projects|environments)\/:project_id(?:\/(.*))?$/;

function routeFilePatterns(dir = API_DIR): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFilePatterns(full);
    if (entry.name !== "route.ts") return [];
    return [path.relative(API_DIR, dir).split(path.sep).join("/").replace(/\[(\w+)\]/g, ":$1")];
  });
}

/**
 * Every route under /api/ as a pattern (`projects/:project_id/dashboards/:id`,
 * `users/:user_id`): each resource of the route table under each prefix it is mounted
 * under, and every other route file (the tables' catch-alls left out).
 */
export function apiRoutePatterns(): string[] {
  const files = routeFilePatterns().filter((pattern) => !pattern.includes("[[..."));
  const table = REST_ROUTES.flatMap((resource) =>
    (resource.prefixes ?? ["projects", "environments"]).map((prefix) => `${prefix}/:project_id${resource.path ? `/${resource.path}` : ""}`),
  );
  return [...files, ...table];
}

/** The handlers at an `apiRoutePatterns` pattern: from the route table, or the route file's exports. */
export async function apiRouteHandlers(pattern: string): Promise<Record<string, RouteHandler>> {
  const prefixed = PREFIXED.exec(pattern);
  if (prefixed) return restRoute(prefixed[1] as RestPrefix, prefixed[2] ?? "");
  return (await import(`@/app/api/${pattern.replace(/:(\w+)/g, "[$1]")}/route`)) as Record<string, RouteHandler>;
}

/** A handler as `restRoute` gives it (or a route module exports it). */
type CallableHandler = (request: Request, route: { params: Promise<unknown> }) => Promise<Response>;

/**
 * Calls route handlers as a project's API client would, with the personal key `auth()` gives
 * (read at each call: tests set it in beforeAll): the status and the parsed JSON body.
 */
export function projectApiCaller(auth: () => { projectId: number; apiKey: string }) {
  return async (handler: CallableHandler, method: string, path: string, params: Record<string, string> = {}, body?: unknown) => {
    const { projectId, apiKey } = auth();
    const response = await handler(
      new Request(`http://localhost/api/projects/${projectId}/${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      { params: Promise.resolve({ project_id: String(projectId), ...params }) },
    );
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
}
