/**
 * Funnels: one read of the event store (`actorEvents`: each person's events of the range
 * with a bit per step and per exclusion, and the breakdown value of each), then PostHog's
 * funnel UDF per person in TypeScript (walk.ts), whichever store answered. This file picks
 * each person's breakdown values (attribution), tallies the persons' outcomes per value,
 * and shapes the three visualisations (steps, time to convert, trends) and the actors
 * behind a point.
 */
import { checkEventFilters } from "@/server/events/service";
import { compareCodePoints } from "@/server/properties/coerce";
import type { PropertyGroup } from "@/server/properties/contract";
import { cohortIdsOf, requireCohorts } from "@/server/db/events/filters/cohorts";
import type { ActorEvents, ActorEventsQuery, EventMatcher } from "@/server/db/events";
import { parseNode, type ActorKey, type QueryEnv, type QueryKind } from "@/server/analytics/kind";
import type { CohortBreakdownValue } from "@/server/analytics/nodes";
import { bucketDay, bucketLabel, bucketStarts, instantOf, resolveDateRange, wallFromText, type ResolvedDateRange } from "@/server/analytics/date-range";
import { AppError } from "@/server/errors";
import { funnelsActorsSelectorSchema, funnelsQuerySchema, funnelsSpec, type FunnelsSpec } from "./contract";
import { StepsWalker, TrendsWalker, UnorderedWalker, valueOf, type FunnelPlan, type TrendOutcome, type WalkEvents } from "./walk";
import {
  emptyTally,
  funnelSteps,
  timeToConvert,
  trendSeries,
  cumulativeCounts,
  type FunnelStepResult,
  type FunnelTally,
  type FunnelTrendsResult,
  type TimeToConvertResult,
} from "./present";

/** PostHog's name of the values past the breakdown limit. */
export const FUNNEL_BREAKDOWN_OTHER = "Other";

/** Steps first (bit i = step i), then the exclusions. */
function matchersOf(spec: FunnelsSpec): EventMatcher[] {
  return [
    ...spec.steps.map((step) => ({ event: step.event, filters: step.properties ? [step.properties] : [] })),
    ...spec.exclusions.map((exclusion) => ({ event: exclusion.event, filters: exclusion.properties ? [exclusion.properties] : [] })),
  ];
}

/** The walk of `steps` steps (all, or the first toStep+1 for trends). */
export function planOf(spec: FunnelsSpec, steps = spec.steps.length): FunnelPlan {
  const exclusionMasks = new Int32Array(steps + 1);
  spec.exclusions.forEach((exclusion, j) => {
    const bit = 1 << (spec.steps.length + j);
    // Exclusion_k (0-based step k in from+1..to) guards reaching 1-based step k+1.
    for (let k = exclusion.from + 1; k <= exclusion.to; k++) if (k + 1 <= steps) exclusionMasks[k + 1] = exclusionMasks[k + 1]! | bit;
  });
  const ordered = spec.order !== "unordered";
  return {
    steps,
    windowMs: spec.windowSeconds * 1000,
    order: spec.order,
    exclusionMasks,
    attributionStep: spec.breakdown && spec.breakdown.type !== "cohort" && spec.attribution.type === "step" && ordered ? spec.attribution.step : null,
  };
}

/** The events of one read, and for a cohort breakdown the cohort they are the members' of. */
interface FunnelRead {
  actors: ActorEvents[];
  cohort?: CohortBreakdownValue;
}

const propertyBreakdown = (spec: FunnelsSpec) => (spec.breakdown && spec.breakdown.type !== "cohort" ? spec.breakdown : null);

async function resolveRange(env: QueryEnv, spec: FunnelsSpec): Promise<ResolvedDateRange> {
  const earliest = spec.dateRange.date_from === "all" ? await env.db.events.earliestTimestamp(env.projectId) : null;
  return resolveDateRange(spec.dateRange, spec.interval, env.zone, env.now, earliest);
}

/** The persons' events of the range: one read, or one per cohort of a cohort breakdown (as trends does). */
async function readFunnel(env: QueryEnv, spec: FunnelsSpec, range: ResolvedDateRange): Promise<FunnelRead[]> {
  const property = propertyBreakdown(spec);
  const query: ActorEventsQuery = {
    from: range.from,
    to: range.to,
    now: env.now,
    filters: spec.properties ? [spec.properties] : [],
    matchers: matchersOf(spec),
    // A strict funnel is broken by any event of the person in between.
    everyEvent: spec.order === "strict",
    values: property ? [{ type: property.type, key: property.key }] : [],
  };
  if (spec.breakdown?.type !== "cohort") return [{ actors: await env.db.events.actorEvents(env.projectId, query) }];
  const reads: FunnelRead[] = [];
  for (const cohort of spec.breakdown.cohorts) {
    const member: PropertyGroup = { type: "AND", values: [{ type: "cohort", key: "id", value: cohort as number, operator: "in", negation: false }] };
    const filters = cohort === "all" ? query.filters : [...query.filters, member];
    reads.push({ cohort, actors: await env.db.events.actorEvents(env.projectId, { ...query, filters }) });
  }
  return reads;
}

/**
 * The breakdown values a person is walked for (PostHog's `prop_vals`): first_touch /
 * last_touch the value of their earliest / latest event that has one ("" when none);
 * all_events every value of their events (each walked over its own events only); step the
 * values of their events of that step (unordered: of all their events). Without a
 * property breakdown: one walk, value null.
 */
const NO_VALUE: readonly (string | null)[] = [null];

function attributedValues(spec: FunnelsSpec, events: WalkEvents): readonly (string | null)[] {
  if (!propertyBreakdown(spec)) return NO_VALUE;
  const values = events.values!;
  switch (spec.attribution.type) {
    case "first_touch": {
      for (let i = 0; i < values.length; i++) if (values[i] !== null) return [values[i]!];
      return [""];
    }
    case "last_touch": {
      for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return [values[i]!];
      return [""];
    }
    case "all_events":
    case "step": {
      const bit = spec.attribution.type === "step" && spec.order !== "unordered" ? 1 << spec.attribution.step : -1;
      const distinct = new Set<string>();
      for (let i = 0; i < values.length; i++) if (events.masks[i]! & bit) distinct.add(valueOf(values, i));
      return [...distinct];
    }
  }
}

/** One person's outcome for one breakdown value: the furthest step (0-based) and the times (ms) of its steps. */
type Visit = (actor: string, key: string, step: number, times: Float64Array) => void;

/** A read's breakdown key: the property value, or the cohort ("all" or its id); "" without a breakdown. */
const cohortKey = (cohort: CohortBreakdownValue) => String(cohort);

/** Walks every person of the reads (the steps walk, or the unordered one), calling `visit` for each counted outcome. */
function walkSteps(spec: FunnelsSpec, reads: FunnelRead[], visit: Visit): void {
  const plan = planOf(spec);
  const walker = spec.order === "unordered" ? new UnorderedWalker(plan) : new StepsWalker(plan);
  const onlyValue = propertyBreakdown(spec) !== null && spec.attribution.type === "all_events";
  for (const read of reads) {
    for (const actor of read.actors) {
      const events: WalkEvents = { times: actor.times, masks: actor.masks, values: actor.values[0] ?? null };
      for (const value of attributedValues(spec, events)) {
        const step = walker.walk(events, value, onlyValue);
        if (step >= 0) visit(actor.actor, read.cohort !== undefined ? cohortKey(read.cohort) : (value ?? ""), step, walker.resultTimes);
      }
    }
  }
}

function addToTally(tally: FunnelTally, step: number, times: Float64Array): void {
  tally.reached[step]!++;
  for (let i = 1; i <= step; i++) {
    const seconds = (times[i]! - times[i - 1]!) / 1000;
    // PostHog's groupArrayIf(timings[i], timings[i] > 0): instant conversions are left out of the times.
    if (seconds > 0) tally.seconds[i]!.push(seconds);
  }
}

function mergeTally(into: FunnelTally, from: FunnelTally): void {
  from.reached.forEach((n, i) => (into.reached[i]! += n));
  from.seconds.forEach((seconds, i) => into.seconds[i]!.push(...seconds));
}

/** Breakdown values by PostHog's rank: the last step's count first, then each earlier step's, descending; ties by value. */
function rankedKeys(tallies: Map<string, FunnelTally>): string[] {
  const counts = new Map([...tallies].map(([key, tally]) => [key, cumulativeCounts(tally)]));
  return [...tallies.keys()].sort((a, b) => {
    const ca = counts.get(a)!;
    const cb = counts.get(b)!;
    for (let i = ca.length - 1; i >= 0; i--) if (ca[i] !== cb[i]) return cb[i]! - ca[i]!;
    return compareCodePoints(a, b);
  });
}

/** Which shown key each value's persons count under: itself within the breakdown limit, else "Other". */
function shownKeys(spec: FunnelsSpec, tallies: Map<string, FunnelTally>): Map<string, string> {
  const property = propertyBreakdown(spec);
  const ranked = rankedKeys(tallies);
  return new Map(ranked.map((key, rank) => [key, property && rank >= property.limit ? FUNNEL_BREAKDOWN_OTHER : key]));
}

export interface FunnelsAnswer {
  results: FunnelStepResult[] | FunnelStepResult[][] | TimeToConvertResult | FunnelTrendsResult[];
  range: ResolvedDateRange;
}

async function computeSteps(env: QueryEnv, spec: FunnelsSpec, range: ResolvedDateRange, cohortNames: ReadonlyMap<number, string>): Promise<FunnelStepResult[] | FunnelStepResult[][]> {
  const reads = await readFunnel(env, spec, range);
  const steps = spec.steps.length;
  const tallies = new Map<string, FunnelTally>();
  walkSteps(spec, reads, (_actor, key, step, times) => {
    let tally = tallies.get(key);
    if (!tally) tallies.set(key, (tally = emptyTally(steps)));
    addToTally(tally, step, times);
  });
  if (tallies.size === 0) return [];
  if (!spec.breakdown) return funnelSteps(spec, tallies.get("")!);
  if (spec.breakdown.type === "cohort") {
    // In the order the cohorts were given; those nobody entered are left out, as PostHog's rows are.
    return spec.breakdown.cohorts
      .filter((cohort) => tallies.has(cohortKey(cohort)))
      .map((cohort) => {
        const id = cohort === "all" ? 0 : cohort;
        const shown = cohort === "all" ? "all users" : (cohortNames.get(cohort) ?? String(cohort));
        return funnelSteps(spec, tallies.get(cohortKey(cohort))!, { shown, value: id });
      });
  }
  const shown = shownKeys(spec, tallies);
  const grouped = new Map<string, FunnelTally>();
  for (const key of shown.keys()) {
    const target = shown.get(key)!;
    let tally = grouped.get(target);
    if (!tally) grouped.set(target, (tally = emptyTally(steps)));
    mergeTally(tally, tallies.get(key)!);
  }
  if (spec.breakdown.hideOther) grouped.delete(FUNNEL_BREAKDOWN_OTHER);
  // Ranked, "Other" last (it joins the map last).
  return [...grouped].map(([key, tally]) => funnelSteps(spec, tally, { shown: [key], value: [key] }));
}

/** The steps time to convert measures: funnelFromStep (default the first) to funnelToStep (default the last). */
const conversionSteps = (spec: FunnelsSpec) => ({ from: spec.fromStep ?? 0, to: spec.toStep ?? spec.steps.length - 1 });

async function computeTimeToConvert(env: QueryEnv, spec: FunnelsSpec, range: ResolvedDateRange): Promise<TimeToConvertResult> {
  // PostHog's histogram is over every person whatever the breakdown: walk without one.
  const plain: FunnelsSpec = { ...spec, breakdown: null };
  const reads = await readFunnel(env, plain, range);
  const { from, to } = conversionSteps(spec);
  const seconds: number[] = [];
  walkSteps(plain, reads, (_actor, _key, step, times) => {
    if (step >= to) seconds.push((times[to]! - times[from]!) / 1000);
  });
  return timeToConvert(seconds, spec.binCount);
}

/** The entrance periods of the range: their starts (instants, ascending), days and labels. */
function entrancePeriods(range: ResolvedDateRange) {
  const walls = bucketStarts(range);
  const starts = Float64Array.from(walls, (wall) => instantOf(wall, range.zone).getTime());
  const periodOf = (time: number): number => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= time) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  return {
    starts,
    periodOf,
    days: walls.map((wall) => bucketDay(wall, range.interval)),
    // PostHog labels funnel trends by day whatever the interval (%-d-%b-%Y).
    labels: walls.map((wall) => bucketLabel(wall, { ...range, interval: "day" })),
  };
}

/** Each person's outcome per entrance period, per breakdown key. */
function walkTrends(spec: FunnelsSpec, reads: FunnelRead[], periodOf: (time: number) => number, visit: (actor: string, key: string, period: number, outcome: TrendOutcome) => void): void {
  const steps = spec.toStep === null ? spec.steps.length : spec.toStep + 1;
  const walker = new TrendsWalker(planOf(spec, steps), spec.fromStep ?? 0);
  const onlyValue = propertyBreakdown(spec) !== null && spec.attribution.type === "all_events";
  for (const read of reads) {
    for (const actor of read.actors) {
      const events: WalkEvents = { times: actor.times, masks: actor.masks, values: actor.values[0] ?? null };
      for (const value of attributedValues(spec, events)) {
        const key = read.cohort !== undefined ? cohortKey(read.cohort) : (value ?? "");
        for (const [period, outcome] of walker.walk(events, periodOf, value, onlyValue)) visit(actor.actor, key, period, outcome);
      }
    }
  }
}

async function computeTrends(env: QueryEnv, spec: FunnelsSpec, range: ResolvedDateRange, cohortNames: ReadonlyMap<number, string>): Promise<FunnelTrendsResult[]> {
  const reads = await readFunnel(env, spec, range);
  const periods = entrancePeriods(range);
  const size = periods.starts.length;
  const tallies = new Map<string, { from: number[]; to: number[] }>();
  const tallyOf = (key: string) => {
    let tally = tallies.get(key);
    if (!tally) tallies.set(key, (tally = { from: new Array<number>(size).fill(0), to: new Array<number>(size).fill(0) }));
    return tally;
  };
  if (!spec.breakdown) tallyOf("");
  walkTrends(spec, reads, periods.periodOf, (_actor, key, period, outcome) => {
    const tally = tallyOf(key);
    tally.from[period]!++;
    if (outcome === 1) tally.to[period]!++;
  });
  if (!spec.breakdown) {
    const tally = tallies.get("")!;
    return [trendSeries(tally.from, tally.to, periods.days, periods.labels)];
  }
  const total = (key: string) => tallies.get(key)!.from.reduce((sum, n) => sum + n, 0);
  let keys = [...tallies.keys()];
  if (spec.breakdown.type === "cohort") {
    const order = spec.breakdown.cohorts.map(cohortKey);
    keys.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  } else {
    // PostHog: most persons entering first, then by value (descending); no "Other" in trends.
    keys.sort((a, b) => total(b) - total(a) || compareCodePoints(b, a));
    keys = keys.slice(0, spec.breakdown.limit);
  }
  return keys.map((key) => {
    const tally = tallies.get(key)!;
    const series = trendSeries(tally.from, tally.to, periods.days, periods.labels);
    if (spec.breakdown?.type === "cohort") series.breakdown_value = key === "all" ? "all users" : (cohortNames.get(Number(key)) ?? key);
    else series.breakdown_value = [key];
    return series;
  });
}

/** The spec's filters, each checked by the store (regular expressions). */
const filterGroups = (spec: FunnelsSpec) => [spec.properties, ...spec.steps.map((step) => step.properties), ...spec.exclusions.map((exclusion) => exclusion.properties)];

/** The spec's cohorts (filters and breakdown) are the project's, else a 400; the breakdown's names by id. */
async function requireFunnelCohorts(env: QueryEnv, spec: FunnelsSpec): Promise<Map<number, string>> {
  await requireCohorts(env.db.sql, env.projectId, cohortIdsOf(filterGroups(spec)));
  const breakdown = spec.breakdown?.type === "cohort" ? spec.breakdown.cohorts.filter((cohort): cohort is number => cohort !== "all") : [];
  return requireCohorts(env.db.sql, env.projectId, breakdown, "breakdown");
}

export async function computeFunnel(env: QueryEnv, spec: FunnelsSpec): Promise<FunnelsAnswer> {
  const cohortNames = await requireFunnelCohorts(env, spec);
  const range = await resolveRange(env, spec);
  switch (spec.viz) {
    case "steps":
      return { results: await computeSteps(env, spec, range, cohortNames), range };
    case "time_to_convert":
      return { results: await computeTimeToConvert(env, spec, range), range };
    case "trends":
      return { results: await computeTrends(env, spec, range, cohortNames), range };
  }
}

/** funnelStepBreakdown as the breakdown key it selects: a property value ([x] or x; numbers as text), a cohort ("all" for 0). */
function selectedKey(spec: FunnelsSpec, selected: string | number | (string | number)[]): string {
  if (spec.breakdown?.type === "cohort") {
    const value = Array.isArray(selected) ? selected[0] : selected;
    return value === 0 || value === "0" || value === "all" ? "all" : String(value);
  }
  const values = Array.isArray(selected) ? selected : [selected];
  return values.map((value) => (typeof value === "number" ? String(Math.trunc(value)) : value)).join(",");
}

function selectorError(message: string, field: string): AppError {
  return new AppError("invalid_input", `${field}: ${message}`, field);
}

/**
 * The persons behind one point (PostHog's FunnelsActorsQuery): `funnelStep` n ≥ 1 those who
 * reached step n, −n those who reached step n−1 but not n; `funnelCustomSteps` those whose
 * furthest step is one of them; `funnelStepBreakdown` only those of that breakdown value
 * ("Other": those of the values past the limit). Funnel trends: those who entered in
 * `funnelTrendsEntrancePeriodStart`'s period and converted (or with `funnelTrendsDropOff`,
 * did not). Ordered by actor key.
 */
export async function funnelActors(env: QueryEnv, spec: FunnelsSpec, rawSelector: Record<string, unknown>): Promise<ActorKey[]> {
  const selector = parseNode(funnelsActorsSelectorSchema, rawSelector);
  await requireFunnelCohorts(env, spec);
  const range = await resolveRange(env, spec);
  const wanted = selector.funnelStepBreakdown === null || selector.funnelStepBreakdown === undefined ? null : selectedKey(spec, selector.funnelStepBreakdown);
  if (wanted !== null && !spec.breakdown) throw selectorError("the funnel has no breakdown.", "funnelStepBreakdown");
  const found = new Set<string>();

  if (spec.viz === "trends") {
    const start = selector.funnelTrendsEntrancePeriodStart;
    if (!start) throw selectorError("Actors parameter `funnelTrendsEntrancePeriodStart` must be provided funnel trends persons!", "funnelTrendsEntrancePeriodStart");
    const instant = entranceInstant(start, range.zone);
    if (instant === null) throw selectorError("Actors parameter `funnelTrendsEntrancePeriodStart` must be a valid date!", "funnelTrendsEntrancePeriodStart");
    const periods = entrancePeriods(range);
    const period = periods.periodOf(instant);
    if (periods.starts.length === 0 || instant < periods.starts[0]! || (period + 1 < periods.starts.length && instant >= periods.starts[period + 1]!) || instant > range.to.getTime()) return [];
    const outcome: TrendOutcome = selector.funnelTrendsDropOff ? -1 : 1;
    walkTrends(spec, await readFunnel(env, spec, range), periods.periodOf, (actor, key, at, result) => {
      if (at === period && result === outcome && (wanted === null || key === wanted)) found.add(actor);
    });
    return [...found].sort(compareCodePoints);
  }

  const step = selector.funnelStep;
  const custom = selector.funnelCustomSteps;
  if ((step === null || step === undefined) && !custom) throw selectorError("Missing both funnelStep and funnelCustomSteps.", "funnelStep");
  const last = spec.steps.length;
  if (step !== null && step !== undefined && (step > last || step < -last)) throw selectorError(`funnelStep must be between -${last} and ${last} (not 0 or -1).`, "funnelStep");
  const matches = (reached: number) =>
    custom ? custom.includes(reached + 1) : step! > 0 ? reached >= step! - 1 : reached === -step! - 2;

  const outcomes: { actor: string; key: string; step: number }[] = [];
  const tallies = new Map<string, FunnelTally>();
  walkSteps(spec, await readFunnel(env, spec, range), (actor, key, reached, times) => {
    if (matches(reached)) outcomes.push({ actor, key, step: reached });
    if (wanted !== null && spec.breakdown?.type !== "cohort") {
      let tally = tallies.get(key);
      if (!tally) tallies.set(key, (tally = emptyTally(last)));
      addToTally(tally, reached, times);
    }
  });
  const shown = wanted !== null && spec.breakdown?.type !== "cohort" ? shownKeys(spec, tallies) : null;
  for (const outcome of outcomes) {
    if (wanted === null || (shown ? shown.get(outcome.key) : outcome.key) === wanted) found.add(outcome.actor);
  }
  return [...found].sort(compareCodePoints);
}

/** An entrance period start as given (ISO with an offset; or a date / date-time of the project's zone), as an instant. */
function entranceInstant(text: string, zone: string): number | null {
  const trimmed = text.trim();
  if (/[zZ]$|[+-]\d{2}:?\d{2}$/.test(trimmed) && /T|\s\d/.test(trimmed)) {
    const time = Date.parse(trimmed);
    return Number.isNaN(time) ? null : time;
  }
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?))?/.exec(trimmed);
  if (!match) return null;
  const wall = wallFromText(`${match[1]} ${(match[2] ?? "00:00:00").padEnd(8, ":00")}`);
  if (Number.isNaN(wall.getTime())) return null;
  return instantOf(wall, zone).getTime();
}

/** FunnelsQuery for the query API. */
export const funnelsKind: QueryKind<FunnelsSpec> = {
  kind: "FunnelsQuery",
  spec: (node, override) => funnelsSpec(parseNode(funnelsQuerySchema, node), override),
  async check(env, spec) {
    await checkEventFilters(env.db, env.projectId, filterGroups(spec));
    await requireFunnelCohorts(env, spec);
  },
  async compute(env, spec) {
    const { results, range } = await computeFunnel(env, spec);
    const weight = Array.isArray(results) ? 1 + results.reduce((sum: number, item) => sum + (Array.isArray(item) ? item.length : "data" in item ? item.data.length : 1), 0) : 1 + results.bins.length;
    return { results, range: { from: range.dateFrom, to: range.dateTo }, extra: { isUdf: true }, weight };
  },
  actors: funnelActors,
};
