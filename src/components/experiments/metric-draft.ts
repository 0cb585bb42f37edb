/**
 * The one-event metric the pages' metric fields edit (a conversion, or per person a count or a
 * property's sum), and the way between it and a stored ExperimentMetric. A stored metric with
 * more than that (several steps, an action, property filters) has no draft: the pages keep its
 * query as it is rather than drop what they do not show.
 */
import type { SavedMetricResource } from "@/server/experiments/contract";

export type MetricType = "funnel" | "mean";

export interface MetricDraft {
  type: MetricType;
  event: string;
  /** The property a mean sums; empty: the mean counts the event. */
  property: string;
}

export const EMPTY_METRIC_DRAFT: MetricDraft = { type: "funnel", event: "", property: "" };

/** The ExperimentMetric of a draft (the sum's property only for a mean). */
export function metricOf(draft: MetricDraft) {
  const event = draft.event.trim();
  const property = draft.type === "mean" ? draft.property.trim() : "";
  return draft.type === "funnel"
    ? { kind: "ExperimentMetric" as const, metric_type: "funnel" as const, name: event, series: [{ kind: "EventsNode" as const, event: event || null }] }
    : {
        kind: "ExperimentMetric" as const,
        metric_type: "mean" as const,
        name: property ? `${event} ${property}` : event,
        source: { kind: "EventsNode" as const, event: event || null, ...(property ? { math: "sum" as const, math_property: property } : { math: "total" as const }) },
      };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Metric fields the draft does not show but an edit keeps (its identity, goal and window). */
const KEPT = ["uuid", "goal", "conversion_window", "conversion_window_unit"] as const;
/** Metric fields the draft rebuilds, or that PostHog derives. */
const REBUILT = new Set(["kind", "metric_type", "name", "series", "source", "funnel_order_type", "fingerprint", "isSharedMetric", "sharedMetricId", ...KEPT]);

/** A node of one event and nothing else, with its math; null when it has more (filters, an action, a custom name). */
function plainEvent(node: unknown): { event: string; math: unknown; mathProperty: unknown } | null {
  if (!isObject(node)) return null;
  const { kind = "EventsNode", event, properties, math = null, math_property: mathProperty = null, name = null, ...rest } = node;
  const noFilters = properties === undefined || properties === null || (Array.isArray(properties) && properties.length === 0);
  const plainName = name === null || name === event;
  if (kind !== "EventsNode" || typeof event !== "string" || event === "" || !noFilters || !plainName) return null;
  if (Object.values(rest).some((value) => value !== null && value !== undefined)) return null;
  return { event, math, mathProperty };
}

/** The draft of a stored metric, or null when the fields cannot show all of it. */
export function draftOf(query: unknown): MetricDraft | null {
  if (!isObject(query) || query.kind !== "ExperimentMetric") return null;
  if (Object.keys(query).some((key) => !REBUILT.has(key))) return null;
  if (query.metric_type === "funnel") {
    const steps = Array.isArray(query.series) ? query.series : [];
    const step = steps.length === 1 ? plainEvent(steps[0]) : null;
    return step && step.math === null && step.mathProperty === null ? { type: "funnel", event: step.event, property: "" } : null;
  }
  if (query.metric_type === "mean") {
    const source = plainEvent(query.source);
    if (!source) return null;
    if (source.math === "sum" && typeof source.mathProperty === "string" && source.mathProperty) return { type: "mean", event: source.event, property: source.mathProperty };
    return (source.math === "total" || source.math === null) && source.mathProperty === null ? { type: "mean", event: source.event, property: "" } : null;
  }
  return null;
}

/** A stored metric with its one event replaced by the draft's: its uuid, goal and conversion window stay. */
export function editedMetric(stored: unknown, draft: MetricDraft) {
  const kept = isObject(stored) ? Object.fromEntries(KEPT.filter((key) => stored[key] !== undefined).map((key) => [key, stored[key]])) : {};
  return { ...kept, ...metricOf(draft) };
}

/** What a shared metric measures, in a few words. */
export function describeMetric(metric: Pick<SavedMetricResource, "query">): string {
  const query = metric.query as { metric_type?: string; series?: { event?: string | null; kind?: string; id?: number }[]; source?: { event?: string | null; kind?: string; id?: number; math?: string; math_property?: string } };
  const node = (entry?: { event?: string | null; kind?: string; id?: number }) => (entry?.kind === "ActionsNode" ? `action ${entry.id}` : (entry?.event ?? "any event"));
  if (query.metric_type === "funnel") return `Conversion: ${(query.series ?? []).map(node).join(" → ")}`;
  if (query.source?.math === "sum") return `Mean: sum of ${query.source.math_property} on ${node(query.source)}`;
  return `Mean: count of ${node(query.source)}`;
}
