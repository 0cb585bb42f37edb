/**
 * Paths: which steps people take from one page (screen, event) to the next. The event
 * store reads each actor's events of the range in time order with their path items
 * (`actorEvents`); the algorithm (paths.ts) runs here over them, whichever store answered.
 *
 * Results come in PostHog's shape: `[{source: "1_/home", target: "2_/pricing", value,
 * average_conversion_time}]`, milliseconds.
 */
import type { ActorEvents, ActorEventsQuery, EventMatcher } from "@/server/db/events/actor-events/query";
import { checkEventFilters } from "@/server/events/service";
import { requireCohorts, cohortIdsOf } from "@/server/db/events/filters/cohorts";
import { parseNode, type ActorKey, type QueryEnv, type QueryKind } from "@/server/analytics/kind";
import { resolveDateRange, type ResolvedDateRange } from "@/server/analytics/date-range";
import { compareCodePoints } from "@/server/properties/coerce";
import { TimeSlice } from "@/server/event-loop";
import { pathsActorsSelectorSchema, pathsQuerySchema, pathsSpec, type PathsActorKeys, type PathsSpec } from "./contract";
import { EdgeTally, ELLIPSIS, forEachSession, pathItemCleaner, selectedSteps, trimmedPath, type PathsEdge, type TimedPath } from "./paths";

export type { PathsEdge } from "./paths";

/** Matcher bits: which of an actor's events are page views and screens (the rest are other events). */
const PAGEVIEW_BIT = 1;
const SCREEN_BIT = 2;

/** The read of the spec's events: page views and screens tagged, other events read too when they may count. */
function eventsQuery(spec: PathsSpec, range: ResolvedDateRange, now: Date): ActorEventsQuery {
  const matchers: EventMatcher[] = [
    { event: "$pageview", filters: [] },
    { event: "$screen", filters: [] },
  ];
  const types = spec.includeEventTypes;
  return {
    from: range.from,
    to: range.to,
    now,
    filters: spec.properties ? [spec.properties] : [],
    matchers,
    everyEvent: types.length === 0 || types.includes("custom_event"),
    values: [{ type: "path" }],
  };
}

/** Whether an event of this mask and raw item is on paths: all events without includeEventTypes, else the kinds named (custom events: names not starting with `$`). */
function includedBy(spec: PathsSpec): (mask: number, raw: string) => boolean {
  const types = spec.includeEventTypes;
  if (types.length === 0) return () => true;
  const pageviews = types.includes("$pageview");
  const screens = types.includes("$screen");
  const custom = types.includes("custom_event");
  return (mask, raw) => (mask & PAGEVIEW_BIT ? pageviews : mask & SCREEN_BIT ? screens : custom && !raw.startsWith("$"));
}

/**
 * Path items as small integers, each raw item cleaned, grouped and checked against the
 * exclusions once: a project has far fewer distinct items than events, and ids make
 * sessions and edges cheap to compare and count.
 */
class PathItemIds {
  readonly names: string[] = [];
  private readonly byName = new Map<string, number>();
  /** Raw item → id, or -1 when the cleaned item is excluded. */
  private readonly byRaw = new Map<string, number>();
  private readonly clean: (raw: string) => string;
  private readonly excluded: Set<string>;

  constructor(spec: PathsSpec) {
    this.clean = pathItemCleaner(spec);
    this.excluded = new Set(spec.excludeEvents);
  }

  ofName(name: string): number {
    let id = this.byName.get(name);
    if (id === undefined) {
      id = this.names.push(name) - 1;
      this.byName.set(name, id);
    }
    return id;
  }

  ofRaw(raw: string): number {
    let id = this.byRaw.get(raw);
    if (id === undefined) {
      const item = this.clean(raw);
      id = this.excluded.has(item) ? -1 : this.ofName(item);
      this.byRaw.set(raw, id);
    }
    return id;
  }
}

/**
 * Hands each counted path of the actors (one per session that counts) to `visit`, items as ids
 * of `ids`. An actor per step, yielding when its slice of the thread is up: a long range's
 * millions of page views were one synchronous turn (issue 32).
 */
async function forEachCountedPath(actors: readonly ActorEvents[], spec: PathsSpec, ids: PathItemIds, visit: (actor: ActorKey, path: TimedPath<number>) => void): Promise<void> {
  const included = includedBy(spec);
  const points = {
    start: spec.startPoint === null ? null : ids.ofName(spec.startPoint),
    end: spec.endPoint === null ? null : ids.ofName(spec.endPoint),
    stepLimit: spec.stepLimit,
  };
  const ellipsis = ids.ofName(ELLIPSIS);
  const items: number[] = [];
  const times: number[] = [];
  const slice = new TimeSlice();
  for (const actor of actors) {
    await slice.pace();
    items.length = 0;
    times.length = 0;
    const raws = actor.values[0]!;
    for (let i = 0; i < actor.times.length; i++) {
      // A page view without a URL (a screen without a name) is the empty item, as PostHog's ifNull(…, '').
      const raw = raws[i] ?? "";
      if (!included(actor.masks[i]!, raw)) continue;
      const id = ids.ofRaw(raw);
      if (id < 0) continue;
      items.push(id);
      times.push(actor.times[i]!);
    }
    forEachSession(items, times, (session) => {
      const path = trimmedPath(session, points, ellipsis);
      if (path) visit(actor.actor, path);
    });
  }
}

/** The actors' events of the spec's range (page views and screens tagged). */
async function readActorEvents(env: QueryEnv, spec: PathsSpec): Promise<{ range: ResolvedDateRange; actors: ActorEvents[] }> {
  const { db, projectId, zone, now } = env;
  const earliest = spec.dateRange.date_from === "all" ? await db.events.earliestTimestamp(projectId) : null;
  const range = resolveDateRange(spec.dateRange, "day", zone, now, earliest);
  await requireCohorts(db.sql, projectId, cohortIdsOf([spec.properties]));
  await db.events.checkFilters(spec.properties);
  const actors = await db.events.actorEvents(projectId, eventsQuery(spec, range, now));
  return { range, actors };
}

/** The spec's edges over the actors' events. */
export async function pathsEdges(actors: readonly ActorEvents[], spec: PathsSpec): Promise<PathsEdge[]> {
  const ids = new PathItemIds(spec);
  const tally = new EdgeTally(ids.names);
  await forEachCountedPath(actors, spec, ids, (_, path) => tally.add(path));
  return tally.results(spec);
}

/** The spec's edges over the project's events. */
export async function computePaths(env: QueryEnv, spec: PathsSpec): Promise<{ results: PathsEdge[]; range: ResolvedDateRange }> {
  const { range, actors } = await readActorEvents(env, spec);
  return { results: await pathsEdges(actors, spec), range };
}

/**
 * The actors behind an edge (`pathStartKey` → `pathEndKey`), a node (either alone) or a
 * drop-off (`pathDropoffKey`: paths ending at that node), most often first; with no key,
 * everyone with a path.
 */
export async function pathsActors(env: QueryEnv, spec: PathsSpec, keys: PathsActorKeys): Promise<ActorKey[]> {
  const { actors } = await readActorEvents(env, spec);
  const ids = new PathItemIds(spec);
  const steps = new Map<ActorKey, number>();
  await forEachCountedPath(actors, spec, ids, (actor, path) => {
    const selected = selectedSteps({ items: path.items.map((id) => ids.names[id]!), times: path.times }, keys);
    if (selected > 0) steps.set(actor, (steps.get(actor) ?? 0) + selected);
  });
  return [...steps]
    .sort(([a, stepsA], [b, stepsB]) => stepsB - stepsA || compareCodePoints(a, b))
    .map(([actor]) => actor);
}

/** PathsQuery for the query API. */
export const pathsKind: QueryKind<PathsSpec> = {
  kind: "PathsQuery",
  spec: (node, override) => pathsSpec(parseNode(pathsQuerySchema, node), override),
  check: ({ db, projectId }, spec) => checkEventFilters(db, projectId, [spec.properties]),
  async compute(env, spec) {
    const { results, range } = await computePaths(env, spec);
    return { results, range: { from: range.dateFrom, to: range.dateTo }, weight: 1 + results.length };
  },
  async actors(env, spec, selector) {
    const given = parseNode(pathsActorsSelectorSchema, selector);
    const fromSelector: PathsActorKeys = { start: given.pathStartKey ?? null, end: given.pathEndKey ?? null, dropoff: given.pathDropoffKey ?? null };
    const keys = fromSelector.start || fromSelector.end || fromSelector.dropoff ? fromSelector : (spec.actorKeys ?? { start: null, end: null, dropoff: null });
    return pathsActors(env, spec, keys);
  },
};
