/**
 * The part of `actorEvents` both stores write alike over their dialect (postgres.ts,
 * clickhouse.ts): the range's conditions, each matcher's test as a bit of the mask, and
 * the actor's key. How the rows come back (rows, or one row of flat arrays) stays with each.
 */
import type { Binder } from "@/server/sql/bind";
import type { SqlDialect } from "@/server/sql/dialect";
import type { PropertyGroup } from "@/server/properties/contract";
import type { MatcherSql } from "../filters/matchers";
import { ANONYMOUS_ACTOR, type ActorEventsQuery } from "./query";

export interface ActorEventsFrame {
  where: string[];
  mask: string;
  actor: string;
}

export function actorEventsFrame(
  dialect: SqlDialect,
  params: Binder,
  matchers: MatcherSql,
  filter: (group: PropertyGroup) => string,
  projectId: number,
  query: ActorEventsQuery,
): ActorEventsFrame {
  const where = [
    `e.project_id = ${params.add(projectId, "int")}`,
    `e.timestamp >= ${params.add(query.from.toISOString(), "timestamptz")}`,
    `e.timestamp <= ${params.add(query.to.toISOString(), "timestamptz")}`,
  ];
  if (!query.everyEvent) where.push(...matchers.eventNames(query.matchers));
  where.push(...query.filters.map(filter));
  const tests = query.matchers.map(matchers.test);
  if (!query.everyEvent) where.push(matchers.any(tests));
  return { where, mask: matchers.mask(tests), actor: dialect.actor("e.person_id", "e.distinct_id", params.constant(ANONYMOUS_ACTOR)) };
}
