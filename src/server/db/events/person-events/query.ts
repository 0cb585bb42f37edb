/** Whose events `deletePersonEvents` removes. */
export interface PersonEvents {
  uuid: string;
  distinctIds: readonly string[];
}

/** `personsWithEventCount` (EventStore): who did `event` since `since`, `count.operator` `count.value` times (gte 1: at least once). */
export interface EventCountQuery {
  event: string;
  since: Date;
  count: { operator: "gte" | "lte" | "exact" | "gt" | "lt"; value: number };
}

/** A count comparison as SQL, the same in both dialects (the operator is one of five known ones; the value goes in as a parameter). */
export const COUNT_COMPARISONS = { gte: ">=", lte: "<=", exact: "=", gt: ">", lt: "<" } as const;
