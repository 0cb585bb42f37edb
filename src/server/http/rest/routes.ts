import { projectRoutes } from "./resources/accounts";
import { actionRoutes } from "./resources/actions";
import { alertRoutes } from "./resources/alerts";
import { batchExportRoutes } from "./resources/batch-exports";
import { experimentRoutes } from "./resources/experiments";
import { collaboratorRoutes } from "./resources/collaborators";
import { dashboardRoutes } from "./resources/dashboards";
import { definitionRoutes } from "./resources/definitions";
import { eventRoutes } from "./resources/events";
import { flagRoutes } from "./resources/flags";
import { hogFunctionRoutes } from "./resources/hog-functions";
import { subscriptionRoutes } from "./resources/subscriptions";
import { insightRoutes } from "./resources/insights";
import { personRoutes } from "./resources/persons";
import { sharingRoutes } from "./resources/sharing";
import { transformationRoutes } from "./resources/transformations";
import { cohortRoutes } from "./resources/cohorts";
import { queryRoutes } from "./resources/query";
import { recordingRoutes } from "./resources/recordings";
import { earlyAccessRoutes } from "./resources/early-access";
import { surveyRoutes } from "./resources/surveys";
import { methodNotAllowed, REST_METHODS, type RestMethod, type RestPrefix, type RestResource, type RouteHandler } from "./route";

/**
 * Every management resource under `/api/projects/:project_id/` and
 * `/api/environments/:project_id/`, declared once. Next serves them through one catch-all
 * route per prefix (src/app/api/<prefix>/[project_id]/[[...path]]/route.ts), which matches
 * the path here. A new resource goes into its domain's `routes.ts` and that list into this one.
 */
export const REST_ROUTES: readonly RestResource[] = [
  ...projectRoutes,
  ...dashboardRoutes,
  ...collaboratorRoutes,
  ...sharingRoutes,
  ...insightRoutes,
  ...eventRoutes,
  ...definitionRoutes,
  ...flagRoutes,
  ...transformationRoutes,
  ...cohortRoutes,
  ...actionRoutes,
  ...experimentRoutes,
  ...hogFunctionRoutes,
  ...alertRoutes,
  ...subscriptionRoutes,
  ...batchExportRoutes,
  ...personRoutes,
  ...queryRoutes,
  ...recordingRoutes,
  ...earlyAccessRoutes,
  ...surveyRoutes,
];

const segmentsOf = (path: string) => path.split("/").filter((segment) => segment !== "");

const COMPILED = REST_ROUTES.map((resource) => ({ resource, segments: segmentsOf(resource.path) }));

/**
 * Whether `a` is more specific than `b` where both match: the first segment where one is a
 * literal and the other a `:param` decides, as Next prefers `events/values` to `events/[id]`.
 */
function moreSpecific(a: string[], b: string[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const aParam = a[i]!.startsWith(":");
    const bParam = b[i]!.startsWith(":");
    if (aParam !== bParam) return bParam;
  }
  return false;
}

export interface RestMatch {
  resource: RestResource;
  /** The `:name` segments of the resource's path, with `project_id` added by the caller. */
  params: Record<string, string>;
}

/**
 * The resource `segments` (the decoded path after `/api/<prefix>/:project_id/`, a trailing
 * empty segment ignored) names under `prefix`, or undefined.
 */
export function matchRestRoute(prefix: RestPrefix, segments: readonly string[]): RestMatch | undefined {
  const path = segments.at(-1) === "" ? segments.slice(0, -1) : segments;
  let best: { resource: RestResource; segments: string[] } | undefined;
  for (const candidate of COMPILED) {
    if (candidate.segments.length !== path.length) continue;
    if (candidate.resource.prefixes && !candidate.resource.prefixes.includes(prefix)) continue;
    if (!candidate.segments.every((segment, i) => segment.startsWith(":") || segment === path[i])) continue;
    if (!best || moreSpecific(candidate.segments, best.segments)) best = candidate;
  }
  if (!best) return undefined;
  const params: Record<string, string> = {};
  best.segments.forEach((segment, i) => {
    if (segment.startsWith(":")) params[segment.slice(1)] = path[i]!;
  });
  return { resource: best.resource, params };
}

/** Next's answer to a method a route does not define. */
const emptyMethodNotAllowed: RouteHandler = async () => new Response(null, { status: 405 });

/** The handler for `method` on `resource`: its own, PostHog's 405, or Next's empty one. */
export function handlerFor(resource: RestResource, method: RestMethod): RouteHandler {
  if (resource.undefinedMethods?.includes(method)) return emptyMethodNotAllowed;
  return resource.methods[method] ?? methodNotAllowed;
}

/** `Allow` as Next computes it for OPTIONS: the methods defined, HEAD with GET, and OPTIONS. */
export function allowHeader(resource: RestResource): string {
  const defined = REST_METHODS.filter((method) => !resource.undefinedMethods?.includes(method));
  return [...defined, "HEAD", "OPTIONS"].sort().join(", ");
}

const PREFIXED_PATH = /^\/api\/(projects|environments)\/([^/]+)(?:\/(.*))?$/;

/**
 * Whether a request path lies under `/api/<prefix>/:project_id/` but names no resource.
 * server.ts answers these with Next's 404 page before Next is reached, as Next did when each
 * resource was its own route file: the catch-all route can only answer an empty 404.
 */
export function isUnknownRestPath(pathname: string): boolean {
  const match = PREFIXED_PATH.exec(pathname);
  if (!match) return false;
  let segments: string[];
  try {
    segments = (match[3] ?? "").split("/").map(decodeURIComponent);
  } catch {
    return false; // Malformed escapes: Next answers them as before.
  }
  return matchRestRoute(match[1] as RestPrefix, segments) === undefined;
}
