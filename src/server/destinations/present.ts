/** A destination as PostHog's API shows it (HogFunctionSerializer), its log lines and its deliveries. */
import { toUserBasic } from "@/server/accounts/present";
import { isSealed, maskedSecret, openSecret } from "@/server/outbound/service";
import type { DeliveryResource, DeliveryStatus, HogFunctionResource, LogEntry } from "./contract";
import type { DeliveryLogRow, HogFunctionRow } from "./store";
import { WEBHOOK_TEMPLATE } from "./template";

export type { DeliveryResource, HogFunctionResource, LogEntry } from "./contract";

/** Header names whose values are credentials: stored sealed, shown masked. */
export const SECRET_HEADER = /authorization|cookie|token|secret|api[-_]?key|password|signature|^x-.*key$/i;

function maskedValue(stored: unknown): string {
  if (typeof stored !== "string") return "••••";
  try {
    return maskedSecret(isSealed(stored) ? openSecret(stored) : stored);
  } catch {
    return "••••";
  }
}

/** The inputs with every sealed header value masked (never returned in full). */
export function presentInputs(inputs: unknown): HogFunctionResource["inputs"] {
  const out: HogFunctionResource["inputs"] = {};
  for (const [key, raw] of Object.entries((inputs ?? {}) as Record<string, { value?: unknown; templating?: string }>)) {
    if (key === "headers" && raw?.value && typeof raw.value === "object") {
      const headers = Object.fromEntries(Object.entries(raw.value as Record<string, unknown>).map(([name, value]) => [name, typeof value === "string" && isSealed(value) ? maskedValue(value) : value]));
      out[key] = { ...raw, value: headers };
    } else out[key] = { value: raw?.value ?? null, ...(raw?.templating ? { templating: raw.templating } : {}) };
  }
  return out;
}

/** PostHog's HogWatcher states: 1 healthy, 2 degraded, 3 disabled for a while (the circuit is open). */
function statusOf(row: HogFunctionRow): HogFunctionResource["status"] {
  const open = row.circuitOpenUntil !== null && row.circuitOpenUntil.getTime() > Date.now();
  return { state: open ? 3 : row.consecutiveFailures > 0 ? 2 : 1, tokens: open ? 0 : 10_000 };
}

export function presentHogFunction(row: HogFunctionRow): HogFunctionResource {
  return {
    id: row.id,
    type: "destination",
    name: row.name,
    description: row.description,
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy ? toUserBasic(row.createdBy) : null,
    updated_at: row.updatedAt.toISOString(),
    enabled: row.enabled,
    hog: row.hog,
    bytecode: null,
    transpiled: null,
    inputs_schema: Array.isArray(row.inputsSchema) ? (row.inputsSchema as Record<string, unknown>[]) : [],
    inputs: presentInputs(row.inputs),
    filters: (row.filters ?? {}) as Record<string, unknown>,
    masking: null,
    mappings: null,
    icon_url: row.iconUrl,
    template: row.templateId === WEBHOOK_TEMPLATE.id ? WEBHOOK_TEMPLATE : null,
    status: statusOf(row),
    execution_order: null,
    deleted: row.deleted,
  };
}

export function presentDelivery(row: DeliveryLogRow): DeliveryResource {
  return {
    id: row.id.toString(),
    event_uuid: row.eventUuid,
    attempt: row.attempt,
    status: row.status as DeliveryStatus,
    response_code: row.responseCode,
    duration_ms: row.durationMs,
    error: row.error,
    created_at: row.createdAt.toISOString(),
  };
}

const LEVEL: Record<string, LogEntry["level"]> = { delivered: "INFO", skipped: "DEBUG", retrying: "WARN", failed: "ERROR" };

/** A delivery as PostHog's log line (LogEntryMixin): the event as instance, the outcome as message. */
export function presentLogEntry(hogFunctionId: string, row: DeliveryLogRow): LogEntry {
  const code = row.responseCode === null ? "" : ` (HTTP ${row.responseCode})`;
  const what = { delivered: "Delivered", skipped: "Skipped", retrying: "Failed, will retry", failed: "Failed" }[row.status] ?? row.status;
  return {
    log_source_id: hogFunctionId,
    instance_id: row.eventUuid,
    timestamp: row.createdAt.toISOString(),
    level: LEVEL[row.status] ?? "INFO",
    message: `${what}${code} on attempt ${row.attempt} in ${row.durationMs} ms${row.error ? `: ${row.error}` : ""}`,
  };
}

export const LEVEL_STATUSES: Record<string, string[]> = { INFO: ["delivered"], DEBUG: ["skipped"], WARN: ["retrying"], WARNING: ["retrying"], ERROR: ["failed"] };
