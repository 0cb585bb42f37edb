/**
 * Insights as PostHog's API shows them (InsightSerializer): the stored fields, the
 * dashboards they sit on, and the computed result with its freshness.
 */
import { toUserBasic } from "@/server/accounts/present";
import type { ComputedInsight, InsightResource } from "./contract";
import { tagNames } from "@/server/tags/service";
import type { InsightRow } from "./store";

/** A series of a trends result, as results carry it (dashboards and shared pages show them). */
export type { TrendsSeriesResult } from "@/server/trends/service";

export type { ComputedInsight, InsightResource } from "./contract";

const userOrNull = (user: Parameters<typeof toUserBasic>[0] | null) => (user ? toUserBasic(user) : null);

export function insightResource(row: InsightRow, computed: ComputedInsight): InsightResource {
  return {
    id: row.id,
    short_id: row.shortId,
    name: row.name,
    derived_name: row.derivedName,
    description: row.description,
    query: row.query ?? null,
    filters: row.filters,
    favorited: row.favorited,
    saved: row.saved,
    deleted: row.deleted,
    tags: tagNames(row.taggedItems),
    dashboards: [...new Set(row.tiles.map((tile) => tile.dashboardId))],
    dashboard_tiles: row.tiles.map((tile) => ({ id: tile.id, dashboard_id: tile.dashboardId, deleted: tile.deleted })),
    created_at: row.createdAt.toISOString(),
    created_by: userOrNull(row.createdBy),
    last_modified_at: row.lastModifiedAt.toISOString(),
    last_modified_by: userOrNull(row.lastModifiedBy),
    team_id: row.projectId,
    result: computed.result,
    hasMore: computed.hasMore,
    columns: computed.columns,
    personlessVisitors: computed.personlessVisitors,
    is_cached: computed.is_cached,
    computed_at: computed.computed_at,
    last_refresh: computed.last_refresh ?? row.lastRefresh?.toISOString() ?? null,
    cache_target_age: computed.cache_target_age,
    timezone: computed.timezone,
    resolved_date_range: computed.resolved_date_range,
  };
}
