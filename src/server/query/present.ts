/**
 * The query API's answer as PostHog's QueryViewSet gives it: the kind's result fields
 * (`results` and the kind's own), then CachedQueryResponseMixin's freshness fields. Null
 * fields are present as null, as PostHog dumps its pydantic models.
 */
import { isoInZone } from "@/server/analytics/date-range";
import type { ComputedQuery, QueryResponse } from "./contract";

export type { QueryResponse } from "./contract";

export function queryResponse(computed: ComputedQuery): QueryResponse {
  const { answer, zone } = computed;
  const range = answer?.range ?? null;
  return {
    ...(answer?.extra ?? {}),
    results: answer?.results ?? null,
    is_cached: computed.cached,
    last_refresh: computed.computedAt?.toISOString() ?? null,
    next_allowed_client_refresh: computed.freshUntil?.toISOString() ?? null,
    cache_key: computed.cacheKey,
    cache_target_age: computed.freshUntil?.toISOString() ?? null,
    timezone: zone,
    resolved_date_range: range ? { date_from: isoInZone(range.from, zone), date_to: isoInZone(range.to, zone) } : null,
    timings: [],
    hogql: null,
    error: null,
    modifiers: {},
    query_status: null,
    query_metadata: null,
    calculation_trigger: null,
  };
}
