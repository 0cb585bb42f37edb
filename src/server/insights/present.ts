/**
 * Insights as PostHog's API shows them (InsightSerializer): the stored fields, the
 * dashboards they sit on, and the computed result with its freshness.
 */
import { toUserBasic, type UserBasic } from "@/server/accounts/present";
import { tagNames } from "@/server/tags/service";
import type { InsightRow } from "./store";

/** A series of a trends result, as results carry it (dashboards and shared pages show them). */
export type { TrendsSeriesResult } from "@/server/trends/service";

/** A result with when it was computed (null fields: not computed, e.g. `refresh=force_cache` and nothing cached). */
export interface ComputedInsight {
  /** The kind's `results` (trends: TrendsSeriesResult[]; funnels: steps; …); null when not computed. */
  result: unknown[] | null;
  /** Some breakdown values were folded into "other". */
  hasMore: boolean;
  is_cached: boolean;
  /** When the result was computed; `last_refresh` is the same time under PostHog's name. */
  computed_at: string | null;
  last_refresh: string | null;
  /** Until when the cache serves this result. */
  cache_target_age: string | null;
  /** The project's time zone, in which buckets and dates are read. */
  timezone: string;
  /** The date range the result covers, ISO 8601 in the project's time zone. */
  resolved_date_range: { date_from: string; date_to: string } | null;
}

export interface InsightResource extends Omit<ComputedInsight, "last_refresh"> {
  id: number;
  short_id: string;
  name: string | null;
  derived_name: string | null;
  description: string;
  query: unknown;
  /** PostHog's legacy filters; Burrow's insights are queries, so always {}. */
  filters: unknown;
  favorited: boolean;
  saved: boolean;
  deleted: boolean;
  tags: string[];
  /** Ids of the (live) dashboards the insight is on, and its tiles there. */
  dashboards: number[];
  dashboard_tiles: { id: number; dashboard_id: number; deleted: boolean }[];
  created_at: string;
  created_by: UserBasic | null;
  last_modified_at: string;
  last_modified_by: UserBasic | null;
  /** When this insight was last computed (kept on the insight, also across restarts). */
  last_refresh: string | null;
  team_id: number;
}

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
    is_cached: computed.is_cached,
    computed_at: computed.computed_at,
    last_refresh: computed.last_refresh ?? row.lastRefresh?.toISOString() ?? null,
    cache_target_age: computed.cache_target_age,
    timezone: computed.timezone,
    resolved_date_range: computed.resolved_date_range,
  };
}
