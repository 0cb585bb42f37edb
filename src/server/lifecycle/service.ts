/**
 * Lifecycle (PostHog's LifecycleQueryRunner): for each interval of the range, how many
 * persons were new, returning, resurrecting or dormant. Per person, over the intervals with
 * matching events from one interval before the range to one after it (events with
 * `$process_person_profile = false` left out), each active interval is
 * - `new` when it is the person's first activity there and the interval they were created in;
 * - `returning` when the previous active interval is the one just before and this is not
 *   the first activity there;
 * - else `resurrecting` (so a first activity just after the creation interval resurrects);
 * and the interval after each active one without activity is `dormant`, counted negative.
 * The store answers each actor's active buckets (`actorBuckets`), persons' creation comes
 * from PostgreSQL (store.ts); the classification runs here, so both stores agree.
 *
 * Events without a person are left out: lifecycle follows persons (PostHog's personless
 * events carry `$process_person_profile = false`, which it excludes).
 */
import { checkEventFilters } from "@/server/events/service";
import { AppError } from "@/server/errors";
import { cohortIdsOf, requireCohorts } from "@/server/db/events/filters/cohorts";
import type { PropertyGroup } from "@/server/properties/contract";
import { compareCodePoints } from "@/server/properties/coerce";
import { ANONYMOUS_ACTOR, parseNode, type ActorKey, type QueryEnv, type QueryKind } from "@/server/analytics/kind";
import {
  addIntervals,
  bucketDay,
  bucketLabel,
  bucketStarts,
  instantOf,
  resolveDateRange,
  startOfInterval,
  wallFromText,
  type ResolvedDateRange,
} from "@/server/analytics/date-range";
import { LIFECYCLE_STATUSES, lifecycleQuerySchema, lifecycleSpec, type LifecycleSpec, type LifecycleStatus } from "./contract";
import { findPersonCreationBuckets } from "./store";

export interface LifecycleAction {
  id: string | number | null;
  name: string;
  type: "events" | "actions";
  order: 0;
  math: "total";
  custom_name?: string;
}

export interface LifecycleResult {
  action: LifecycleAction;
  /** Persons per interval of the range; negative for dormant. */
  data: number[];
  count: number;
  labels: string[];
  days: string[];
  label: string;
  status: LifecycleStatus;
}

/** PostHog leaves out events of persons it does not process (`properties.$process_person_profile != 'false'`). */
const PROCESSED_PERSONS: PropertyGroup = {
  type: "AND",
  values: [{ type: "event", key: "$process_person_profile", operator: "is_not", value: ["false"], negation: false }],
};

/** Their events: the ones lifecycle leaves out, only counted. */
const UNPROCESSED_PERSONS: PropertyGroup = {
  type: "AND",
  values: [{ type: "event", key: "$process_person_profile", operator: "exact", value: ["false"], negation: false }],
};

function groupsOf(spec: LifecycleSpec): PropertyGroup[] {
  return [spec.properties, spec.series.properties].filter((group): group is PropertyGroup => group !== null);
}

/** Hands each person's status in each interval of the range (its index among the range's intervals, and its start) to `visit`. */
type Visit = (actor: string, interval: number, status: LifecycleStatus, wall: Date) => void;

/**
 * Classifies the persons, and counts the visitors left out: those active in the range whose
 * events there all come without a person profile (stored without a person, or sent with
 * `$process_person_profile = false`, as posthog-js's default `person_profiles:
 * identified_only` sends an anonymous visitor's). Stickiness, retention and trends count them.
 */
async function classify(env: QueryEnv, spec: LifecycleSpec, visit: Visit): Promise<{ range: ResolvedDateRange; walls: Date[]; personless: number }> {
  const earliest = spec.dateRange.date_from === "all" ? await env.db.events.earliestTimestamp(env.projectId) : null;
  const range = resolveDateRange(spec.dateRange, spec.interval, env.zone, env.now, earliest);
  const walls = bucketStarts(range);
  if (walls.length === 0) return { range, walls, personless: 0 };
  // The window: one interval either side of the range, so the first and last intervals know their neighbours.
  const window = [addIntervals(walls[0]!, spec.interval, -1), ...walls, addIntervals(walls.at(-1)!, spec.interval, 1)];
  const from = instantOf(window[0]!, env.zone);
  const to = instantOf(addIntervals(window.at(-1)!, spec.interval, 1), env.zone);
  const buckets = (profiles: PropertyGroup) =>
    env.db.events.actorBuckets(env.projectId, {
      from,
      to,
      zone: env.zone,
      interval: spec.interval,
      now: env.now,
      filters: [...(spec.properties ? [spec.properties] : []), profiles],
      matchers: [{ event: spec.series.event, filters: spec.series.properties ? [spec.series.properties] : [] }],
      counts: false,
      firstEver: null,
    });
  // The events (whichever store) and the persons' creation (PostgreSQL) are read at once; the
  // events without a person profile after them, in a statement of their own that only counts
  // them (one statement reading both kinds with a mask each took twice as long). One after the
  // other: on PostgreSQL both go through the query's one connection.
  const events = async () => {
    for (const group of groupsOf(spec)) await env.db.events.checkFilters(group);
    const profiled = await buckets(PROCESSED_PERSONS);
    return [profiled, await buckets(UNPROCESSED_PERSONS)] as const;
  };
  const [[rows, personlessRows], created] = await Promise.all([
    events(),
    findPersonCreationBuckets(env.db.sql, env.projectId, { from, to, zone: env.zone, interval: spec.interval }),
  ]);
  const index = new Map(window.map((wall, i) => [wall.getTime(), i]));
  // Window index i is the range's interval i − 1; only those inside the range are visited.
  const keep = (actor: string, i: number, status: LifecycleStatus) => {
    if (i >= 1 && i <= walls.length) visit(actor, i - 1, status, walls[i - 1]!);
  };
  const inRange = (bucket: number) => {
    const i = index.get(bucket);
    return i !== undefined && i >= 1 && i <= walls.length;
  };
  // Visitors left out: active in the range with no event of a person profile there.
  const profiled = new Set<string>();
  const personless = new Set<string>();
  for (const row of rows) {
    if (!row.buckets.some(inRange)) continue;
    if (row.actor.startsWith(ANONYMOUS_ACTOR)) personless.add(row.actor);
    else profiled.add(row.actor);
  }
  for (const row of personlessRows) if (row.buckets.some(inRange) && !profiled.has(row.actor)) personless.add(row.actor);
  for (const row of rows) {
    if (row.actor.startsWith(ANONYMOUS_ACTOR)) continue;
    const createdAt = created.get(row.actor);
    // Buckets come in ascending order; `previous` is the last active one (first: the creation interval).
    let previous = createdAt === undefined ? undefined : index.get(createdAt);
    let first = true;
    for (let n = 0; n < row.buckets.length; n++) {
      const current = index.get(row.buckets[n]!);
      if (current === undefined) continue;
      keep(row.actor, current, previous === current ? "new" : !first && previous === current - 1 ? "returning" : "resurrecting");
      const next = n + 1 < row.buckets.length ? index.get(row.buckets[n + 1]!) : undefined;
      if (next !== current + 1) keep(row.actor, current + 1, "dormant");
      previous = current;
      first = false;
    }
  }
  return { range, walls, personless: personless.size };
}

export async function computeLifecycle(env: QueryEnv, spec: LifecycleSpec): Promise<{ results: LifecycleResult[]; range: ResolvedDateRange; personless: number }> {
  const counts = new Map<LifecycleStatus, number[]>();
  const { range, walls, personless } = await classify(env, spec, (_, interval, status) => {
    let data = counts.get(status);
    if (!data) counts.set(status, (data = []));
    data[interval] = (data[interval] ?? 0) + 1;
  });
  const labels = walls.map((wall) => bucketLabel(wall, range));
  const days = walls.map((wall) => bucketDay(wall, spec.interval));
  const name = spec.series.action?.name ?? spec.series.event ?? "All events";
  const action: LifecycleAction = { id: spec.series.action?.id ?? spec.series.event, name, type: spec.series.action ? "actions" : "events", order: 0, math: "total" };
  if (spec.series.custom_name !== null) action.custom_name = spec.series.custom_name;
  const results = LIFECYCLE_STATUSES.map((status): LifecycleResult => {
    // (n === 0 keeps a dormant zero 0, not -0.)
    const data = walls.map((_, i) => counts.get(status)?.[i] ?? 0).map((n) => (status === "dormant" && n !== 0 ? -n : n));
    return { action, data, count: data.reduce((sum, n) => sum + n, 0), labels, days, label: `${name} - ${status}`, status };
  });
  return { results, range, personless };
}

/** PostHog's `day` of a lifecycle point: a date (or date and time) of the project's wall clock, read as its interval. */
function selectedDay(value: unknown, spec: LifecycleSpec): number | null {
  if (value === undefined || value === null) return null;
  const match = typeof value === "string" ? /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?))?/.exec(value) : null;
  if (!match) throw new AppError("invalid_input", "day must be a date (YYYY-MM-DD, or with a time for hourly lifecycles).", "day");
  const wall = wallFromText(`${match[1]} ${match[2] ?? "00:00:00"}`);
  if (Number.isNaN(wall.getTime())) throw new AppError("invalid_input", "day must be a date (YYYY-MM-DD, or with a time for hourly lifecycles).", "day");
  return startOfInterval(wall, spec.interval).getTime();
}

/** LifecycleQuery for the query API. */
export const lifecycleKind: QueryKind<LifecycleSpec> = {
  kind: "LifecycleQuery",
  spec: (node, override) => lifecycleSpec(parseNode(lifecycleQuerySchema, node), override),
  check: ({ db, projectId }, spec) => checkEventFilters(db, projectId, groupsOf(spec)),
  async compute(env, spec) {
    await requireCohorts(env.db.sql, env.projectId, cohortIdsOf(groupsOf(spec)));
    const { results, range, personless } = await computeLifecycle(env, spec);
    // Burrow's own field beside PostHog's results: the chart's note on the visitors left out.
    return { results, range: { from: range.dateFrom, to: range.dateTo }, extra: { personlessVisitors: personless }, weight: 1 + results.reduce((sum, item) => sum + 3 * item.data.length, 0) };
  },
  /** PostHog's InsightActorsQuery for a lifecycle: `day` (an interval of the range) and `status`, either optional. By key. */
  async actors(env, spec, selector): Promise<ActorKey[]> {
    const status = selector.status ?? null;
    if (status !== null && !(LIFECYCLE_STATUSES as readonly unknown[]).includes(status)) {
      throw new AppError("invalid_input", `status must be one of ${LIFECYCLE_STATUSES.join(", ")}.`, "status");
    }
    const day = selectedDay(selector.day, spec);
    await requireCohorts(env.db.sql, env.projectId, cohortIdsOf(groupsOf(spec)));
    const actors = new Set<string>();
    await classify(env, spec, (actor, _, found, wall) => {
      if ((status === null || found === status) && (day === null || wall.getTime() === day)) actors.add(actor);
    });
    return [...actors].sort(compareCodePoints);
  },
};
