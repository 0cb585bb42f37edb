/**
 * The paths algorithm, over one actor's events at a time (PostHog's paths_query_runner.py,
 * behaviour read from its HogQL): the events become sessions (split at gaps of 30 minutes
 * or more), each session's path loses consecutive repeats (a run keeps its last event),
 * is cut at the start and end points and limited to `stepLimit` steps; each step is an
 * edge from the previous step's node to its own, nodes keyed `"<step>_<item>"`.
 */
import { compareCodePoints } from "@/server/properties/coerce";
import { compiledRegex } from "@/server/properties/regex";
import { groupingPattern, type PathsActorKeys, type PathsSpec } from "./contract";

/** A gap this long or longer between two events starts a new session (PostHog's 30 minutes). */
export const SESSION_GAP_MS = 30 * 60 * 1000;
/** What replaces the middle of a path cut at both ends when it is longer than the step limit. */
export const ELLIPSIS = "...";

export interface PathsEdge {
  source: string;
  target: string;
  /** Traversals of the edge (sessions, not distinct actors). */
  value: number;
  /** Mean time from the source step to the target step, in milliseconds. */
  average_conversion_time: number;
}

/**
 * Turns raw path items into the items counted: the cleaning rules in order (each a
 * global regex replacement, `\1`… in the alias standing for groups, `\0` for the match),
 * then the first grouping that matches anywhere in the result stands for it. Answers are
 * kept per raw item: a project has far fewer distinct URLs than events.
 */
export function pathItemCleaner(spec: Pick<PathsSpec, "pathCleaning" | "pathGroupings">): (raw: string) => string {
  if (spec.pathCleaning.length === 0 && spec.pathGroupings.length === 0) return (raw) => raw;
  const rules = spec.pathCleaning.map(({ regex, alias }) => ({ regex: compiledRegex(regex), alias }));
  const groupings = spec.pathGroupings.map((grouping) => ({ grouping, regex: compiledRegex(groupingPattern(grouping)) }));
  const known = new Map<string, string>();
  return (raw) => {
    let item = known.get(raw);
    if (item !== undefined) return item;
    item = raw;
    for (const { regex, alias } of rules) {
      if (!regex) continue; // checked when the query was parsed; a pattern RE2 cannot run changes nothing
      item = regex.matcher(item).replaceAll((match: string, ...rest: unknown[]) => {
        const groups = rest.slice(0, regex.groupCount()) as (string | null | undefined)[];
        return alias.replace(/\\([0-9\\])/g, (_, which: string) => (which === "\\" ? "\\" : which === "0" ? match : (groups[Number(which) - 1] ?? "")));
      });
    }
    const grouped = groupings.find(({ regex }) => regex?.test(item!));
    if (grouped) item = grouped.grouping;
    if (known.size < 100_000) known.set(raw, item);
    return item;
  };
}

/** A path as counted: its items (any type: text, or ids standing for text) and their times (epoch ms). */
export interface TimedPath<T> {
  items: T[];
  times: number[];
}

/**
 * The sessions of one actor's kept events, consecutive repeats collapsed: a new session
 * starts where the gap from the previous event is 30 minutes or more; within one, a run
 * of the same item keeps its last event (and that event's time). Each session is handed
 * to `visit` as it ends (its arrays are its own).
 */
export function forEachSession<T>(items: ArrayLike<T>, times: ArrayLike<number>, visit: (session: TimedPath<T>) => void): void {
  let current: TimedPath<T> | null = null;
  for (let i = 0; i < items.length; i++) {
    if (current && times[i]! - times[i - 1]! >= SESSION_GAP_MS) {
      visit(current);
      current = null;
    }
    if (!current) current = { items: [], times: [] };
    const last = current.items.length - 1;
    if (last >= 0 && current.items[last] === items[i]) current.times[last] = times[i]!;
    else {
      current.items.push(items[i]!);
      current.times.push(times[i]!);
    }
  }
  if (current) visit(current);
}

const slice = <T>(path: TimedPath<T>, from: number, to?: number): TimedPath<T> => ({ items: path.items.slice(from, to), times: path.times.slice(from, to) });

/**
 * One session's collapsed path cut to what the query counts, or null when it does not
 * count: from the first `start` on, up to the first `end`, at most `stepLimit` steps (the
 * first ones; with only an end point, the last ones). With both points a longer path keeps
 * its first and last half of the limit around `ellipsis` (standing at the time of the
 * first step it hides).
 */
export function trimmedPath<T>(path: TimedPath<T>, points: { start: T | null; end: T | null; stepLimit: number }, ellipsis: T): TimedPath<T> | null {
  const { start, end, stepLimit } = points;
  let cut = path;
  if (start !== null) {
    const at = cut.items.indexOf(start);
    if (at < 0) return null;
    if (at > 0) cut = slice(cut, at);
  }
  if (end !== null) {
    const at = cut.items.indexOf(end);
    if (at < 0) return null;
    if (at < cut.items.length - 1) cut = slice(cut, 0, at + 1);
  }
  if (cut.items.length <= stepLimit) return cut;
  if (start !== null && end !== null) {
    const half = Math.floor(stepLimit / 2);
    const tail = slice(cut, cut.items.length - half);
    return {
      items: [...cut.items.slice(0, half), ellipsis, ...tail.items],
      times: [...cut.times.slice(0, half), cut.times[half]!, ...tail.times],
    };
  }
  return end !== null ? slice(cut, cut.items.length - stepLimit) : slice(cut, 0, stepLimit);
}

/** The node key of step `index` (0-based) of a path: `"1_/home"`. */
export const nodeKey = (index: number, item: string) => `${index + 1}_${item}`;

/** Item ids below this (and steps below MAX_STEP_KEY) make an edge's key one number; past it, text. */
const ID_SPACE = 2 ** 21;
const MAX_STEP_KEY = 2 ** 10;

/** Adds up the edges of paths whose items are ids of `names`; one call per counted path. */
export class EdgeTally {
  private readonly edges = new Map<number | string, { step: number; from: number; to: number; value: number; totalMs: number }>();

  constructor(private readonly names: readonly string[]) {}

  add(path: TimedPath<number>): void {
    for (let i = 1; i < path.items.length; i++) {
      const from = path.items[i - 1]!;
      const to = path.items[i]!;
      const key = from < ID_SPACE && to < ID_SPACE && i < MAX_STEP_KEY ? (i * ID_SPACE + from) * ID_SPACE + to : `${i}:${from}:${to}`;
      const edge = this.edges.get(key);
      if (edge) {
        edge.value += 1;
        edge.totalMs += path.times[i]! - path.times[i - 1]!;
      } else {
        this.edges.set(key, { step: i, from, to, value: 1, totalMs: path.times[i]! - path.times[i - 1]! });
      }
    }
  }

  /**
   * The edges most traversed first (ties by source, then target), within the weight
   * bounds, at most `edgeLimit`; of those, only the ones reachable from a first step.
   */
  results(spec: Pick<PathsSpec, "edgeLimit" | "minEdgeWeight" | "maxEdgeWeight">): PathsEdge[] {
    const kept = [...this.edges.values()]
      .filter((edge) => (spec.minEdgeWeight === null || edge.value >= spec.minEdgeWeight) && (spec.maxEdgeWeight === null || edge.value <= spec.maxEdgeWeight))
      .map((edge) => ({
        source: nodeKey(edge.step - 1, this.names[edge.from]!),
        target: nodeKey(edge.step, this.names[edge.to]!),
        value: edge.value,
        totalMs: edge.totalMs,
      }))
      .sort((a, b) => b.value - a.value || compareCodePoints(a.source, b.source) || compareCodePoints(a.target, b.target))
      .slice(0, spec.edgeLimit);
    const next = new Map<string, string[]>();
    for (const edge of kept) {
      let targets = next.get(edge.source);
      if (!targets) next.set(edge.source, (targets = []));
      targets.push(edge.target);
    }
    const reached = new Set<string>();
    const stack = kept.filter((edge) => edge.source.startsWith("1_")).map((edge) => edge.source);
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (reached.has(node)) continue;
      reached.add(node);
      for (const target of next.get(node) ?? []) if (!reached.has(target)) stack.push(target);
    }
    return kept
      .filter((edge) => reached.has(edge.source))
      .map((edge) => ({ source: edge.source, target: edge.target, value: edge.value, average_conversion_time: edge.totalMs / edge.value }));
  }
}

/**
 * How many steps of a counted path an actors query's keys select: with a drop-off key,
 * the path's last step when it is that key; else the steps arriving from `start` (an
 * edge's source) and/or at `end` (its target); with no key, every step.
 */
export function selectedSteps(path: TimedPath<string>, keys: PathsActorKeys): number {
  const length = path.items.length;
  if (keys.dropoff !== null) return length > 0 && nodeKey(length - 1, path.items[length - 1]!) === keys.dropoff ? 1 : 0;
  let count = 0;
  for (let i = 0; i < length; i++) {
    if (keys.start !== null && (i === 0 || nodeKey(i - 1, path.items[i - 1]!) !== keys.start)) continue;
    if (keys.end !== null && nodeKey(i, path.items[i]!) !== keys.end) continue;
    count++;
  }
  return count;
}
