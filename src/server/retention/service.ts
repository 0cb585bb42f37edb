/**
 * Retention on fixed calendar intervals (PostHog's RetentionQueryRunner, strict calendar
 * dates): each actor joins the cohort of an interval in which they did the target event —
 * every such interval (recurring), or only the one of their first-ever target event
 * (first time) — and counts at offset N when they did the returning event N intervals
 * later. The store answers each actor's active buckets (`actorBuckets`); the matrix is
 * counted here, so both stores give the same answer.
 *
 * Results come in PostHog's shape: one row per cohort interval, each with `totalIntervals`
 * values, zero-padded: `[{values: [{count, label: "Day 0"}, …], label: "Day 0", date, breakdown_value: null}]`.
 */
import { checkEventFilters } from "@/server/events/service";
import { AppError } from "@/server/errors";
import { TimeSlice } from "@/server/event-loop";
import { cohortIdsOf, requireCohorts } from "@/server/db/events/filters/cohorts";
import type { ActorBuckets, EventMatcher } from "@/server/db/events";
import type { PropertyGroup } from "@/server/properties/contract";
import { compareCodePoints } from "@/server/properties/coerce";
import { parseNode, QueryNodeError, type ActorKey, type QueryEnv, type QueryKind } from "@/server/analytics/kind";
import { addIntervals, bucketStarts, instantOf, isoInZone, resolveDateRange, type Interval } from "@/server/analytics/date-range";
import { asksBreakdown, MAX_RETENTION_CELLS, PERIOD_INTERVAL, retentionQuerySchema, retentionSpec, type RetentionEntitySpec, type RetentionSpec } from "./contract";

export interface RetentionValue {
  count: number;
  label: string;
}

export interface RetentionRow {
  values: RetentionValue[];
  label: string;
  /** The cohort interval's start, ISO in the project's zone (`Z` for UTC, as PostHog's JSON writes it). */
  date: string;
  /** Always null: PostHog keeps the key without a breakdown "to keep shape consistent". */
  breakdown_value: null;
}

/** The cohort intervals and the events window: [first cohort's start, the interval after date_to). */
interface RetentionWindow {
  interval: Interval;
  cohorts: Date[];
  from: Date;
  to: Date;
}

/**
 * PostHog's QueryDateRangeWithIntervals: the window ends at the start of the interval after
 * `date_to`; it starts at `date_from`'s interval, or `totalIntervals` intervals before the end.
 */
async function retentionWindow(env: QueryEnv, spec: RetentionSpec): Promise<RetentionWindow> {
  const interval = PERIOD_INTERVAL[spec.period];
  const earliest = spec.dateRange.date_from === "all" ? await env.db.events.earliestTimestamp(env.projectId) : null;
  const range = resolveDateRange(spec.dateRange, interval, env.zone, env.now, earliest);
  const end = addIntervals(range.lastBucket, interval, 1);
  const firstBucket = spec.dateRange.date_from === null ? addIntervals(end, interval, -spec.totalIntervals) : range.firstBucket;
  const cohorts = bucketStarts({ firstBucket, lastBucket: range.lastBucket, interval });
  if (cohorts.length * spec.totalIntervals > MAX_RETENTION_CELLS) {
    throw new AppError("invalid_input", `The retention table would have ${cohorts.length} cohorts of ${spec.totalIntervals} intervals; at most ${MAX_RETENTION_CELLS} cells fit: choose a shorter range or a longer period.`, "query");
  }
  return { interval, cohorts, from: instantOf(firstBucket, env.zone), to: instantOf(end, env.zone) };
}

const entityMatcher = (entity: RetentionEntitySpec): EventMatcher => ({ event: entity.event, filters: entity.properties ? [entity.properties] : [] });

/** Per actor: the cohort indexes they join and the set of intervals they returned in. */
interface ActorCohorts {
  actor: string;
  cohorts: number[];
  /** Ascending, each once. */
  returned: number[];
}

const TARGET = 1;

async function actorCohorts(env: QueryEnv, spec: RetentionSpec, window: RetentionWindow): Promise<ActorCohorts[]> {
  const filters = spec.properties ? [spec.properties] : [];
  const target = entityMatcher(spec.target);
  const returning = entityMatcher(spec.returning);
  // The same entity both ways (PostHog's default, pageviews) is one matcher read once.
  const same = JSON.stringify(target) === JSON.stringify(returning);
  const RETURNING = same ? TARGET : 2;
  for (const group of groupsOf(spec)) await env.db.events.checkFilters(group);
  const rows: ActorBuckets[] = await env.db.events.actorBuckets(env.projectId, {
    from: window.from,
    to: window.to,
    zone: env.zone,
    interval: window.interval,
    now: env.now,
    filters,
    matchers: same ? [target] : [target, returning],
    counts: false,
    firstEver:
      spec.retentionType === "retention_recurring"
        ? null
        : // First ever occurrence: the actor's very first target event (its entity filters aside) must itself match them.
          { matcher: 0, onlyIfFirstOf: spec.retentionType === "retention_first_ever_occurrence" ? { event: target.event, filters: [] } : null },
  });
  const index = new Map(window.cohorts.map((wall, i) => [wall.getTime(), i]));
  const out: ActorCohorts[] = [];
  // An actor per step, yielding when its slice is up: a year of daily buckets for 100,000
  // actors was one long turn, and 4 such queries held /_health for 3.2 s (issue 32).
  const slice = new TimeSlice();
  for (const row of rows) {
    await slice.pace();
    const cohorts: number[] = [];
    // Buckets come ascending and once each, so the returns do too.
    const returned: number[] = [];
    row.buckets.forEach((bucket, b) => {
      const i = index.get(bucket);
      if (i === undefined) return;
      if (row.masks[b]! & TARGET && spec.retentionType === "retention_recurring") cohorts.push(i);
      if (row.masks[b]! & RETURNING) returned.push(i);
    });
    if (spec.retentionType !== "retention_recurring" && row.firstEver !== null) {
      const i = index.get(row.firstEver);
      if (i !== undefined) cohorts.push(i);
    }
    if (cohorts.length > 0) out.push({ actor: row.actor, cohorts, returned });
  }
  return out;
}

/** The offsets (1 … totalIntervals − 1) an actor of cohort `c` counts at; cumulative: every offset up to their last return. */
function offsetsOf(c: number, returned: readonly number[], spec: RetentionSpec): number[] {
  const offsets = returnsAfter(c, returned, spec);
  if (!spec.cumulative || offsets.length === 0) return offsets;
  return Array.from({ length: offsets.at(-1)! }, (_, i) => i + 1);
}

/** The offsets (1 … totalIntervals − 1) at which an actor of cohort `c` returned. */
function returnsAfter(c: number, returned: readonly number[], spec: RetentionSpec): number[] {
  // The returns after c within the window, found by bisection: looking up every offset of a
  // year-long daily window for each of an actor's cohorts was most of the query's time.
  let low = 0;
  let high = returned.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (returned[middle]! <= c) low = middle + 1;
    else high = middle;
  }
  const offsets: number[] = [];
  for (let i = low; i < returned.length && returned[i]! - c < spec.totalIntervals; i++) offsets.push(returned[i]! - c);
  return offsets;
}

/** An instant as PostHog's JSON writes a datetime of the project's zone: ISO with the offset, `Z` for UTC. */
function isoDate(wall: Date, zone: string): string {
  return isoInZone(instantOf(wall, zone), zone).replace(/\+00:00$/, "Z");
}

export async function computeRetention(env: QueryEnv, spec: RetentionSpec): Promise<{ results: RetentionRow[]; window: RetentionWindow }> {
  const window = await retentionWindow(env, spec);
  const counts = window.cohorts.map(() => new Array<number>(spec.totalIntervals).fill(0));
  const slice = new TimeSlice();
  // Cumulative: how many of a cohort's actors last returned at each offset, summed from the end.
  const lastAt = spec.cumulative ? window.cohorts.map(() => new Array<number>(spec.totalIntervals).fill(0)) : null;
  for (const { cohorts, returned } of await actorCohorts(env, spec, window)) {
    await slice.pace();
    for (const c of cohorts) {
      counts[c]![0]! += 1;
      const offsets = returnsAfter(c, returned, spec);
      if (lastAt) {
        if (offsets.length > 0) lastAt[c]![offsets.at(-1)!]! += 1;
      } else for (const n of offsets) counts[c]![n]! += 1;
    }
  }
  lastAt?.forEach((last, c) => {
    let stayed = 0;
    for (let n = spec.totalIntervals - 1; n >= 1; n--) counts[c]![n]! += stayed += last[n]!;
  });
  const results = window.cohorts.map((wall, c) => ({
    values: counts[c]!.map((count, n) => ({ count, label: `${spec.period} ${n}` })),
    label: `${spec.period} ${c}`,
    date: isoDate(wall, env.zone),
    breakdown_value: null,
  }));
  return { results, window };
}

function groupsOf(spec: RetentionSpec): PropertyGroup[] {
  return [spec.properties, spec.target.properties, spec.returning.properties].filter((group): group is PropertyGroup => group !== null);
}

/** The selector's integer field `name` in [0, size), or a 400 naming it. */
function selectedIndex(selector: Record<string, unknown>, name: string, size: number, required: boolean): number | null {
  const value = selector[name];
  if (value === undefined || value === null) {
    if (required) throw new AppError("invalid_input", `${name} is required: the index of the cohort (row) whose actors to list.`, name);
    return null;
  }
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value >= size) {
    throw new AppError("invalid_input", `${name} must be an integer from 0 to ${size - 1}.`, name);
  }
  return value;
}

/** RetentionQuery for the query API. */
export const retentionKind: QueryKind<RetentionSpec> = {
  kind: "RetentionQuery",
  spec(node, override) {
    const query = parseNode(retentionQuerySchema, node);
    if (asksBreakdown(query, override)) throw new QueryNodeError("Breakdowns of retention are not supported yet.", ["breakdownFilter"]);
    return retentionSpec(query, override);
  },
  check: ({ db, projectId }, spec) => checkEventFilters(db, projectId, groupsOf(spec)),
  async compute(env, spec) {
    await requireCohorts(env.db.sql, env.projectId, cohortIdsOf(groupsOf(spec)));
    const { results, window } = await computeRetention(env, spec);
    return { results, range: { from: window.from, to: window.to }, weight: 1 + results.length * (spec.totalIntervals + 1) };
  },
  /**
   * `interval`: the cohort (row) index, as PostHog's InsightActorsQuery. The actors who joined
   * it, those who returned in more of its intervals first (as PostHog orders them), then by key.
   */
  async actors(env, spec, selector): Promise<ActorKey[]> {
    await requireCohorts(env.db.sql, env.projectId, cohortIdsOf(groupsOf(spec)));
    const window = await retentionWindow(env, spec);
    const cohort = selectedIndex(selector, "interval", window.cohorts.length, true)!;
    const members: { actor: string; appearances: number }[] = [];
    const slice = new TimeSlice();
    for (const actor of await actorCohorts(env, spec, window)) {
      await slice.pace();
      if (actor.cohorts.includes(cohort)) members.push({ actor: actor.actor, appearances: offsetsOf(cohort, actor.returned, spec).length });
    }
    members.sort((a, b) => b.appearances - a.appearances || compareCodePoints(a.actor, b.actor));
    return members.map((member) => member.actor);
  },
};
