/**
 * A dashboard's filters as the page holds them: PostHog's DashboardFilter (`date_from`,
 * `date_to`, `properties`, `filterTestAccounts`), read from the saved dashboard or from the URL
 * (`?date_from=-30d&date_to=&properties=[…]&filter_test_accounts=true`), which wins when it names any of them, and
 * written back to the URL so a filtered view can be shared, reloaded and navigated with
 * back and forward. Pure: the filter bar and the tiles' captions both use it.
 */
import { OPERATOR_LABELS } from "@/components/events/filter-params";
import { DATE_PRESETS } from "@/components/insights/date-presets";
import type { PropertyOperator } from "@/server/properties/contract";

export interface PropertyCondition {
  type: "event" | "person";
  key: string;
  operator: PropertyOperator;
  value: string | string[] | null;
}

export interface DashboardFilters {
  date_from: string | null;
  date_to: string | null;
  properties: PropertyCondition[];
  /** Every tile with (true) or without (false) the test accounts left out; null: each insight's own setting. */
  filterTestAccounts: boolean | null;
}

export const NO_FILTERS: DashboardFilters = { date_from: null, date_to: null, properties: [], filterTestAccounts: null };

const URL_KEYS = ["date_from", "date_to", "properties", "filter_test_accounts"] as const;
const UNITS: Record<string, string> = { h: "hour", d: "day", w: "week", m: "month", q: "quarter", y: "year" };
const OPERATORS = new Set(Object.keys(OPERATOR_LABELS));

const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);
const flag = (value: unknown) => (value === true || value === "true" ? true : value === false || value === "false" ? false : null);

/** The conditions of a stored `properties` (a list, or groups of them), skipping what the bar cannot edit. */
export function conditionsOf(properties: unknown): PropertyCondition[] {
  const list = Array.isArray(properties) ? properties : properties && typeof properties === "object" ? (properties as { values?: unknown }).values : null;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item): PropertyCondition[] => {
    if (!item || typeof item !== "object") return [];
    const node = item as Record<string, unknown>;
    if (Array.isArray(node.values)) return conditionsOf(node);
    if (typeof node.key !== "string" || !OPERATORS.has(String(node.operator ?? "exact"))) return [];
    const value = Array.isArray(node.value) ? node.value.map(String) : node.value === null || node.value === undefined ? null : String(node.value);
    return [{ type: node.type === "person" ? "person" : "event", key: node.key, operator: (node.operator ?? "exact") as PropertyOperator, value }];
  });
}

/** A dashboard's saved `filters` as the bar shows them. */
export function savedFilters(filters: unknown): DashboardFilters {
  const stored = filters && typeof filters === "object" ? (filters as Record<string, unknown>) : {};
  return { date_from: text(stored.date_from), date_to: text(stored.date_to), properties: conditionsOf(stored.properties), filterTestAccounts: flag(stored.filterTestAccounts) };
}

/** The filters the URL names, or null when it names none (the saved ones apply). */
export function filtersFromSearch(params: URLSearchParams): DashboardFilters | null {
  if (!URL_KEYS.some((key) => params.has(key))) return null;
  let properties: unknown = null;
  try {
    properties = JSON.parse(params.get("properties") || "[]");
  } catch {
    properties = null;
  }
  return {
    date_from: text(params.get("date_from")),
    date_to: text(params.get("date_to")),
    properties: conditionsOf(properties),
    filterTestAccounts: flag(params.get("filter_test_accounts")),
  };
}

/** `params` with the filters written in (the three of every dashboard, and the test accounts' when set: the URL alone says what is shown). */
export function searchWithFilters(params: URLSearchParams, filters: DashboardFilters | null): string {
  const next = new URLSearchParams(params);
  for (const key of URL_KEYS) next.delete(key);
  if (filters) {
    next.set("date_from", filters.date_from ?? "");
    next.set("date_to", filters.date_to ?? "");
    next.set("properties", JSON.stringify(filters.properties));
    if (filters.filterTestAccounts !== null) next.set("filter_test_accounts", String(filters.filterTestAccounts));
  }
  const query = next.toString();
  return query ? `?${query}` : "";
}

/** What the server stores and the results call takes: complete conditions only; the test accounts' setting only when set (null is each insight's own). */
export function filtersBody(filters: DashboardFilters): { date_from: string | null; date_to: string | null; properties: PropertyCondition[]; filterTestAccounts?: boolean } {
  return {
    date_from: filters.date_from,
    date_to: filters.date_to,
    properties: filters.properties.filter(isComplete),
    ...(filters.filterTestAccounts === null ? {} : { filterTestAccounts: filters.filterTestAccounts }),
  };
}

const VALUELESS = new Set(["is_set", "is_not_set"]);
export const isComplete = (condition: PropertyCondition) =>
  condition.key.trim() !== "" && (VALUELESS.has(condition.operator) || (Array.isArray(condition.value) ? condition.value.length > 0 : (condition.value ?? "") !== ""));

export const sameFilters = (a: DashboardFilters, b: DashboardFilters) => JSON.stringify(filtersBody(a)) === JSON.stringify(filtersBody(b));

const shortDate = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });
const dateOnly = (value: string) => {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : shortDate.format(date);
};

/** "Last 30 days", "This month", "Jan 1, 2026 – Jan 31, 2026": a range in words. */
export function dateRangeLabel(from: string | null, to: string | null): string {
  const preset = DATE_PRESETS.find((item) => item.value === from);
  if (preset && !to) return preset.label;
  const relative = from ? /^-([0-9]{1,4})([hdwmqy])$/.exec(from) : null;
  if (relative && !to) {
    const [, count, unit] = relative;
    return `Last ${count} ${UNITS[unit!]}${count === "1" ? "" : "s"}`;
  }
  if (!from && !to) return "Last 7 days";
  if (from && !to) return `From ${dateOnly(from)}`;
  if (!from) return `Until ${dateOnly(to!)}`;
  return `${dateOnly(from)} – ${dateOnly(to!)}`;
}

/** `$browser equals Chrome`: a condition in words. */
export function conditionLabel(condition: { type: string; key: string; operator: string; value?: unknown }): string {
  const operator = OPERATOR_LABELS[condition.operator as PropertyOperator] ?? condition.operator;
  const value = VALUELESS.has(condition.operator) ? "" : ` ${Array.isArray(condition.value) ? condition.value.join(" or ") : String(condition.value ?? "")}`;
  return `${condition.type === "person" ? "Person " : ""}${condition.key} ${operator}${value}`;
}
