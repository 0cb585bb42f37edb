/**
 * Destinations: PostHog's hog functions of type `destination` with the webhook template, over
 * the store. DELETE is refused (405) and PATCH `deleted: true` soft-deletes; the URL must
 * pass the outbound check (src/server/outbound); header values that are credentials are
 * stored sealed and shown masked, and a masked value sent back keeps the stored one.
 * Ingestion asks `destinationsFor` which destinations want an event (routing.ts); the worker
 * (worker.ts) delivers.
 */
import { randomUUID } from "node:crypto";
import { actionDefinitions } from "@/server/actions/service";
import { changesBetween, logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { pageWindow } from "@/server/input/page";
import { checkOutboundUrl, isSealed, sealSecret } from "@/server/outbound/service";
import { filterDate } from "@/server/properties/coerce";
import type { PropertyGroup } from "@/server/properties/contract";
import type {
  DeliveryResource,
  DestinationFilters,
  HogFunctionCreateBody,
  HogFunctionListQuery,
  HogFunctionLogsQuery,
  HogFunctionMetricsQuery,
  HogFunctionResource,
  HogFunctionUpdateBody,
  LogEntry,
  MetricsResource,
  WebhookInputs,
} from "./contract";
import { compileFilters } from "./filters";
import { LEVEL_STATUSES, presentDelivery, presentHogFunction, presentLogEntry, SECRET_HEADER } from "./present";
import { reloadRoutes } from "./routing";
import * as store from "./store";
import { WEBHOOK_HOG, WEBHOOK_INPUTS_SCHEMA, WEBHOOK_TEMPLATE } from "./template";
import { kickDestinationWorker } from "./worker";

export { destinationsFor, reloadRoutes as warmDestinations } from "./routing";
export { deliveryOptionsFromEnv } from "./options";
export { kickDestinationWorker, startDestinationWorker, stopDestinationWorker } from "./worker";

const ACTIVITY_SCOPE = "HogFunction";
const notFound = () => new AppError("not_found", "Not found.");
const MASKED = /^•+/;

async function rowOf(ctx: Context, id: string): Promise<store.HogFunctionRow> {
  // Not a uuid: no such destination (rather than a database error).
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw notFound();
  const row = await store.findHogFunction(ctx.db.prisma, ctx.project.id, id);
  if (!row) throw notFound();
  return row;
}

export async function getHogFunction(ctx: Context, id: string): Promise<HogFunctionResource> {
  return presentHogFunction(await rowOf(ctx, id));
}

export async function listHogFunctions(ctx: Context, query: HogFunctionListQuery): Promise<{ count: number; results: HogFunctionResource[] }> {
  const types = (query.types ?? query.type ?? "destination").split(",").map((t) => t.trim()).filter(Boolean);
  const rows = await store.listHogFunctionRows(ctx.db.prisma, ctx.project.id, { types, enabled: query.enabled, search: query.search });
  const { take, skip } = pageWindow(query);
  return { count: rows.length, results: rows.slice(skip, skip + take).map(presentHogFunction) };
}

/** The URL as it would be sent, placeholders filled with a plain word, must pass the outbound check (it is checked again, resolved, at every send). */
function checkUrl(url: string): void {
  const verdict = checkOutboundUrl(url.replace(/\{[^}]*\}/g, "x"));
  if (!verdict.ok) throw new AppError("invalid_input", `The URL ${verdict.reason}.`, "inputs__url");
}

/** Filters must compile: listed actions exist, no cohort leaves. */
async function checkFilters(ctx: Context, filters: DestinationFilters): Promise<void> {
  let trees = new Map<number, PropertyGroup>();
  if (filters.actions.length > 0) {
    const found = await actionDefinitions(ctx.db.prisma, ctx.project.id, filters.actions.map((a) => a.id)).catch((error: unknown) => {
      if (error instanceof AppError) throw new AppError("invalid_input", error.message, "filters__actions");
      throw error;
    });
    trees = new Map([...found.values()].map((d) => [d.id, d.tree]));
  }
  try {
    compileFilters(filters, trees);
  } catch (error) {
    if (error instanceof AppError) throw new AppError("invalid_input", error.message, "filters__properties");
    throw error;
  }
}

/** The inputs as stored: credentials sealed; a masked value sent back keeps what was stored. */
function storedInputs(inputs: WebhookInputs, previous: Record<string, { value?: unknown }> | null): Record<string, unknown> {
  const oldHeaders = (previous?.headers?.value ?? {}) as Record<string, unknown>;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(inputs.headers?.value ?? { "Content-Type": "application/json" })) {
    if (MASKED.test(value) && typeof oldHeaders[name] === "string") headers[name] = oldHeaders[name] as string;
    else if (MASKED.test(value)) throw new AppError("invalid_input", `Header ${name}: send the secret itself (this one is masked and no value is stored).`, "inputs__headers");
    else headers[name] = SECRET_HEADER.test(name) && !isSealed(value) ? sealSecret(value) : value;
  }
  return {
    url: { value: inputs.url.value },
    method: { value: inputs.method?.value ?? "POST" },
    headers: { value: headers },
    body: { value: inputs.body && inputs.body.value !== undefined ? inputs.body.value : { event: "{event}", person: "{person}" } },
    debug: { value: inputs.debug?.value ?? false },
  };
}

function checkHog(hog: string | null | undefined): void {
  if (hog && hog.trim() !== WEBHOOK_HOG.trim()) throw new AppError("invalid_input", "Custom Hog code is not supported: only the template-webhook template runs here.", "hog");
}

function tracked(row: { name: string; description: string; enabled: boolean; deleted: boolean; filters: unknown; inputs: unknown }) {
  return { name: row.name, description: row.description, enabled: row.enabled, deleted: row.deleted, filters: row.filters, url: (row.inputs as { url?: { value?: unknown } })?.url?.value };
}

async function changed(ctx: Context, id: string): Promise<HogFunctionResource> {
  await reloadRoutes(ctx.db);
  kickDestinationWorker({ changed: id });
  return getHogFunction(ctx, id);
}

export async function createHogFunction(ctx: Context, body: HogFunctionCreateBody): Promise<HogFunctionResource> {
  checkHog(body.hog);
  checkUrl(body.inputs.url.value);
  await checkFilters(ctx, body.filters);
  const id = randomUUID();
  await inTransaction(ctx.db, async (tx) => {
    await store.insertHogFunction(tx, id, ctx.project.id, ctx.actor.id, {
      type: body.type,
      name: body.name,
      description: body.description,
      enabled: body.enabled,
      deleted: false,
      templateId: WEBHOOK_TEMPLATE.id,
      hog: WEBHOOK_HOG,
      iconUrl: body.icon_url ?? null,
      inputsSchema: WEBHOOK_INPUTS_SCHEMA,
      inputs: storedInputs(body.inputs, null),
      filters: body.filters,
    });
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "created", name: body.name });
  });
  return changed(ctx, id);
}

export async function updateHogFunction(ctx: Context, id: string, body: HogFunctionUpdateBody): Promise<HogFunctionResource> {
  const current = await rowOf(ctx, id);
  checkHog(body.hog);
  if (body.inputs) checkUrl(body.inputs.url.value);
  if (body.filters) await checkFilters(ctx, body.filters);
  const next: store.HogFunctionWrite = {
    type: current.type,
    name: body.name ?? current.name,
    description: body.description ?? current.description,
    enabled: body.enabled ?? current.enabled,
    deleted: body.deleted ?? current.deleted,
    templateId: current.templateId,
    hog: current.hog,
    iconUrl: body.icon_url === undefined ? current.iconUrl : body.icon_url,
    inputsSchema: current.inputsSchema as unknown[],
    inputs: body.inputs ? storedInputs(body.inputs, current.inputs as Record<string, { value?: unknown }>) : (current.inputs as Record<string, unknown>),
    filters: (body.filters ?? current.filters) as Record<string, unknown>,
  };
  const changes = changesBetween(tracked(current), tracked(next));
  await inTransaction(ctx.db, async (tx) => {
    await store.updateHogFunctionRow(tx, id, next);
    // An edit or a re-enable may have fixed the receiver: the breaker starts closed.
    if (body.inputs || (next.enabled && !current.enabled)) await store.resetBreaker(tx, id);
    if (changes.length > 0) {
      const activity = next.deleted && !current.deleted ? "deleted" : !next.deleted && current.deleted ? "restored" : "updated";
      await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity, name: next.name, changes });
    }
  });
  return changed(ctx, id);
}

function dateParam(text: string | undefined, field: string, now: Date): Date | undefined {
  if (text === undefined) return undefined;
  const date = filterDate(text, now);
  if (!date) throw new AppError("invalid_input", `${field} must be a date (ISO 8601, or relative like -7d).`, field);
  return date;
}

function statusesOf(level: string | undefined): string[] | undefined {
  if (!level) return undefined;
  return level.split(",").flatMap((l) => LEVEL_STATUSES[l.trim().toUpperCase()] ?? []);
}

/** `GET …/:id/logs/`: PostHog's log lines, newest first. */
export async function hogFunctionLogs(ctx: Context, id: string, query: HogFunctionLogsQuery): Promise<{ results: LogEntry[] }> {
  await rowOf(ctx, id);
  const now = new Date();
  const rows = await store.deliveryRows(
    ctx.db.prisma,
    id,
    { after: dateParam(query.after, "after", now), before: dateParam(query.before, "before", now), statuses: statusesOf(query.level), search: query.search, eventUuid: query.instance_id },
    query.limit,
  );
  return { results: rows.map((row) => presentLogEntry(id, row)) };
}

/** `GET …/:id/deliveries/`: the attempts, newest first (status, response code, duration, error). */
export async function hogFunctionDeliveries(ctx: Context, id: string, query: HogFunctionLogsQuery): Promise<{ results: DeliveryResource[] }> {
  await rowOf(ctx, id);
  const now = new Date();
  const statuses = query.level ? query.level.split(",").map((s) => s.trim().toLowerCase()) : undefined;
  const rows = await store.deliveryRows(ctx.db.prisma, id, { after: dateParam(query.after, "after", now), before: dateParam(query.before, "before", now), statuses, search: query.search }, query.limit);
  return { results: rows.map(presentDelivery) };
}

const BUCKET_MS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 } as const;

function label(date: Date, interval: "hour" | "day" | "week"): string {
  return interval === "hour" ? date.toISOString().slice(0, 16) : date.toISOString().slice(0, 10);
}

/** `GET …/:id/metrics/`: attempts by kind (delivered, retrying, failed, skipped) per interval. */
export async function hogFunctionMetrics(ctx: Context, id: string, query: HogFunctionMetricsQuery): Promise<MetricsResource> {
  await rowOf(ctx, id);
  const now = new Date();
  const after = dateParam(query.after, "after", now)!;
  const before = dateParam(query.before, "before", now) ?? now;
  if (before.getTime() - after.getTime() > 400 * BUCKET_MS[query.interval]) throw new AppError("invalid_input", "The range holds too many intervals (at most 400).", "after");
  const counts = await store.deliveryCounts(ctx.db.prisma, id, query.interval, after, before);
  const labels = [...new Set(counts.map((c) => label(new Date(c.bucket), query.interval)))];
  const kinds = ["delivered", "retrying", "failed", "skipped"].filter((k) => !query.kind || query.kind === k);
  return {
    labels,
    series: kinds.map((name) => ({ name, values: labels.map((l) => counts.filter((c) => c.status === name && label(new Date(c.bucket), query.interval) === l).reduce((n, c) => n + c.n, 0)) })),
  };
}

/** `GET …/:id/metrics/totals/`, plus what waits in the outbox. */
export async function hogFunctionMetricTotals(ctx: Context, id: string, query: HogFunctionMetricsQuery): Promise<{ totals: Record<string, number> }> {
  const metrics = await hogFunctionMetrics(ctx, id, query);
  const totals: Record<string, number> = Object.fromEntries(metrics.series.map((s) => [s.name, s.values.reduce((a, b) => a + b, 0)]));
  totals.pending = await store.pendingCount(ctx.db.prisma, id);
  return { totals };
}
