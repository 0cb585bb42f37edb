/**
 * Data access of the transformations domain: plugins, plugin_configs,
 * plugin_config_metrics and their activity log entries. Nothing else reads these tables.
 */
import type { Prisma } from "@/generated/prisma/client";
import type { PrismaClient } from "@/server/db/client";
import type { SqlExecutor } from "@/server/db/driver";
import type { DbClient } from "@/server/db/transaction";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";

/** What the chain runner needs of an enabled config. */
export interface ChainConfig {
  id: number;
  pluginKey: string;
  config: unknown;
}

/** A project's enabled configs in chain order (order, then plugin, then id: PostHog's list order). */
export async function loadChainConfigs(sql: SqlExecutor, projectId: number): Promise<ChainConfig[]> {
  const rows = await sql.query<{ id: number; plugin_key: string; config: unknown }>(
    `SELECT c.id, p.key AS plugin_key, c.config
       FROM plugin_configs c JOIN plugins p ON p.id = c.plugin_id
      WHERE c.project_id = $1 AND c.enabled AND NOT c.deleted
      ORDER BY c."order", c.plugin_id, c.id`,
    [projectId],
  );
  return rows.map((row) => ({ id: row.id, pluginKey: row.plugin_key, config: row.config }));
}

export const pluginSelect = {
  id: true,
  key: true,
  name: true,
  description: true,
  pluginType: true,
  iconUrl: true,
  configSchema: true,
  capabilities: true,
} satisfies Prisma.PluginSelect;
export type PluginRow = Prisma.PluginGetPayload<{ select: typeof pluginSelect }>;

export const configInclude = { plugin: { select: pluginSelect } } satisfies Prisma.PluginConfigInclude;
export type ConfigRow = Prisma.PluginConfigGetPayload<{ include: typeof configInclude }>;

/** Built-in plugins (available to every organization), by id. */
export function listPlugins(prisma: PrismaClient): Promise<PluginRow[]> {
  return prisma.plugin.findMany({ where: { organizationId: null }, select: pluginSelect, orderBy: { id: "asc" } });
}

export function findPlugin(prisma: PrismaClient, id: number): Promise<PluginRow | null> {
  return prisma.plugin.findFirst({ where: { id, organizationId: null }, select: pluginSelect });
}

const CHAIN_ORDER = [{ order: "asc" }, { pluginId: "asc" }, { id: "asc" }] satisfies Prisma.PluginConfigOrderByWithRelationInput[];

export async function listConfigs(prisma: PrismaClient, projectId: number, page: { take: number; skip: number }): Promise<{ count: number; rows: ConfigRow[] }> {
  const where = { projectId, deleted: false };
  const [count, rows] = await Promise.all([
    prisma.pluginConfig.count({ where }),
    prisma.pluginConfig.findMany({ where, include: configInclude, orderBy: CHAIN_ORDER, ...page }),
  ]);
  return { count, rows };
}

/** A config of the project that is not deleted, or null. */
export function findConfig(prisma: DbClient, projectId: number, id: number): Promise<ConfigRow | null> {
  return prisma.pluginConfig.findFirst({ where: { id, projectId, deleted: false }, include: configInclude });
}

export function listAllConfigs(prisma: DbClient, projectId: number): Promise<ConfigRow[]> {
  return prisma.pluginConfig.findMany({ where: { projectId, deleted: false }, include: configInclude, orderBy: CHAIN_ORDER });
}

/** The position after the project's last config. */
export async function nextOrder(prisma: DbClient, projectId: number): Promise<number> {
  const last = await prisma.pluginConfig.aggregate({ where: { projectId, deleted: false }, _max: { order: true } });
  return last._max.order === null ? 0 : last._max.order + 1;
}

/** The stored fields of a config a write sets. */
export interface ConfigFields {
  enabled: boolean;
  order: number;
  config: Record<string, unknown>;
  name: string | null;
  description: string | null;
  deleted: boolean;
}

export function insertConfig(prisma: DbClient, projectId: number, pluginId: number, fields: ConfigFields): Promise<ConfigRow> {
  return prisma.pluginConfig.create({
    data: { projectId, pluginId, ...fields, config: fields.config as Prisma.InputJsonValue },
    include: configInclude,
  });
}

/** Saves `fields` and clears the config's `error` (the next failure records it again). */
export function updateConfig(prisma: DbClient, id: number, fields: ConfigFields): Promise<ConfigRow> {
  return prisma.pluginConfig.update({
    where: { id },
    data: { ...fields, config: fields.config as Prisma.InputJsonValue, error: null },
    include: configInclude,
  });
}

export async function setConfigOrder(prisma: DbClient, id: number, order: number): Promise<void> {
  await prisma.pluginConfig.update({ where: { id }, data: { order } });
}

export interface RunTotals {
  eventsSeen: number;
  eventsDropped: number;
  errors: number;
}

/** Per config, the counts of the last 24 hours (the hours starting at most 24 h ago). */
export async function totalsSince(sql: SqlExecutor, configIds: number[], since: Date): Promise<Map<number, RunTotals>> {
  if (configIds.length === 0) return new Map();
  const rows = await sql.query<{ id: number; seen: string; dropped: string; errors: string }>(
    `SELECT plugin_config_id AS id, sum(events_seen)::text AS seen, sum(events_dropped)::text AS dropped, sum(errors)::text AS errors
       FROM plugin_config_metrics
      WHERE plugin_config_id = ANY($1::int[]) AND hour >= $2
      GROUP BY plugin_config_id`,
    [configIds, since.toISOString()],
  );
  return new Map(rows.map((row) => [row.id, { eventsSeen: Number(row.seen), eventsDropped: Number(row.dropped), errors: Number(row.errors) }]));
}

/** One config's counts of one hour (`hour`: its start, in ms), as RunStats (stats.ts) keeps them. */
export interface HourCount {
  configId: number;
  hour: number;
  counter: { seen: number; dropped: number; errors: number; lastError: string | null };
}

/** Adds the counts to `plugin_config_metrics` in one statement (counts of a config deleted meanwhile are left out). */
export async function addRunCounts(sql: SqlExecutor, taken: readonly HourCount[]): Promise<void> {
  await sql.query(
    `INSERT INTO plugin_config_metrics (plugin_config_id, hour, events_seen, events_dropped, errors, last_error)
     SELECT m.config_id, m.hour, m.seen, m.dropped, m.errors, m.last_error
       FROM unnest($1::int[], $2::timestamptz[], $3::int[], $4::int[], $5::int[], $6::text[])
              AS m(config_id, hour, seen, dropped, errors, last_error)
       JOIN plugin_configs c ON c.id = m.config_id
     ON CONFLICT (plugin_config_id, hour) DO UPDATE SET
       events_seen = plugin_config_metrics.events_seen + EXCLUDED.events_seen,
       events_dropped = plugin_config_metrics.events_dropped + EXCLUDED.events_dropped,
       errors = plugin_config_metrics.errors + EXCLUDED.errors,
       last_error = COALESCE(EXCLUDED.last_error, plugin_config_metrics.last_error)`,
    [
      taken.map((e) => e.configId),
      taken.map((e) => new Date(e.hour).toISOString()),
      taken.map((e) => e.counter.seen),
      taken.map((e) => e.counter.dropped),
      taken.map((e) => e.counter.errors),
      taken.map((e) => e.counter.lastError),
    ],
  );
}

/** The config's `error` becomes the latest message; a message it did not already show is logged as activity. */
export async function recordRunErrors(sql: SqlExecutor, failing: Map<number, { message: string; errors: number }>): Promise<void> {
  const ids = [...failing.keys()];
  await sql.query(
    `WITH changed AS (
       UPDATE plugin_configs c SET error = e.message
         FROM unnest($1::int[], $2::text[], $3::int[]) AS e(id, message, errors)
        WHERE c.id = e.id AND c.error IS DISTINCT FROM e.message
       RETURNING c.id, c.project_id, c.name, e.message, e.errors
     )
     INSERT INTO activity_logs (id, project_id, scope, item_id, activity, detail)
     SELECT gen_random_uuid(), project_id, 'PluginConfig', id::text, 'error',
            jsonb_build_object('name', name, 'changes', '[]'::jsonb, 'message', message, 'errors', errors)
       FROM changed`,
    [ids, ids.map((id) => failing.get(id)!.message), ids.map((id) => failing.get(id)!.errors)],
  );
}

export interface HourlyRun extends RunTotals {
  hour: Date;
  lastError: string | null;
}

export async function hourlyRuns(prisma: PrismaClient, configId: number, since: Date): Promise<HourlyRun[]> {
  const rows = await prisma.pluginConfigMetric.findMany({ where: { pluginConfigId: configId, hour: { gte: since } }, orderBy: { hour: "desc" } });
  return rows.map((row) => ({ hour: row.hour, eventsSeen: row.eventsSeen, eventsDropped: row.eventsDropped, errors: row.errors, lastError: row.lastError }));
}

export const activityInclude = {
  user: { select: USER_BASIC_COLUMNS },
} satisfies Prisma.ActivityLogInclude;
export type ActivityRow = Prisma.ActivityLogGetPayload<{ include: typeof activityInclude }>;

export const CONFIG_ACTIVITY_SCOPE = "PluginConfig";

export async function configActivity(prisma: PrismaClient, projectId: number, configId: number, page: { take: number; skip: number }): Promise<{ count: number; rows: ActivityRow[] }> {
  const where = { projectId, scope: CONFIG_ACTIVITY_SCOPE, itemId: String(configId) };
  const [count, rows] = await Promise.all([
    prisma.activityLog.count({ where }),
    prisma.activityLog.findMany({ where, include: activityInclude, orderBy: [{ createdAt: "desc" }, { id: "desc" }], ...page }),
  ]);
  return { count, rows };
}
