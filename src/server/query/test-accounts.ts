/**
 * PostHog's `filterTestAccounts`: a query that sets it reads no event of the project's test
 * accounts. The project's `test_account_filters` (a list of property filters, set with
 * `PATCH /api/projects/:id/`) are ANDed into the filters every event read of the query
 * passes — each series, step, entity, exclusion and breakdown alike, as PostHog adds them to
 * every events WHERE of its query builders. They reach the kinds as a dashboard's
 * properties do (analytics/nodes.ts FiltersOverride), so the spec, and the cache key made
 * of it, holds them: editing the filters is a new query, never a stale answer.
 *
 * The flag is the insight node's (`filterTestAccounts`; a HogQLQuery's
 * `filters.filterTestAccounts`, read where its text says `{filters}`), the same node's
 * inside an actors query, or a dashboard's `filterTestAccounts` when that is set.
 */
import { andGroups, type FiltersOverride } from "@/server/analytics/nodes";
import { AppError } from "@/server/errors";
import { isObject } from "@/server/input/json-object";
import { propertiesParamSchema, type PropertyGroup } from "@/server/properties/contract";
import { runnableNode } from "./contract";

/** The nodes whose `source` is the insight they list the actors of. */
const ACTORS_WRAPPERS = new Set(["ActorsQuery", "InsightActorsQuery", "FunnelsActorsQuery"]);

/** The insight node of a query: the runnable node, or the insight inside an actors query. */
function insightNodeOf(query: unknown): Record<string, unknown> | null {
  let node = runnableNode(query)?.node ?? null;
  // ActorsQuery → InsightActorsQuery → the insight: two steps at most.
  for (let step = 0; node && step < 2 && ACTORS_WRAPPERS.has(String(node.kind)); step++) node = isObject(node.source) ? node.source : null;
  return node;
}

/** Whether the query reads without the test accounts: the dashboard's say when it has one, else the insight's. */
export function asksForTestAccounts(query: unknown, override: FiltersOverride | null): boolean {
  if (typeof override?.filterTestAccounts === "boolean") return override.filterTestAccounts;
  const node = insightNodeOf(query);
  if (!node) return false;
  const flag = node.kind === "HogQLQuery" ? (isObject(node.filters) ? node.filters.filterTestAccounts : undefined) : node.filterTestAccounts;
  return flag === true;
}

/**
 * The project's stored test account filters as one AND group, or null for none. They were
 * checked when saved; a list that no longer reads (written around the API) is a 400 saying
 * where to fix it rather than a query that silently counts the test accounts.
 */
export function testAccountGroup(stored: unknown): PropertyGroup | null {
  if (!Array.isArray(stored) || stored.length === 0) return null;
  const parsed = propertiesParamSchema.safeParse(stored);
  if (!parsed.success) {
    throw new AppError("invalid_input", `The project's test account filters cannot be read (${parsed.error.issues[0]!.message}); fix them in the project settings.`, "filterTestAccounts");
  }
  return parsed.data.values.length === 0 ? null : parsed.data;
}

/** `override` with the test account filters ANDed into its properties (unchanged without filters). */
export function withTestAccounts(override: FiltersOverride | null, filters: PropertyGroup | null): FiltersOverride | null {
  if (!filters) return override;
  return { ...override, properties: andGroups(override?.properties ?? null, filters) };
}
