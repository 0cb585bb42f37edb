/**
 * The pieces of PostHog's query nodes every insight kind shares (schema-general.ts:
 * DateRange, property filters, BreakdownFilter, the dashboard's DashboardFilter), checked
 * with zod, and what they reduce to. Each kind's own node (TrendsQuery, FunnelsQuery, …)
 * is built from these in its domain's contract.
 *
 * A query keeps fields Burrow does not read (chart settings such as `showLegend`), but a
 * field that would change the answer and is not supported is a 400 rather than silently
 * ignored.
 */
import { z } from "zod";
import { INT4_MAX } from "@/server/input/record-id";
import { propertiesParamSchema, type PropertyGroup } from "@/server/properties/contract";
import { checkDateValue, INTERVALS } from "./date-range";

export const BREAKDOWN_TYPES = ["event", "person", "cohort"] as const;
/** A cohort breakdown's values: cohort ids, or "all" (everyone; PostHog's ALL_USERS_COHORT_ID, 0, reads as "all"). */
export type CohortBreakdownValue = number | "all";
/** The most cohorts one breakdown may name: each is one pass over the events. */
export const MAX_COHORT_BREAKDOWN = 25;
/** PostHog's breakdown limit was 10 for years (now 25); the issue asks for top 10 plus "other". */
export const DEFAULT_BREAKDOWN_LIMIT = 10;
export const MAX_BREAKDOWN_LIMIT = 100;
/** The most series (funnel steps, trend lines) one query may have. */
export const MAX_SERIES = 20;

export const shown = (input: unknown) => (typeof input === "string" ? `'${input.slice(0, 60)}'` : JSON.stringify(input)?.slice(0, 60) ?? String(input));

/** Property filters: PostHog's list of filters, or a group (`{type: "AND", values}`); null or [] is none. */
export const propertiesField = z
  .unknown()
  .transform((input, ctx): PropertyGroup | null => {
    if (input === null || input === undefined) return null;
    const result = propertiesParamSchema.safeParse(input);
    if (!result.success) {
      for (const issue of result.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
      return z.NEVER;
    }
    return result.data.values.length === 0 ? null : result.data;
  })
  .optional();

export const dateValue = (name: string) =>
  z
    .string({ error: `${name} must be a string.` })
    .max(100, `${name} must be at most 100 characters.`)
    .superRefine((value, ctx) => {
      try {
        checkDateValue(name, value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    })
    .nullish();

export const dateRangeSchema = z.looseObject({
  date_from: dateValue("date_from"),
  date_to: dateValue("date_to").refine((value) => value !== "all", "date_to cannot be 'all'."),
});

export const intervalSchema = z.enum(INTERVALS, { error: (issue) => `interval ${shown(issue.input)} is not supported; use one of ${INTERVALS.join(", ")}.` });

const COHORT_BREAKDOWN_HELP = `A cohort breakdown takes a cohort id, "all" (all users), or a list of up to ${MAX_COHORT_BREAKDOWN} of them.`;

/** A cohort breakdown's `breakdown` (PostHog: an id, "all", or a list of them; ids may come as digit strings), each value once. */
export function cohortBreakdownValues(input: unknown): CohortBreakdownValue[] | null {
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0 || list.length > MAX_COHORT_BREAKDOWN) return null;
  const values: CohortBreakdownValue[] = [];
  for (const item of list) {
    let value: CohortBreakdownValue;
    // 0 is PostHog's ALL_USERS_COHORT_ID, which its newer clients send for "all".
    if (item === "all" || item === 0 || item === "0") value = "all";
    else if (typeof item === "number" || (typeof item === "string" && /^\d{1,10}$/.test(item))) value = Number(item);
    else return null;
    if (value !== "all" && !(Number.isInteger(value) && value > 0 && value <= INT4_MAX)) return null;
    if (!values.includes(value)) values.push(value);
  }
  return values;
}

export const breakdownFilterSchema = z
  .looseObject({
    // A property name; for breakdown_type "cohort", cohort ids (both checked below, by type).
    breakdown: z.union([z.string(), z.number(), z.array(z.unknown())], { error: "breakdown must be a property name (a string)." }).nullish(),
    breakdown_type: z
      .enum(BREAKDOWN_TYPES, { error: (issue) => `breakdown_type ${shown(issue.input)} is not supported; use 'event', 'person' or 'cohort'.` })
      .nullish(),
    breakdown_limit: z.number().int("breakdown_limit must be an integer.").min(1).max(MAX_BREAKDOWN_LIMIT).nullish(),
    breakdown_hide_other_aggregation: z.boolean().nullish(),
    breakdowns: z.array(z.unknown()).max(0, "Multiple breakdowns (breakdowns) are not supported; use breakdown.").nullish(),
  })
  .superRefine((filter, ctx) => {
    if (filter.breakdown === null || filter.breakdown === undefined) return;
    if (filter.breakdown_type === "cohort") {
      if (!cohortBreakdownValues(filter.breakdown)) ctx.addIssue({ code: "custom", message: COHORT_BREAKDOWN_HELP, path: ["breakdown"] });
    } else if (typeof filter.breakdown !== "string") {
      ctx.addIssue({ code: "custom", message: "breakdown must be a property name (a string).", path: ["breakdown"] });
    } else if (filter.breakdown.length === 0 || filter.breakdown.length > 400) {
      ctx.addIssue({ code: "custom", message: "breakdown must be a property name of 1 to 400 characters.", path: ["breakdown"] });
    }
  })
  .nullish();

export const notSupported = (what: string) => z.unknown().refine((value) => value === undefined || value === null || value === false, `${what} is not supported yet.`).optional();

/**
 * Filters a dashboard (or one of its tiles) lays over its insights, PostHog's
 * DashboardFilter: a date range replaces the insight's, properties are ANDed with its own,
 * an interval or breakdown replaces its own, and `filterTestAccounts`, when set, replaces the
 * insight's own (null: the insight's). The query service also lays the project's test
 * account filters into `properties` here when the query asks for them
 * (query/test-accounts.ts), so every kind reads them as it reads a dashboard's.
 */
export const filtersOverrideSchema = z.looseObject({
  date_from: dateValue("date_from"),
  date_to: dateValue("date_to").refine((value) => value !== "all", "date_to cannot be 'all'."),
  properties: propertiesField,
  interval: intervalSchema.nullish(),
  breakdown_filter: breakdownFilterSchema,
  filterTestAccounts: z.boolean({ error: "filterTestAccounts must be a boolean." }).nullish(),
});
export type FiltersOverride = z.output<typeof filtersOverrideSchema>;

/** A breakdown reduced to what decides an answer. */
export type BreakdownSpec =
  | { key: string; type: "event" | "person"; limit: number; hideOther: boolean }
  | { type: "cohort"; cohorts: CohortBreakdownValue[] }
  | null;

/** The breakdown of a parsed filter (its shape per type checked by breakdownFilterSchema). */
export function breakdownSpec(filter: z.output<typeof breakdownFilterSchema>): BreakdownSpec {
  const breakdown = filter?.breakdown;
  if (breakdown === null || breakdown === undefined || breakdown === "") return null;
  if (filter!.breakdown_type === "cohort") return { type: "cohort", cohorts: cohortBreakdownValues(breakdown)! };
  return {
    key: String(breakdown),
    type: filter!.breakdown_type ?? "event",
    limit: filter!.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT,
    hideOther: filter!.breakdown_hide_other_aggregation ?? false,
  };
}

export function andGroups(a: PropertyGroup | null, b: PropertyGroup | null): PropertyGroup | null {
  if (!a) return b;
  if (!b) return a;
  return { type: "AND", values: [a, b] };
}

/** A query's date range with a dashboard's laid over it (the dashboard's wins when it sets either end). */
export function overriddenDateRange(
  dateRange: { date_from?: string | null; date_to?: string | null } | null | undefined,
  override: FiltersOverride | null,
): { date_from: string | null; date_to: string | null } {
  if (override?.date_from || override?.date_to) return { date_from: override.date_from ?? null, date_to: override.date_to ?? null };
  return { date_from: dateRange?.date_from ?? null, date_to: dateRange?.date_to ?? null };
}

/** A query's breakdown filter, or the dashboard's when it sets one. */
export function overriddenBreakdown<T>(breakdownFilter: T, override: FiltersOverride | null): T | FiltersOverride["breakdown_filter"] {
  return override?.breakdown_filter !== undefined && override.breakdown_filter !== null ? override.breakdown_filter : breakdownFilter;
}

/** `action_id`: set by the query API on the EventsNode an ActionsNode became (query/actions-node.ts), for the kinds' labels. */
export const actionIdField = z.number().int().positive().nullish();

/** The action a node came from (its id and name), or null for an events node. */
export function actionOfNode(node: { action_id?: number | null; name?: string | null }): { id: number; name: string } | null {
  return node.action_id ? { id: node.action_id, name: node.name ?? `Action ${node.action_id}` } : null;
}
