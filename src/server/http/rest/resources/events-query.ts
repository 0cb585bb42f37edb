/**
 * The events API's query string read into the contract's typed queries: PostHog's
 * parameter rules (a repeated parameter is a list the contract refuses, an empty one counts
 * as not given), and the list's `orderBy`.
 */
import { AppError } from "@/server/errors";
import { EVENT_LIST_PARAMS, EVENT_VALUES_PARAMS, listQueryOf, valuesQueryOf, type EventListParams, type EventListRequest, type EventValuesQuery } from "@/server/events/contract";

/**
 * The named parameters: one value as a string, a repeated one as a list (which the schemas
 * reject). An empty value counts as not given, as PostHog's `if request.GET.get(…)`.
 */
function paramsOf(url: URL, names: string[]): EventListParams {
  const out: EventListParams = {};
  for (const name of names) {
    const values = url.searchParams.getAll(name);
    if (values.length === 1 && values[0] === "") continue;
    if (values.length > 0) out[name] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

export function parseListQuery(url: URL, accept: string | null, now: Date): EventListRequest {
  const orderBy = url.searchParams.get("orderBy");
  if (orderBy !== null && !/^\[\s*"-timestamp"\s*\]$/.test(orderBy)) {
    throw new AppError("invalid_input", 'orderBy supports only ["-timestamp"] (newest first) for now.', "orderBy");
  }
  return listQueryOf(paramsOf(url, EVENT_LIST_PARAMS), accept, now);
}

export function parseValuesQuery(url: URL): EventValuesQuery {
  if (!url.searchParams.get("key")) throw new AppError("invalid_input", "key is required: the property whose values to list.", "key");
  return valuesQueryOf(paramsOf(url, EVENT_VALUES_PARAMS));
}
