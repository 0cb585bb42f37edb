/**
 * Stickiness (PostHog's StickinessQueryRunner): per series, how many actors were active in
 * exactly k intervals of the range (k = 1 … the number of intervals), or — cumulative — in
 * k or more. An interval counts when the actor has a matching event in it, or with
 * `stickinessCriteria` when their number of events there satisfies it. The store answers
 * each actor's active buckets (`actorBuckets`), so both stores give the same answer.
 *
 * Results come in PostHog's shape: `[{count, data, days: [1, 2, …], label, labels: ["1 day",
 * "2 days", …], action}]`, one per series.
 */
import { checkEventFilters } from "@/server/events/service";
import { AppError } from "@/server/errors";
import { cohortIdsOf, requireCohorts } from "@/server/db/events/filters/cohorts";
import type { PropertyGroup } from "@/server/properties/contract";
import { compareCodePoints } from "@/server/properties/coerce";
import { parseNode, QueryNodeError, type ActorKey, type QueryEnv, type QueryKind } from "@/server/analytics/kind";
import { bucketStarts, resolveDateRange, type ResolvedDateRange } from "@/server/analytics/date-range";
import { asksBreakdown, CRITERIA_OPERATORS, stickinessQuerySchema, stickinessSpec, type CriteriaOperator, type StickinessSpec } from "./contract";

export interface StickinessAction {
  order: number;
  type: "events" | "actions";
  name: string;
  id: string | number | null;
  custom_name: string | null;
}

export interface StickinessSeriesResult {
  /** Actors active at least once (the sum of the non-cumulative data). */
  count: number;
  data: number[];
  /** 1 … the number of intervals. */
  days: number[];
  label: string;
  labels: string[];
  action: StickinessAction;
}

const COMPARE: Record<CriteriaOperator, (count: number, value: number) => boolean> = {
  gte: (count, value) => count >= value,
  lte: (count, value) => count <= value,
  exact: (count, value) => count === value,
};

function groupsOf(spec: StickinessSpec): PropertyGroup[] {
  return [spec.properties, ...spec.series.map((series) => series.properties)].filter((group): group is PropertyGroup => group !== null);
}

interface Activity {
  range: ResolvedDateRange;
  /** How many intervals (of `intervalCount` buckets each) the chart has. */
  intervals: number;
  /** Per series: each active actor's number of active intervals. */
  perSeries: Map<string, number>[];
}

async function activity(env: QueryEnv, spec: StickinessSpec): Promise<Activity> {
  const earliest = spec.dateRange.date_from === "all" ? await env.db.events.earliestTimestamp(env.projectId) : null;
  const range = resolveDateRange(spec.dateRange, spec.interval, env.zone, env.now, earliest);
  const walls = bucketStarts(range);
  const intervals = Math.ceil(walls.length / spec.intervalCount);
  const perSeries = spec.series.map(() => new Map<string, number>());
  if (walls.length === 0) return { range, intervals, perSeries };
  for (const group of groupsOf(spec)) await env.db.events.checkFilters(group);
  const rows = await env.db.events.actorBuckets(env.projectId, {
    from: range.from,
    // The range ends at its last millisecond, inclusive.
    to: new Date(range.to.getTime() + 1),
    zone: env.zone,
    interval: spec.interval,
    now: env.now,
    filters: spec.properties ? [spec.properties] : [],
    matchers: spec.series.map((series) => ({ event: series.event, filters: series.properties ? [series.properties] : [] })),
    counts: spec.criteria !== null,
    firstEver: null,
  });
  const index = new Map(walls.map((wall, i) => [wall.getTime(), i]));
  const last = walls.length - 1;
  for (const row of rows) {
    spec.series.forEach((_, s) => {
      // Intervals of several buckets count back from the range's end (PostHog's age from date_to).
      const events = new Map<number, number>();
      row.buckets.forEach((bucket, b) => {
        const i = index.get(bucket);
        if (i === undefined || !(row.masks[b]! & (1 << s))) return;
        const group = Math.floor((last - i) / spec.intervalCount);
        events.set(group, (events.get(group) ?? 0) + (spec.criteria ? row.counts[b]![s]! : 1));
      });
      let active = 0;
      for (const count of events.values()) if (!spec.criteria || COMPARE[spec.criteria.operator](count, spec.criteria.value)) active++;
      if (active > 0) perSeries[s]!.set(row.actor, active);
    });
  }
  return { range, intervals, perSeries };
}

export async function computeStickiness(env: QueryEnv, spec: StickinessSpec): Promise<{ results: StickinessSeriesResult[]; range: ResolvedDateRange }> {
  const { range, intervals, perSeries } = await activity(env, spec);
  const days = Array.from({ length: intervals }, (_, i) => i + 1);
  const labels = days.map((k) => `${k} ${spec.interval}${k === 1 ? "" : "s"}${spec.cumulative ? " or more" : ""}`);
  const results = spec.series.map((series, s): StickinessSeriesResult => {
    const exactly = new Array<number>(intervals).fill(0);
    for (const k of perSeries[s]!.values()) exactly[k - 1]! += 1;
    const count = exactly.reduce((sum, n) => sum + n, 0);
    const data = spec.cumulative ? exactly.map((_, i) => exactly.slice(i).reduce((sum, n) => sum + n, 0)) : exactly;
    return {
      count,
      data,
      days,
      label: series.action?.name ?? series.event ?? "All events",
      labels,
      action: { order: s, type: series.action ? "actions" : "events", name: series.action?.name ?? series.event ?? "All events", id: series.action?.id ?? series.event, custom_name: series.custom_name },
    };
  });
  return { results, range };
}

/** StickinessQuery for the query API. */
export const stickinessKind: QueryKind<StickinessSpec> = {
  kind: "StickinessQuery",
  spec(node, override) {
    const query = parseNode(stickinessQuerySchema, node);
    if (asksBreakdown(query, override)) throw new QueryNodeError("Stickiness has no breakdowns.", ["breakdownFilter"]);
    return stickinessSpec(query, override);
  },
  check: ({ db, projectId }, spec) => checkEventFilters(db, projectId, groupsOf(spec)),
  async compute(env, spec) {
    await requireCohorts(env.db.sql, env.projectId, cohortIdsOf(groupsOf(spec)));
    const { results, range } = await computeStickiness(env, spec);
    return { results, range: { from: range.dateFrom, to: range.dateTo }, weight: 1 + results.reduce((sum, item) => sum + 3 * item.data.length, 0) };
  },
  /**
   * PostHog's StickinessActorsQuery: `series` (index, default 0), `day` (a number of
   * intervals; absent: every active actor) and `operator` (gte, lte, exact; cumulative
   * charts always read gte). Those active in the most intervals first, then by key.
   */
  async actors(env, spec, selector): Promise<ActorKey[]> {
    const series = selector.series ?? 0;
    if (typeof series !== "number" || !Number.isInteger(series) || series < 0 || series >= spec.series.length) {
      throw new AppError("invalid_input", `series must be an integer from 0 to ${spec.series.length - 1}.`, "series");
    }
    const day = selector.day === undefined || selector.day === null ? null : typeof selector.day === "string" && /^\d{1,6}$/.test(selector.day) ? Number(selector.day) : selector.day;
    if (day !== null && (typeof day !== "number" || !Number.isInteger(day) || day < 1)) throw new AppError("invalid_input", "day must be a number of intervals (1 or more).", "day");
    const operator = selector.operator ?? null;
    if (operator !== null && !(CRITERIA_OPERATORS as readonly unknown[]).includes(operator)) throw new AppError("invalid_input", "operator must be one of gte, lte, exact.", "operator");
    const compare = COMPARE[spec.cumulative ? "gte" : ((operator as CriteriaOperator | null) ?? "exact")];
    await requireCohorts(env.db.sql, env.projectId, cohortIdsOf(groupsOf(spec)));
    const { perSeries } = await activity(env, spec);
    return [...perSeries[series]!]
      .filter(([, k]) => day === null || compare(k, day as number))
      .sort(([a, ka], [b, kb]) => kb - ka || compareCodePoints(a, b))
      .map(([actor]) => actor);
  },
};
