/**
 * Transformation configs, plugins and activity as PostHog's API shows them
 * (PluginConfigSerializer, PluginSerializer, ActivityLogSerializer).
 */
import { toUserBasic } from "@/server/accounts/present";
import type { ActivityAnswer, ActivityResource, ConfigResource, HourlyRunResource, PluginResource, RunStatsResource } from "./contract";
import { builtinPlugin, secretKeys } from "./catalogue";
import type { ActivityRow, ConfigRow, HourlyRun, PluginRow, RunTotals } from "./store";

export type { ActivityAnswer, ActivityResource, ConfigResource, PluginResource } from "./contract";

/** What PostHog answers in place of a secret config field's value. */
export const SECRET_MASK = "**************** POSTHOG SECRET FIELD ****************";

export function pluginResource(plugin: PluginRow): PluginResource {
  return {
    id: plugin.id,
    key: plugin.key,
    plugin_type: plugin.pluginType,
    name: plugin.name,
    description: plugin.description,
    icon: plugin.iconUrl,
    config_schema: plugin.configSchema,
    capabilities: plugin.capabilities,
  };
}

/** The stored config with its secret fields masked (a secret that is not set stays empty). */
export function maskedConfig(pluginKey: string, config: unknown): Record<string, unknown> {
  const out = { ...(typeof config === "object" && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>) : {}) };
  const plugin = builtinPlugin(pluginKey);
  for (const key of plugin ? secretKeys(plugin) : []) {
    if (out[key] !== undefined && out[key] !== "") out[key] = SECRET_MASK;
  }
  return out;
}

export function deliveryRate(totals: RunTotals | undefined): number | null {
  if (!totals || totals.eventsSeen === 0) return null;
  return Math.round(((totals.eventsSeen - totals.errors) / totals.eventsSeen) * 10_000) / 10_000;
}

export function configResource(row: ConfigRow, totals: RunTotals | undefined): ConfigResource {
  return {
    id: row.id,
    plugin: row.pluginId,
    enabled: row.enabled,
    order: row.order,
    config: maskedConfig(row.plugin.key, row.config),
    error: row.error,
    team_id: row.projectId,
    plugin_info: pluginResource(row.plugin),
    delivery_rate_24h: deliveryRate(totals),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    // PostHog falls back to the plugin's name and description.
    name: row.name || row.plugin.name,
    description: row.description || row.plugin.description,
    deleted: row.deleted,
  };
}

export function activityResource(row: ActivityRow): ActivityResource {
  return {
    id: row.id,
    user: row.user ? toUserBasic(row.user) : null,
    activity: row.activity,
    scope: row.scope,
    item_id: row.itemId,
    detail: row.detail,
    created_at: row.createdAt.toISOString(),
  };
}

export function runStatsResource(totals: RunTotals | undefined): RunStatsResource {
  return { events_seen: totals?.eventsSeen ?? 0, events_dropped: totals?.eventsDropped ?? 0, errors: totals?.errors ?? 0 };
}

export function hourlyRunResource(run: HourlyRun): HourlyRunResource {
  return { hour: run.hour.toISOString(), ...runStatsResource(run), last_error: run.lastError };
}

/** A page of a config's activity as the service reads it: the pages around it, not links. */
export interface ActivityPage {
  results: ActivityResource[];
  nextPage: number | null;
  previousPage: number | null;
  total_count: number;
  /** Run statistics: totals of the last 24 hours and each hour's counts, newest first. */
  stats: { last_24h: RunStatsResource; hourly: HourlyRunResource[] };
}

/** PostHog's activity envelope; `link` turns a page number into its URL (null: no links, as tRPC answers). */
export function activityAnswer(page: ActivityPage, link: (page: number) => string | null): ActivityAnswer {
  return {
    results: page.results,
    next: page.nextPage === null ? null : link(page.nextPage),
    previous: page.previousPage === null ? null : link(page.previousPage),
    total_count: page.total_count,
    stats: page.stats,
  };
}
