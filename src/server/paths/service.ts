/**
 * Paths: which steps people take from one page (screen, event) to the next. The event
 * store reads each actor's events of the range in time order with their path items
 * (`actorEvents`); the algorithm (paths.ts) runs here over them, whichever store answered.
 *
 * Results come in PostHog's shape: `[{source: "1_/home", target: "2_/pricing", value,
 * average_conversion_time}]`, milliseconds.
 */
import type { ActorEvents, ActorEventsQuery, EventMatcher } from "@/server/db/events/actor-events";
import { guarded } from "@/server/events/service";
import { requireCohorts, cohortIdsOf } from "@/server/db/events/cohorts";
import { parseNode, type ActorKey, type QueryEnv, type QueryKind } from "@/server/analytics/kind";
import { resolveDateRange, type ResolvedDateRange } from "@/server/analytics/date-range";
import { compareCodePoints } from "@/server/properties/coerce";
import { pathsActorsSelectorSchema, pathsQuerySchema, pathsSpec, type PathsActorKeys, type PathsSpec } from "./contract";
import { collapseRepeats, EdgeTally, pathItemCleaner, selectedSteps, splitSessions, trimmedPath, type CountedPath, type PathsEdge } from "./paths";

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

/** Every counted path of one actor's events (one per session that counts). */
function actorPaths(actor: ActorEvents, spec: PathsSpec, included: (mask: number, raw: string) => boolean, clean: (raw: string) => string, excluded: Set<string>): CountedPath[] {
  const items: string[] = [];
  const times: number[] = [];
  const raws = actor.values[0]!;
  for (let i = 0; i < actor.times.length; i++) {
    // A page view without a URL (a screen without a name) is the empty item, as PostHog's ifNull(…, '').
    const raw = raws[i] ?? "";
    if (!included(actor.masks[i]!, raw)) continue;
    const item = clean(raw);
    if (excluded.has(item)) continue;
    items.push(item);
    times.push(actor.times[i]!);
  }
  const paths: CountedPath[] = [];
  for (const session of splitSessions(items, times)) {
    const path = trimmedPath(collapseRepeats(session), spec);
    if (path) paths.push(path);
  }
  return paths;
}

/** Each actor's counted paths over the spec's range. */
async function countedPaths(env: QueryEnv, spec: PathsSpec): Promise<{ range: ResolvedDateRange; paths: Map<ActorKey, CountedPath[]> }> {
  const { db, projectId, zone, now } = env;
  const earliest = spec.dateRange.date_from === "all" ? await db.events.earliestTimestamp(projectId) : null;
  const range = resolveDateRange(spec.dateRange, "day", zone, now, earliest);
  await requireCohorts(db.sql, projectId, cohortIdsOf([spec.properties]));
  const actors = await guarded(async () => {
    await db.events.checkFilters(spec.properties);
    return db.events.actorEvents(projectId, eventsQuery(spec, range, now));
  });
  const included = includedBy(spec);
  const clean = pathItemCleaner(spec);
  const excluded = new Set(spec.excludeEvents);
  const paths = new Map<ActorKey, CountedPath[]>();
  for (const actor of actors) {
    const mine = actorPaths(actor, spec, included, clean, excluded);
    if (mine.length > 0) paths.set(actor.actor, mine);
  }
  return { range, paths };
}

/** The spec's edges over the project's events. */
export async function computePaths(env: QueryEnv, spec: PathsSpec): Promise<{ results: PathsEdge[]; range: ResolvedDateRange }> {
  const { range, paths } = await countedPaths(env, spec);
  const tally = new EdgeTally();
  for (const actorPaths of paths.values()) for (const path of actorPaths) tally.add(path);
  return { results: tally.results(spec), range };
}

/**
 * The actors behind an edge (`pathStartKey` → `pathEndKey`), a node (either alone) or a
 * drop-off (`pathDropoffKey`: paths ending at that node), most often first; with no key,
 * everyone with a path.
 */
export async function pathsActors(env: QueryEnv, spec: PathsSpec, keys: PathsActorKeys): Promise<ActorKey[]> {
  const { paths } = await countedPaths(env, spec);
  const counted: { actor: ActorKey; steps: number }[] = [];
  for (const [actor, actorPaths] of paths) {
    const steps = actorPaths.reduce((sum, path) => sum + selectedSteps(path, keys), 0);
    if (steps > 0) counted.push({ actor, steps });
  }
  counted.sort((a, b) => b.steps - a.steps || compareCodePoints(a.actor, b.actor));
  return counted.map(({ actor }) => actor);
}

/** PathsQuery for the query API. */
export const pathsKind: QueryKind<PathsSpec> = {
  kind: "PathsQuery",
  spec: (node, override) => pathsSpec(parseNode(pathsQuerySchema, node), override),
  async check({ db, projectId }, spec) {
    await guarded(() => db.events.checkFilters(spec.properties));
    await requireCohorts(db.sql, projectId, cohortIdsOf([spec.properties]));
  },
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
