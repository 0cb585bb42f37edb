/**
 * The one walk of a parsed filter tree (contract.ts): AND/OR groups, negation, and leaves —
 * event, person and group properties, and cohorts. Each target (match.ts in memory, sql.ts
 * for PostgreSQL, clickhouse.ts for ClickHouse) says how to combine and how to compile a
 * property leaf with the operator table (operators.ts); the walk is the same for all three.
 *
 * Cohorts plug in here: a caller that can read cohorts passes a resolver that turns a cohort
 * leaf into that target's person-set test; without one a cohort leaf is refused with
 * COHORTS_UNSUPPORTED (the event stores pass one: db/events/filters/cohorts.ts; flags their own).
 */
import { AppError } from "@/server/errors";
import { isBehavioralFilter, isCohortFilter, isPropertyGroup, type BehavioralFilter, type CohortFilter, type PropertyFilter, type PropertyNode } from "./contract";

/** Turns a cohort leaf into the target's test that the person is (or, `not_in`, is not) in the cohort; negation is the walk's. */
export type CohortResolver<T> = (filter: CohortFilter) => T;

/** Turns a behavioral leaf into the target's test that the person performed the event (as the leaf counts it); negation is the walk's. */
export type BehavioralResolver<T> = (filter: BehavioralFilter) => T;

export const BEHAVIORAL_UNSUPPORTED = "behavioral filters (performed an event) are only supported in cohorts";

export function behavioralUnsupported(): never {
  throw new AppError("invalid_input", BEHAVIORAL_UNSUPPORTED, "properties");
}

export const COHORTS_UNSUPPORTED = "cohort filters are not supported yet";

export function cohortsUnsupported(): never {
  throw new AppError("invalid_input", COHORTS_UNSUPPORTED, "properties");
}

/** Group leaves reach only the in-memory matcher (feature flags read a group's properties). */
export function groupsUnsupported(): never {
  throw new AppError("invalid_input", "group property filters are not supported in event queries yet", "properties");
}

export interface Target<T> {
  /** Every part holds; an empty list holds. */
  all(parts: T[]): T;
  /** Some part holds (never given an empty list: an empty group is `all([])`). */
  any(parts: T[]): T;
  not(part: T): T;
  /** A property leaf with its negation applied. */
  leaf(filter: PropertyFilter): T;
  cohort?: CohortResolver<T>;
  behavioral?: BehavioralResolver<T>;
}

/** The tree compiled for one target: an empty group holds, whatever its type. */
export function compileTree<T>(node: PropertyNode, target: Target<T>): T {
  if (isPropertyGroup(node)) {
    if (node.values.length === 0) return target.all([]);
    const parts = node.values.map((child) => compileTree(child, target));
    return node.type === "AND" ? target.all(parts) : target.any(parts);
  }
  if (isCohortFilter(node)) {
    const member = (target.cohort ?? cohortsUnsupported)(node);
    return node.negation ? target.not(member) : member;
  }
  if (isBehavioralFilter(node)) {
    const performed = (target.behavioral ?? behavioralUnsupported)(node);
    return node.negation ? target.not(performed) : performed;
  }
  return target.leaf(node);
}

/** A SQL dialect's target: AND/OR/NOT as both write them; `empty` is the dialect's true literal. */
export function sqlTarget(empty: string, leaf: (filter: PropertyFilter) => string, cohort?: CohortResolver<string>, behavioral?: BehavioralResolver<string>): Target<string> {
  return {
    all: (parts) => (parts.length === 0 ? empty : `(${parts.join(" AND ")})`),
    any: (parts) => `(${parts.join(" OR ")})`,
    not: (part) => `(NOT ${part})`,
    leaf,
    cohort,
    behavioral,
  };
}

/** The property leaves of a tree, in order. */
export function propertyLeaves(node: PropertyNode): PropertyFilter[] {
  if (isPropertyGroup(node)) return node.values.flatMap(propertyLeaves);
  return isCohortFilter(node) || isBehavioralFilter(node) ? [] : [node];
}

/** Whether a tree reads person properties (the caller then joins persons; cohort leaves test the event's person id alone). */
export function readsPersonProperties(node: PropertyNode): boolean {
  return isPropertyGroup(node) ? node.values.some(readsPersonProperties) : node.type === "person";
}
