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

/** One session's path as counted: its items and their times (epoch ms). */
export interface CountedPath {
  items: string[];
  times: number[];
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

/** The sessions of one actor's (kept) events: split where the gap from the previous event is 30 minutes or more. */
export function splitSessions(items: string[], times: number[]): CountedPath[] {
  const sessions: CountedPath[] = [];
  let current: CountedPath | null = null;
  for (let i = 0; i < items.length; i++) {
    if (!current || times[i]! - times[i - 1]! >= SESSION_GAP_MS) sessions.push((current = { items: [], times: [] }));
    current.items.push(items[i]!);
    current.times.push(times[i]!);
  }
  return sessions;
}

/** Consecutive repeats collapsed; a run keeps its last event (and that event's time). */
export function collapseRepeats(path: CountedPath): CountedPath {
  const out: CountedPath = { items: [], times: [] };
  for (let i = 0; i < path.items.length; i++) {
    if (i + 1 < path.items.length && path.items[i] === path.items[i + 1]) continue;
    out.items.push(path.items[i]!);
    out.times.push(path.times[i]!);
  }
  return out;
}

const slice = (path: CountedPath, from: number, to?: number): CountedPath => ({ items: path.items.slice(from, to), times: path.times.slice(from, to) });

/**
 * One session's collapsed path cut to what the query counts, or null when it does not
 * count: from the first `startPoint` on, up to the first `endPoint`, at most `stepLimit`
 * steps (the first ones; with only an end point, the last ones). With both points a
 * longer path keeps its first and last half of the limit around "..." (standing at the
 * time of the first step it hides).
 */
export function trimmedPath(path: CountedPath, spec: Pick<PathsSpec, "startPoint" | "endPoint" | "stepLimit">): CountedPath | null {
  const { startPoint, endPoint, stepLimit } = spec;
  let cut = path;
  if (startPoint !== null) {
    const at = cut.items.indexOf(startPoint);
    if (at < 0) return null;
    cut = slice(cut, at);
  }
  if (endPoint !== null) {
    const at = cut.items.indexOf(endPoint);
    if (at < 0) return null;
    cut = slice(cut, 0, at + 1);
  }
  if (cut.items.length <= stepLimit) return cut;
  if (startPoint !== null && endPoint !== null) {
    const half = Math.floor(stepLimit / 2);
    const tail = slice(cut, cut.items.length - half);
    return {
      items: [...cut.items.slice(0, half), ELLIPSIS, ...tail.items],
      times: [...cut.times.slice(0, half), cut.times[half]!, ...tail.times],
    };
  }
  return endPoint !== null ? slice(cut, cut.items.length - stepLimit) : slice(cut, 0, stepLimit);
}

/** The node key of step `index` (0-based) of a path: `"1_/home"`. */
export const nodeKey = (index: number, item: string) => `${index + 1}_${item}`;

/** Adds up the edges of paths; one call per counted path. */
export class EdgeTally {
  private readonly edges = new Map<string, { source: string; target: string; value: number; totalMs: number }>();

  add(path: CountedPath): void {
    for (let i = 1; i < path.items.length; i++) {
      const source = nodeKey(i - 1, path.items[i - 1]!);
      const target = nodeKey(i, path.items[i]!);
      const key = `${source}\u0000${target}`;
      let edge = this.edges.get(key);
      if (!edge) this.edges.set(key, (edge = { source, target, value: 0, totalMs: 0 }));
      edge.value += 1;
      edge.totalMs += path.times[i]! - path.times[i - 1]!;
    }
  }

  /**
   * The edges most traversed first (ties by source, then target), within the weight
   * bounds, at most `edgeLimit`; of those, only the ones reachable from a first step.
   */
  results(spec: Pick<PathsSpec, "edgeLimit" | "minEdgeWeight" | "maxEdgeWeight">): PathsEdge[] {
    const kept = [...this.edges.values()]
      .filter((edge) => (spec.minEdgeWeight === null || edge.value >= spec.minEdgeWeight) && (spec.maxEdgeWeight === null || edge.value <= spec.maxEdgeWeight))
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
export function selectedSteps(path: CountedPath, keys: PathsActorKeys): number {
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
