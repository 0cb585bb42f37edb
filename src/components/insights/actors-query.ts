/**
 * "Who are these people": the PostHog ActorsQuery node that lists the persons behind one
 * point of an insight — a funnel step (FunnelsActorsQuery), or a trend/stickiness/lifecycle
 * point or retention cohort (InsightActorsQuery) — and the shape of its answer.
 */
import { sourceOf } from "./query-source";
import { isObject } from "@/server/input/json-object";

/** What a renderer reports when a point is chosen: the dialog's title and the actors source. */
export interface ActorsSelection {
  title: string;
  source: Record<string, unknown>;
}

/** PostHog's ActorsQuery around an insight's actors source, persons first, a page at a time. */
export function actorsQuery(source: Record<string, unknown>, { limit = 50, offset = 0 } = {}): Record<string, unknown> {
  return { kind: "ActorsQuery", source, select: ["person"], limit, offset };
}

/** The persons who reached funnel step `stepIndex` (0-based), or with `dropped` who reached the previous step but not this one. */
export function funnelStepActors(query: unknown, stepIndex: number, { dropped = false, breakdown }: { dropped?: boolean; breakdown?: unknown } = {}): Record<string, unknown> {
  const step = stepIndex + 1;
  return {
    kind: "FunnelsActorsQuery",
    source: sourceOf(query),
    funnelStep: dropped ? -step : step,
    ...(breakdown !== undefined ? { funnelStepBreakdown: breakdown } : {}),
  };
}

/**
 * The persons behind one point of a trends, stickiness or lifecycle result, or one retention
 * cohort: `day` (a date, or for stickiness the number of intervals), `series` (index),
 * `status` (lifecycle), `interval` (retention row), `breakdown` (value).
 */
export function insightActors(
  query: unknown,
  point: { day?: string | number; series?: number; status?: string; interval?: number; breakdown?: unknown; compare?: "current" | "previous" },
): Record<string, unknown> {
  const defined = Object.fromEntries(Object.entries(point).filter(([, value]) => value !== undefined && value !== null));
  return { kind: "InsightActorsQuery", source: sourceOf(query), ...defined };
}

/** A person as ActorsQuery's `person` column gives it. */
export interface ActorPerson {
  id: string;
  distinct_ids?: string[];
  properties?: Record<string, unknown>;
  created_at?: string;
}

/** ActorsQuery's answer: `results` rows whose first column is the person. */
export interface ActorsResponse {
  columns?: unknown[];
  results: unknown[][];
  hasMore?: boolean;
  limit?: number;
  offset?: number;
}

/** The persons of an answer (the rows' first cell), skipping anything that is not one. */
export function actorPersons(response: ActorsResponse): ActorPerson[] {
  return response.results.map((row) => row[0]).filter((person): person is ActorPerson => isObject(person) && typeof person.id === "string");
}

/** How a person is named in the list: e-mail, then name, then their first distinct id, then their id. */
export function personName(person: ActorPerson): string {
  const properties = person.properties ?? {};
  for (const key of ["email", "Email", "$email", "name", "Name", "username"]) {
    const value = properties[key];
    if (typeof value === "string" && value.trim()) return value;
  }
  return person.distinct_ids?.[0] ?? person.id;
}

/** The persons who entered a conversion-trends funnel in the period starting `day` and converted (or with `dropOff`, did not). */
export function funnelTrendsActors(query: unknown, day: string | number | undefined, { dropOff = false, breakdown }: { dropOff?: boolean; breakdown?: unknown } = {}): Record<string, unknown> {
  return {
    kind: "FunnelsActorsQuery",
    source: sourceOf(query),
    funnelTrendsDropOff: dropOff,
    ...(day !== undefined ? { funnelTrendsEntrancePeriodStart: day } : {}),
    ...(breakdown !== undefined ? { funnelStepBreakdown: breakdown } : {}),
  };
}
