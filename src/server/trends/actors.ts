/**
 * The actors behind one point of a trends chart (PostHog's InsightActorsQuery over a
 * TrendsQuery: `day`, `series`, `breakdown`, `compare`): the persons — or, for events
 * without one, their distinct ids — with at least one of the series' events in that bucket
 * (for weekly / monthly active users, in the bucket's trailing window; for total values,
 * in the whole range) under that breakdown value. Read with the store's `actorEvents`, so
 * both stores answer alike; most events first. A trend by session start lists the visitors
 * of the sessions starting in the bucket instead (by-session-start.ts).
 */
import { z } from "zod";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, type EventStore, type EventValue } from "@/server/db/events";
import type { PropertyGroup } from "@/server/properties/contract";
import { bucketStarts, instantOf, startOfInterval, wallFromText, wallText, type ResolvedDateRange } from "@/server/analytics/date-range";
import { parseNode, QueryNodeError, type ActorKey } from "@/server/analytics/kind";
import type { TrendsSpec } from "./contract";
import { shiftWall, UNIT_OF } from "@/server/analytics/compare-to";
import { previousRange } from "./compare";
import { ACTIVE_DAYS, resolveTrendsRange, seriesQuery } from "./series-query";
import { sessionStartActors } from "./by-session-start";

const DAY_TEXT = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2})?))?/;

export const trendsActorsSelectorSchema = z.looseObject({
  /** The bucket: `2024-03-01`, or with the time for hourly charts (`2024-03-01 13:00:00`). */
  day: z.union([z.string().regex(DAY_TEXT, "day must be a date such as 2024-03-01 (with the time for hourly charts)."), z.null()]).optional(),
  series: z.number().int("series must be an index.").min(0).nullish(),
  breakdown: z.union([z.string(), z.number(), z.null()]).optional(),
  compare: z.enum(["current", "previous"], { error: "compare must be 'current' or 'previous'." }).nullish(),
});


/** The wall date of a selector's `day` (any time part read as the wall clock). */
function wallOfDay(day: string): Date {
  const [, date, time] = DAY_TEXT.exec(day)!;
  return wallFromText(`${date} ${time ? (time.length === 5 ? `${time}:00` : time) : "00:00:00"}`);
}

export async function trendsActors(store: EventStore, projectId: number, spec: TrendsSpec, zone: string, now: Date, input: Record<string, unknown>): Promise<ActorKey[]> {
  const selector = parseNode(trendsActorsSelectorSchema, input);
  const index = selector.series ?? 0;
  if (index >= spec.series.length) throw parseError("series", `series ${index} does not exist; the query has ${spec.series.length}.`);
  let range = await resolveTrendsRange(store, projectId, spec, zone, now);
  if (selector.compare === "previous" && spec.compare !== null) range = previousRange(range, spec.compare);
  const query = seriesQuery(spec, index, range, bucketStarts(range).map(wallText), now);

  // The instants of the point: [start, end), within the series' own bounds.
  let start = query.from;
  let end: Date | null = null;
  if (!spec.totalValue && selector.day) {
    const bucket = startOfInterval(wallOfDay(selector.day), range.interval);
    const window = ACTIVE_DAYS[spec.series[index]!.math];
    if (query.math === "active" && window) {
      const day = startOfInterval(bucket, "day");
      start = instantOf(shiftWall(day, "d", -(window - 1)), zone);
      end = instantOf(shiftWall(day, "d", 1), zone);
    } else {
      start = new Date(Math.max(instantOf(bucket, zone).getTime(), query.from.getTime()));
      end = instantOf(shiftWall(bucket, UNIT_OF[range.interval], 1), zone);
    }
  }
  const to = end === null || end > query.to ? query.to : end;
  if (spec.bySessionStart) {
    if (start > to) return [];
    return sessionStartActors(store, projectId, spec, index, range, now, { from: start, before: end ?? new Date(query.to.getTime() + 1) });
  }

  const { breakdown } = spec;
  let filters = query.filters;
  const values: EventValue[] = [];
  let matches: (value: string | null) => boolean = () => true;
  const selected = selector.breakdown;
  if (breakdown?.type === "cohort") {
    if (selected !== undefined && selected !== null && selected !== "all" && selected !== 0 && selected !== "0") {
      const cohort = Number(selected);
      if (!breakdown.cohorts.includes(cohort)) throw parseError("breakdown", `Cohort ${shownValue(selected)} is not one of the breakdown's cohorts.`);
      const member: PropertyGroup = { type: "AND", values: [{ type: "cohort", key: "id", value: cohort, operator: "in", negation: false }] };
      filters = [...filters, member];
    }
  } else if (breakdown && selected !== undefined && selected !== null) {
    values.push({ type: breakdown.type, key: breakdown.key });
    const wanted = String(selected);
    if (wanted === BREAKDOWN_OTHER) {
      // "Other" is every value past the kept ones: those the chart's aggregation ranks first.
      const rows = await store.trend(projectId, { ...query, math: "total", active: null, interval: null, breakdown: { type: breakdown.type, key: breakdown.key, limit: breakdown.limit } });
      const kept = new Set(rows.map((row) => row.value).filter((value) => value !== BREAKDOWN_OTHER));
      matches = (value) => !kept.has(value ?? BREAKDOWN_NULL);
    } else {
      matches = (value) => (value ?? BREAKDOWN_NULL) === wanted;
    }
  }

  if (query.sessionProperty) {
    // A session math counts the events' sessions: an event without one (no or an empty $session_id) has no say.
    const inSession: PropertyGroup = {
      type: "AND",
      values: [
        { type: "event", key: "$session_id", operator: "is_set", value: null, negation: false },
        { type: "event", key: "$session_id", operator: "is_not", value: [""], negation: false },
      ],
    };
    filters = [...filters, inSession];
  }

  if (start > to) return [];
  const actors = await store.actorEvents(projectId, { from: start, to, now, filters, matchers: [{ event: query.event, filters: [] }], everyEvent: false, values });
  const endMs = end?.getTime() ?? Infinity;
  const counted: { actor: string; events: number }[] = [];
  for (const actor of actors) {
    let events = 0;
    for (let i = 0; i < actor.times.length; i++) {
      if (actor.times[i]! < endMs && matches(values.length > 0 ? actor.values[0]![i]! : null)) events++;
    }
    if (events > 0) counted.push({ actor: actor.actor, events });
  }
  counted.sort((a, b) => b.events - a.events || (a.actor < b.actor ? -1 : a.actor > b.actor ? 1 : 0));
  return counted.map((entry) => entry.actor);
}

const shownValue = (value: unknown) => JSON.stringify(value).slice(0, 60);

/** A 400 naming the selector's field. */
const parseError = (field: string, message: string) => new QueryNodeError(message, [field]);
