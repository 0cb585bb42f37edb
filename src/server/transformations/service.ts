/**
 * Pipeline transformation configs: the rules behind the REST resource
 * (`/api/environments/:project_id/pipeline_transformation_configs/`) and the tRPC router.
 * Every write is logged in the config's activity and invalidates the project's chain in
 * the ingestion runtime, so the next request runs the new chain.
 */
import { changesBetween, logActivity } from "@/server/activity/service";
import type { Context, UserContext } from "@/server/context";
import type { Database } from "@/server/db";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { listEventPage } from "@/server/events/service";
import type { IngestEvent } from "@/server/ingestion/contract";
import { isProblem, normaliseEvent } from "@/server/ingestion/service";
import { builtinPlugin, parsePluginConfig, PLUGIN_JOBS, secretKeys } from "./catalogue";
import { DRY_RUN_LIMITS, sampleEventInput, type ActivityQuery, type CreateConfig, type DryRunResult, type EventView, type Job, type Rearrange, type SampleEvent, type UpdateConfig } from "./contract";
import type { TransformationPlugin } from "./plugin";
import {
  activityResource,
  type ActivityPage,
  configResource,
  hourlyRunResource,
  maskedConfig,
  pluginResource,
  runStatsResource,
  SECRET_MASK,
  type ConfigResource,
  type PluginResource,
} from "./present";
import { buildTransform, errorMessage, publishConfigChange } from "./runtime";
import * as store from "./store";

/** The hook ingestion's pipeline runs a project's chain through (the edge passes it in). */
export { transformationsFor } from "./runtime";

const DAY_MS = 24 * 3_600_000;

function since24h(): Date {
  return new Date(Date.now() - DAY_MS);
}

async function resources(db: Database, rows: store.ConfigRow[]): Promise<ConfigResource[]> {
  const totals = await store.totalsSince(db.sql, rows.map((row) => row.id), since24h());
  return rows.map((row) => configResource(row, totals.get(row.id)));
}

async function resource(db: Database, row: store.ConfigRow): Promise<ConfigResource> {
  return (await resources(db, [row]))[0]!;
}

async function requireConfig(ctx: Context, id: number): Promise<store.ConfigRow> {
  const row = await store.findConfig(ctx.db.prisma, ctx.project.id, id);
  if (!row) throw new AppError("not_found", "Not found.");
  return row;
}

/** The code of a plugin row; a row without one (not a built-in of this version) cannot be configured. */
function implementationOf(plugin: store.PluginRow): TransformationPlugin {
  const implementation = builtinPlugin(plugin.key);
  if (!implementation) throw new AppError("invalid_input", `The plugin '${plugin.name}' is not available on this server.`, "plugin");
  return implementation;
}

/** Secret fields sent back masked or empty mean "unchanged": the stored value (or, on create, the default). */
function withKeptSecrets(plugin: TransformationPlugin, given: Record<string, unknown>, stored: Record<string, unknown>): Record<string, unknown> {
  const out = { ...given };
  for (const key of secretKeys(plugin)) {
    if (out[key] === SECRET_MASK || out[key] === "" || out[key] === null) {
      if (stored[key] !== undefined) out[key] = stored[key];
      else delete out[key];
    }
  }
  return out;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The fields an activity entry compares (secrets masked: the log must not keep them). */
function loggedFields(row: { pluginKey: string; enabled: boolean; order: number; config: unknown; name: string | null; description: string | null; deleted: boolean }) {
  return {
    enabled: row.enabled,
    order: row.order,
    config: maskedConfig(row.pluginKey, row.config),
    name: row.name,
    description: row.description,
    deleted: row.deleted,
  };
}

/** After a committed write: the chain is reloaded on every node. */
function invalidate(db: Database, projectId: number): Promise<void> {
  return publishConfigChange(db, projectId);
}

export async function listPlugins(ctx: UserContext): Promise<PluginResource[]> {
  return (await store.listPlugins(ctx.db.prisma)).filter((plugin) => builtinPlugin(plugin.key) !== null).map(pluginResource);
}

export async function listConfigs(ctx: Context, page: { take: number; skip: number }): Promise<{ count: number; results: ConfigResource[] }> {
  const { count, rows } = await store.listConfigs(ctx.db.prisma, ctx.project.id, page);
  return { count, results: await resources(ctx.db, rows) };
}

/** Every config of the project in chain order (the UI's list; REST pages with `listConfigs`). */
export async function listAllConfigs(ctx: Context): Promise<ConfigResource[]> {
  return resources(ctx.db, await store.listAllConfigs(ctx.db.prisma, ctx.project.id));
}

export async function getConfig(ctx: Context, id: number): Promise<ConfigResource> {
  return resource(ctx.db, await requireConfig(ctx, id));
}

export async function createConfig(ctx: Context, data: CreateConfig): Promise<ConfigResource> {
  const projectId = ctx.project.id;
  const plugin = await store.findPlugin(ctx.db.prisma, data.plugin);
  if (!plugin) throw new AppError("invalid_input", `Invalid pk "${data.plugin}" - object does not exist.`, "plugin");
  const implementation = implementationOf(plugin);
  const config = parsePluginConfig(implementation, withKeptSecrets(implementation, data.config, {}));
  const row = await inTransaction(ctx.db, async (tx) => {
    const created = await store.insertConfig(tx, projectId, plugin.id, {
      enabled: data.deleted ? false : data.enabled,
      order: data.order ?? (await store.nextOrder(tx, projectId)),
      config,
      name: data.name || null,
      description: data.description || null,
      deleted: data.deleted,
    });
    await logActivity(tx, {
      projectId,
      userId: ctx.actor.id,
      scope: store.CONFIG_ACTIVITY_SCOPE,
      itemId: created.id,
      activity: "created",
      name: created.name || plugin.name,
    });
    return created;
  });
  await invalidate(ctx.db, projectId);
  return resource(ctx.db, row);
}

/**
 * PATCH: the given fields change; `config` is merged into the stored config and checked
 * against the plugin's schema; `deleted: true` also disables. Any change clears `error`
 * (the next failure records it again).
 */
export async function updateConfig(ctx: Context, id: number, data: UpdateConfig): Promise<ConfigResource> {
  const projectId = ctx.project.id;
  const row = await requireConfig(ctx, id);
  if (data.plugin !== undefined && data.plugin !== row.pluginId) {
    throw new AppError("invalid_input", "A config's plugin cannot be changed; create a new config for the other plugin.", "plugin");
  }
  let config = asRecord(row.config);
  if (data.config !== undefined) {
    const implementation = implementationOf(row.plugin);
    config = parsePluginConfig(implementation, withKeptSecrets(implementation, { ...config, ...data.config }, config));
  }
  const deleted = data.deleted ?? row.deleted;
  const next = {
    enabled: deleted ? false : (data.enabled ?? row.enabled),
    order: data.order ?? row.order,
    config,
    name: data.name === undefined ? row.name : data.name || null,
    description: data.description === undefined ? row.description : data.description || null,
    deleted,
  };
  const updated = await inTransaction(ctx.db, async (tx) => {
    const saved = await store.updateConfig(tx, row.id, next);
    const changes = changesBetween(loggedFields({ ...row, pluginKey: row.plugin.key }), loggedFields({ ...next, pluginKey: row.plugin.key }));
    if (changes.length > 0) {
      await logActivity(tx, {
        projectId,
        userId: ctx.actor.id,
        scope: store.CONFIG_ACTIVITY_SCOPE,
        itemId: row.id,
        activity: next.deleted && !row.deleted ? "deleted" : "updated",
        name: saved.name || row.plugin.name,
        changes,
      });
    }
    return saved;
  });
  await invalidate(ctx.db, projectId);
  return resource(ctx.db, updated);
}

/** DELETE: as PostHog, a soft delete that also disables; the config leaves lists and the chain. */
export async function deleteConfig(ctx: Context, id: number): Promise<void> {
  await updateConfig(ctx, id, { deleted: true });
}

/**
 * PATCH `rearrange/` with `{"orders": {"<config id>": <order>}}`: all new positions are
 * saved in one transaction, or none when any id is not a config of the project (400
 * naming it). Answers the project's configs in their new order.
 */
export async function rearrangeConfigs(ctx: Context, { orders }: Rearrange): Promise<ConfigResource[]> {
  const projectId = ctx.project.id;
  const rows = await inTransaction(ctx.db, async (tx) => {
    const configs = new Map((await store.listAllConfigs(tx, projectId)).map((row) => [row.id, row]));
    const moves = Object.entries(orders).map(([id, order]) => ({ row: configs.get(Number(id)), id, order }));
    const unknown = moves.find((move) => !move.row);
    if (unknown) throw new AppError("invalid_input", `${unknown.id} is not a transformation config of this project.`, `orders__${unknown.id}`);
    for (const { row, order } of moves) {
      if (!row || row.order === order) continue;
      await store.setConfigOrder(tx, row.id, order);
      await logActivity(tx, {
        projectId,
        userId: ctx.actor.id,
        scope: store.CONFIG_ACTIVITY_SCOPE,
        itemId: row.id,
        activity: "order_changed",
        name: row.name || row.plugin.name,
        changes: [{ field: "order", before: row.order, after: order }],
      });
    }
    return store.listAllConfigs(tx, projectId);
  });
  await invalidate(ctx.db, projectId);
  return resources(ctx.db, rows);
}

/**
 * `GET …/:id/activity/?limit=10&page=1`: the config's change history, newest first, in
 * PostHog's paging, with its recent run statistics. The edge turns `nextPage`/`previousPage`
 * into links (present.ts `activityAnswer`).
 */
export async function configActivity(ctx: Context, id: number, { limit, page }: ActivityQuery): Promise<ActivityPage> {
  const row = await requireConfig(ctx, id);
  const since = since24h();
  const [{ count, rows }, hourly, totals] = await Promise.all([
    store.configActivity(ctx.db.prisma, ctx.project.id, row.id, { take: limit, skip: (page - 1) * limit }),
    store.hourlyRuns(ctx.db.prisma, row.id, since),
    store.totalsSince(ctx.db.sql, [row.id], since),
  ]);
  return {
    results: rows.map(activityResource),
    nextPage: page * limit < count ? page + 1 : null,
    previousPage: page > 1 ? page - 1 : null,
    total_count: count,
    stats: { last_24h: runStatsResource(totals.get(row.id)), hourly: hourly.map(hourlyRunResource) },
  };
}

/** An event as a dry run shows it (the stored shape). */
function eventView(event: IngestEvent): EventView {
  return { uuid: event.uuid, event: event.event, distinct_id: event.distinctId, properties: event.properties, timestamp: event.timestamp.toISOString() };
}

/** A sample event brought into the pipeline's shape by ingestion's own normalisation. */
function ingestEventOf(sample: SampleEvent, index: number, now: Date): IngestEvent {
  const result = normaliseEvent(sample, index, { now, sentAt: null, ip: null, historicalMigration: false, defaultEvent: null });
  if (isProblem(result)) throw new AppError("invalid_input", result.detail, "events");
  return result;
}

/** The project's newest stored events, as they would enter the chain. */
async function recentEvents(ctx: Context, limit: number, now: Date): Promise<IngestEvent[]> {
  const { results } = await listEventPage(ctx, { limit });
  return results.map((event, index) =>
    ingestEventOf(
      sampleEventInput.parse({ uuid: event.id, event: event.event, distinct_id: event.distinct_id, properties: event.properties, timestamp: event.timestamp }),
      index,
      now,
    ),
  );
}

/** Runs a transform like the chain does: an exception leaves the event unchanged. */
function tryTransform(transform: ReturnType<typeof buildTransform>, event: IngestEvent): { after: IngestEvent | null; error: string | null } {
  try {
    return { after: transform(event), error: null };
  } catch (error) {
    return { after: event, error: errorMessage(error) };
  }
}

/**
 * `POST …/:id/job/` with `{"job": {"type": "dry_run", "payload": {"events": [...]}}}` (or
 * `{"limit": n}`: the project's newest n stored events, 10 by default): runs this config on
 * them and answers each event before and after. Nothing is stored.
 */
export async function runJob(ctx: Context, id: number, { job }: Job): Promise<{ job: { type: string }; results: DryRunResult[] }> {
  const row = await requireConfig(ctx, id);
  if (!(PLUGIN_JOBS as readonly string[]).includes(job.type)) {
    throw new AppError("invalid_input", `Unknown job '${job.type}'. Jobs of this plugin: ${PLUGIN_JOBS.join(", ")}.`, "job__type");
  }
  const now = new Date();
  const events = job.payload.events
    ? job.payload.events.map((sample, index) => ingestEventOf(sample, index, now))
    : await recentEvents(ctx, job.payload.limit ?? DRY_RUN_LIMITS.defaultEvents, now);
  const transform = buildTransform({ id: row.id, pluginKey: row.plugin.key, config: row.config });
  const results = events.map((before) => {
    const { after, error } = tryTransform(transform, before);
    return { before: eventView(before), after: after && eventView(after), dropped: after === null, error };
  });
  await logActivity(ctx.db.prisma, {
    projectId: ctx.project.id,
    userId: ctx.actor.id,
    scope: store.CONFIG_ACTIVITY_SCOPE,
    itemId: row.id,
    activity: "job_triggered",
    name: row.name || row.plugin.name,
    extra: { trigger: { job_type: job.type, events: events.length } },
  });
  return { job: { type: job.type }, results };
}

export interface ChainStep {
  config_id: number;
  name: string;
  after: EventView | null;
  error: string | null;
}

/**
 * The UI's "test on a sample event": the project's enabled configs in chain order on one
 * event, with the event after each step, as ingestion would run them. Nothing is stored.
 */
export async function testChain(ctx: Context, sample: SampleEvent): Promise<{ before: EventView; steps: ChainStep[]; after: EventView | null }> {
  const before = ingestEventOf(sample, 0, new Date());
  const configs = await store.loadChainConfigs(ctx.db.sql, ctx.project.id);
  const names = new Map((await store.listAllConfigs(ctx.db.prisma, ctx.project.id)).map((row) => [row.id, row.name || row.plugin.name]));
  const steps: ChainStep[] = [];
  let event: IngestEvent | null = before;
  for (const config of configs) {
    if (!event) break;
    const { after, error } = tryTransform(buildTransform(config), event);
    event = after;
    steps.push({ config_id: config.id, name: names.get(config.id) ?? "", after: after && eventView(after), error });
  }
  return { before: eventView(before), steps, after: event && eventView(event) };
}

/**
 * `POST …/:id/migrate/`: brings a stored config up to its plugin's current schema (new
 * fields get their defaults, the rest is checked again). A config the schema no longer
 * accepts is a 400 naming the field. PostHog's migrate turns a plugin into a Hog function;
 * Burrow's built-ins have no such successor.
 */
export async function migrateConfig(ctx: Context, id: number): Promise<ConfigResource> {
  const row = await requireConfig(ctx, id);
  const implementation = implementationOf(row.plugin);
  const config = parsePluginConfig(implementation, asRecord(row.config));
  if (JSON.stringify(config) === JSON.stringify(row.config)) return resource(ctx.db, row);
  return updateConfig(ctx, id, { config });
}

/** `GET …/:id/frontend/`: built-ins have no frontend app; PostHog's stub module says so. */
export async function frontendScript(ctx: Context, id: number): Promise<string> {
  await requireConfig(ctx, id);
  return 'export function getFrontendApp () { return {"no_frontend": true} }';
}

