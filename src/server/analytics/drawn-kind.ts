/**
 * What a stored insight query asks to be drawn: the node that runs (a wrapper's `source`)
 * and its kind, with the funnel's visualisation. Read only to pick a renderer, never trusted
 * beyond that: each renderer checks the result's shape itself. On the server so that the
 * share page sends only the results its renderers draw (src/server/sharing/service.ts); the
 * UI reads it through src/components/insights/query-source.ts.
 */
import { isObject } from "@/server/input/json-object";

/** PostHog's wrappers around a runnable node. */
const WRAPPERS = new Set(["InsightVizNode", "DataVisualizationNode", "DataTableNode"]);

/** The runnable node of `query` (the wrapper's `source`, else itself), or an empty object. */
export function sourceOf(query: unknown): Record<string, unknown> {
  if (!isObject(query)) return {};
  if (typeof query.kind === "string" && WRAPPERS.has(query.kind)) return isObject(query.source) ? query.source : {};
  return query;
}

export type ResultKind = "trends" | "funnel-steps" | "funnel-time" | "funnel-trends" | "retention" | "lifecycle" | "stickiness" | "paths" | "hogql" | "unknown";

/** The renderer a query's result needs. */
export function resultKindOf(query: unknown): ResultKind {
  const source = sourceOf(query);
  switch (source.kind) {
    case "TrendsQuery":
      return "trends";
    case "FunnelsQuery": {
      const viz = isObject(source.funnelsFilter) ? source.funnelsFilter.funnelVizType : undefined;
      return viz === "time_to_convert" ? "funnel-time" : viz === "trends" ? "funnel-trends" : "funnel-steps";
    }
    case "RetentionQuery":
      return "retention";
    case "LifecycleQuery":
      return "lifecycle";
    case "StickinessQuery":
      return "stickiness";
    case "PathsQuery":
      return "paths";
    case "HogQLQuery":
      return "hogql";
    default:
      return "unknown";
  }
}
