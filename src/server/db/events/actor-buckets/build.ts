/**
 * The part of `actorBuckets` both stores write alike, for both ways (masks and general):
 * the range's conditions, each matcher's test, and the conditions of the first-ever read.
 * How buckets are numbered and folded (PostgreSQL's width_bucket and arrays, ClickHouse's
 * calendar index and groupArray) stays with each store (postgres.ts, clickhouse.ts).
 */
import type { Binder } from "@/server/sql/bind";
import type { PropertyGroup } from "@/server/properties/contract";
import type { MatcherSql } from "../filters/matchers";
import type { ActorBucketsQuery } from "./query";

export interface ActorBucketsFrame {
  /** The range's start, a timestamptz placeholder. */
  from: string;
  /** Each matcher's test, in order. */
  tests: string[];
  /** The events in the range matching the filters and a matcher. */
  where: string[];
  /** The mask of `tests`. */
  mask: string;
  /** The first-ever read, when asked: its matcher's test, the base matcher's, and the conditions over all time. */
  first: { test: string; base: string | null; where: string[] } | null;
}

/** Every filter group a query reads (its filters, its matchers', the first-ever base's). */
export function actorBucketsGroups(query: ActorBucketsQuery): PropertyGroup[] {
  return [...query.filters, ...query.matchers.flatMap((matcher) => matcher.filters), ...(query.firstEver?.onlyIfFirstOf?.filters ?? [])];
}

export function actorBucketsFrame(params: Binder, matchers: MatcherSql, filter: (group: PropertyGroup) => string, projectId: number, query: ActorBucketsQuery): ActorBucketsFrame {
  const { test, eventNames: namesOf, any } = matchers;
  const project = `e.project_id = ${params.add(projectId, "int")}`;
  const to = `e.timestamp < ${params.add(query.to.toISOString(), "timestamptz")}`;
  const from = params.add(query.from.toISOString(), "timestamptz");
  const filters = query.filters.map(filter);
  const tests = query.matchers.map(test);
  const where = [project, `e.timestamp >= ${from}`, to, ...namesOf(query.matchers), ...filters, any(tests)];
  let first: ActorBucketsFrame["first"] = null;
  if (query.firstEver) {
    const matcher = query.matchers[query.firstEver.matcher]!;
    const base = query.firstEver.onlyIfFirstOf ?? null;
    const firstTest = test(matcher);
    const baseTest = base ? test(base) : null;
    first = {
      test: firstTest,
      base: baseTest,
      where: [project, to, ...namesOf(base ? [matcher, base] : [matcher]), ...filters, baseTest ? `((${firstTest}) OR (${baseTest}))` : `(${firstTest})`],
    };
  }
  return { from, tests, where, mask: matchers.mask(tests), first };
}
