/**
 * Dashboards as PostHog's API shows them: the list item (DashboardBasicSerializer), the
 * single dashboard (DashboardSerializer, with tiles), and the public view of a shared link.
 */
import { PrivilegeLevel, RestrictionLevel } from "@/server/access/contract";
import { dashboardPermissions, type DashboardPermissions, type Member } from "@/server/access/service";
import { toUserBasic } from "@/server/accounts/present";
import type { ComputedInsight } from "@/server/insights/present";
import { tagNames } from "@/server/tags/service";
import type { DashboardListItem, DashboardResource } from "./contract";
import { listSource, type DashboardDetailRow, type DashboardListRow, type DashboardListSource, type TileRow, type UserRow } from "./store";

export type { DashboardListItem, DashboardResource } from "./contract";
type DashboardTileResource = DashboardResource["tiles"][number];

/**
 * How a dashboard was seeded or deleted, as the request said. PostHog keeps these
 * write-only; the reference (API-SPEC) lists them in single-dashboard responses, and where
 * both can hold we hold both: echoed from the request, `""`/`null`/`false` when unset.
 * Nothing stores them, so a retrieve always shows the unset values.
 */
export interface SeedFields {
  use_template: string;
  use_dashboard: number | null;
  delete_insights: boolean;
}

export const UNSET_SEED: SeedFields = { use_template: "", use_dashboard: null, delete_insights: false };

/**
 * A tile's chart data as computed for the page that shows it: the shared page computes
 * every insight tile on the server and sends this along; an unsupported or failing query
 * is that tile's error, not the page's.
 */
export type TileComputation = { effective?: EffectiveFilters } & (
  | {
      state: "ready";
      result: NonNullable<ComputedInsight["result"]>;
      hasMore: boolean;
      columns: ComputedInsight["columns"];
      personlessVisitors: ComputedInsight["personlessVisitors"];
      computed_at: string | null;
      timezone: string;
    }
  | { state: "error"; message: string }
);

/** One property condition as the caption lists it. */
export interface FilterLeaf {
  type: string;
  key: string;
  operator: string;
  value?: unknown;
}

/** What a tile's chart was computed under: the dashboard's range if set, else the insight's; both sets of conditions. */
export interface EffectiveFilters {
  date_from: string | null;
  date_to: string | null;
  /** The dashboard's (and tile's) conditions, ANDed with the insight's own. */
  dashboard_properties: FilterLeaf[];
  insight_properties: FilterLeaf[];
  /** Read without the project's test accounts: the dashboard's `filterTestAccounts` when set, else the insight's. */
  filter_test_accounts: boolean;
}

export type TileResult = { tile_id: number; effective: EffectiveFilters } & (
  | {
      state: "ready";
      result: unknown[];
      hasMore: boolean;
      columns: unknown[] | null;
      /** A lifecycle's visitors left out for want of a person profile (the tile's note); null for other kinds. */
      personlessVisitors: number | null;
      is_cached: boolean;
      /** PostHog's name for when the result was computed (the cache entry's time). */
      last_refresh: string | null;
      timezone: string;
      resolved_date_range: { date_from: string; date_to: string } | null;
    }
  | { state: "error"; message: string }
);


/** A tile of a shared dashboard: its content and place, no ids of insights, texts, people or the project. */
export interface SharedTile {
  /** The tile's position on the dashboard (not a database id). */
  id: number;
  order: number;
  layouts: unknown;
  color: string | null;
  insight: { name: string | null; derived_name: string | null; description: string; query: unknown; computation: TileComputation | null } | null;
  text: { body: string } | null;
}

/** What anyone with the share link sees: the dashboard itself, nothing about people or the project. */
export interface SharedDashboard {
  name: string | null;
  description: string;
  tags: string[];
  /** A shared view is read-only: restriction 37, privilege 21, as PostHog reports it. */
  effective_restriction_level: number;
  effective_privilege_level: number;
  last_refresh: string | null;
  tiles: SharedTile[];
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const asObject = (value: unknown): Record<string, unknown> => (value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const userOrNull = (user: UserRow | null) => (user ? toUserBasic(user) : null);

/** The caller's permissions on a loaded row (which carries their own collaborator row). */
export function permissionsOf(row: DashboardListRow, caller: Member): DashboardPermissions {
  return dashboardPermissions(row, caller, row.collaborators[0]?.level ?? null);
}

export function dashboardListItem(row: DashboardListSource, caller: Member): DashboardListItem {
  const permissions = dashboardPermissions(row, caller, row.collaboratorLevel);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    pinned: row.pinned,
    created_at: row.createdAt.toISOString(),
    created_by: userOrNull(row.createdBy),
    last_accessed_at: iso(row.lastAccessedAt),
    is_shared: row.isShared,
    deleted: row.deleted,
    creation_mode: row.creationMode,
    tags: row.tags,
    restriction_level: row.restrictionLevel,
    effective_restriction_level: permissions.effectiveRestrictionLevel,
    effective_privilege_level: permissions.effectivePrivilegeLevel,
    user_access_level: permissions.canEdit ? "editor" : "viewer",
    access_control_version: row.restrictionLevel > RestrictionLevel.everyoneInProjectCanEdit ? "v1" : "v2",
    last_refresh: iso(row.lastRefresh),
    team_id: row.projectId,
  };
}

export function dashboardResource(row: DashboardDetailRow, caller: Member, seed: SeedFields = UNSET_SEED): DashboardResource {
  const filters = asObject(row.filters);
  const variables = asObject(row.variables);
  return {
    ...dashboardListItem(listSource(row), caller),
    ...seed,
    filters,
    variables,
    breakdown_colors: row.breakdownColors ?? null,
    data_color_theme_id: row.dataColorThemeId,
    persisted_filters: Object.keys(filters).length > 0 ? filters : null,
    persisted_variables: Object.keys(variables).length > 0 ? variables : null,
    tiles: tileResources(row.tiles),
  };
}

/** The shown tiles in the public view's order: a tile's index is its `id` there. */
export function sharedTileOrder(row: DashboardDetailRow): TileRow[] {
  return sortedTiles(row.tiles.filter(isShown));
}

/** The public view, its insight tiles without their charts (the page streams those in). */
export function sharedDashboard(row: DashboardDetailRow): SharedDashboard {
  return {
    name: row.name,
    description: row.description,
    tags: tagNames(row.taggedItems),
    effective_restriction_level: RestrictionLevel.onlyCollaboratorsCanEdit,
    effective_privilege_level: PrivilegeLevel.canView,
    last_refresh: iso(row.lastRefresh),
    tiles: sharedTileOrder(row).map((tile, order) => ({
      id: order,
      order,
      layouts: tile.layouts,
      color: tile.color,
      insight: tile.insight
        ? {
            name: tile.insight.name,
            derived_name: tile.insight.derivedName,
            description: tile.insight.description,
            query: tile.insight.query ?? null,
            computation: null,
          }
        : null,
      text: tile.text ? { body: tile.text.body } : null,
    })),
  };
}

/** A tile worth showing: a text, or an insight not deleted. */
export const isShown = (tile: TileRow) => (tile.insight ? !tile.insight.deleted : tile.text !== null);

/** A tile's position key: the small layout's y then x; a tile without one goes last (100). */
function layoutKey(tile: TileRow): [number, number] {
  const sm = asObject(asObject(tile.layouts).sm);
  const coordinate = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 100);
  return [coordinate(sm.y), coordinate(sm.x)];
}

/** Tiles in display order: by the small layout's y, then x. */
function sortedTiles(tiles: readonly TileRow[]): TileRow[] {
  return [...tiles].sort((a, b) => {
    const [ay, ax] = layoutKey(a);
    const [by, bx] = layoutKey(b);
    return ay - by || ax - bx || a.id - b.id;
  });
}

/** Tiles in display order, as PostHog's API shows them to project members. */
export function tileResources(tiles: readonly TileRow[]): DashboardTileResource[] {
  const person = userOrNull;
  return sortedTiles(tiles)
    .map((tile, order) => ({
      id: tile.id,
      insight: tile.insight
        ? {
            id: tile.insight.id,
            short_id: tile.insight.shortId,
            name: tile.insight.name,
            derived_name: tile.insight.derivedName,
            description: tile.insight.description,
            query: tile.insight.query ?? null,
            filters: tile.insight.filters,
            favorited: tile.insight.favorited,
            saved: tile.insight.saved,
            deleted: tile.insight.deleted,
            created_at: tile.insight.createdAt.toISOString(),
            created_by: person(tile.insight.createdBy),
            last_modified_at: tile.insight.lastModifiedAt.toISOString(),
            last_modified_by: person(tile.insight.lastModifiedBy),
            last_refresh: iso(tile.insight.lastRefresh),
          }
        : null,
      text: tile.text
        ? {
            id: tile.text.id,
            body: tile.text.body,
            created_by: person(tile.text.createdBy),
            last_modified_by: person(tile.text.lastModifiedBy),
            last_modified_at: tile.text.lastModifiedAt.toISOString(),
            team: tile.text.projectId,
          }
        : null,
      layouts: tile.layouts,
      color: tile.color,
      filters_overrides: tile.filtersOverrides ?? null,
      order,
      last_refresh: iso(tile.insight?.lastRefresh ?? null),
      is_cached: false,
    }));
}
