/**
 * Session replay's outward shapes: a recording as PostHog's API lists it (notes §1.7, §1.9),
 * and the `sessionRecording` value of remote config posthog-js reads (notes §1.2).
 */
import { gunzipSync } from "node:zlib";
import type { PersonRow } from "@/server/persons/present";
import { RETENTION_DAYS, type RecordingResource, type RecordingRow, type RecordingSettings } from "./contract";

/** A recording still receiving snapshots: its last one is this recent. */
const ONGOING_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

/** PostHog's person serializer cut to what a recording shows; a stand-in when no person exists. */
function presentPerson(distinctId: string, person: PersonRow | undefined): RecordingResource["person"] {
  if (!person) return { id: null, uuid: null, name: null, distinct_ids: [distinctId], properties: {}, created_at: null };
  const properties = typeof person.properties === "object" && person.properties !== null ? (person.properties as Record<string, unknown>) : {};
  const name = [properties.email, properties.name, properties.username].find((value) => typeof value === "string") as string | undefined;
  return {
    id: person.uuid,
    uuid: person.uuid,
    name: name ?? person.distinctIds[0] ?? distinctId,
    distinct_ids: person.distinctIds.slice(0, 10),
    properties,
    created_at: person.createdAt.toISOString(),
  };
}

export function presentRecording(row: RecordingRow, person: PersonRow | undefined, settings: RecordingSettings, now: Date): RecordingResource {
  const durationMs = Math.max(0, row.endTime.getTime() - row.startTime.getTime());
  const duration = Math.round(durationMs / 1000);
  const active = Math.min(duration, Math.round(row.activeMs / 1000));
  const retentionDays = RETENTION_DAYS[settings.session_recording_retention_period];
  const expiry = new Date(row.startTime.getTime() + retentionDays * DAY_MS);
  return {
    id: row.sessionId,
    distinct_id: row.distinctId,
    viewed: false,
    viewers: [],
    recording_duration: duration,
    active_seconds: active,
    inactive_seconds: duration - active,
    start_time: row.startTime.toISOString(),
    end_time: row.endTime.toISOString(),
    click_count: row.clickCount,
    keypress_count: row.keypressCount,
    mouse_activity_count: row.mouseActivityCount,
    console_log_count: row.consoleLogCount,
    console_warn_count: row.consoleWarnCount,
    console_error_count: row.consoleErrorCount,
    start_url: row.startUrl,
    person: presentPerson(row.distinctId, person),
    retention_period_days: retentionDays,
    expiry_time: expiry.toISOString(),
    recording_ttl: Math.max(0, Math.ceil((expiry.getTime() - now.getTime()) / DAY_MS)),
    snapshot_source: row.snapshotSource,
    snapshot_library: row.snapshotLibrary,
    ongoing: now.getTime() - row.endTime.getTime() < ONGOING_MS,
    activity_score: null,
    has_summary: false,
    external_references: [],
    storage_bytes: row.sizeBytes,
  };
}

/**
 * posthog-js's `sessionRecording` remote config: false when recording is off, otherwise the
 * object PostHog's RemoteConfig builds (version 1 fields; `sampleRate` as a 2-place string,
 * null for everyone).
 */
export function sessionRecordingConfig(settings: RecordingSettings): false | Record<string, unknown> {
  if (!settings.session_recording_opt_in) return false;
  const rate = settings.session_recording_sample_rate;
  const flag = settings.session_recording_linked_flag;
  const minimum = settings.session_recording_minimum_duration_milliseconds;
  const masking = settings.session_recording_masking_config;
  return {
    endpoint: "/s/",
    consoleLogRecordingEnabled: settings.capture_console_log_opt_in,
    recorderVersion: "v2",
    sampleRate: rate === null || rate >= 1 ? null : rate.toFixed(2),
    minimumDurationMilliseconds: minimum ? minimum : null,
    linkedFlag: flag ? (flag.variant ? { flag: flag.key, variant: flag.variant } : flag.key) : null,
    networkPayloadCapture: null,
    masking: masking
      ? {
          maskAllInputs: masking.maskAllInputs ?? true,
          ...(masking.maskTextSelector ? { maskTextSelector: masking.maskTextSelector } : {}),
          ...(masking.blockSelector ? { blockSelector: masking.blockSelector } : {}),
        }
      : null,
    urlTriggers: settings.session_recording_url_trigger_config,
    urlBlocklist: settings.session_recording_url_blocklist_config,
    eventTriggers: [],
    triggerMatchType: null,
    scriptConfig: null,
    recordCanvas: false,
    canvasFps: null,
    canvasQuality: null,
    version: 1,
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Bytes one packed value may inflate to. posthog-js packs one event's parts, and a `/s/` body
 * is at most 8 MiB decoded, so a packed value is at most a few MiB of gzip; the largest part,
 * a full snapshot of a heavy page, is a few MB of JSON (rrweb's DOM JSON gzips about 5–10×).
 * 32 MiB is ten times that, and nothing a browser player could rebuild is bigger; a gzip
 * bomb (a MiB of gzip-of-zeros inflates to a GiB) stops here.
 */
export const MAX_UNPACKED_VALUE_BYTES = 32 * 1024 * 1024;
/** Deflate's best ratio: what a failed inflate can have produced is at most this times its input. */
const MAX_DEFLATE_RATIO = 1032;

/**
 * What one playback may still inflate (packed values; the caller may charge chunks too), and
 * the events left out because a value was over its bound or the budget was spent.
 */
export interface InflateBudget {
  left: number;
  skipped: number;
}

export const inflateBudget = (bytes: number): InflateBudget => ({ left: bytes, skipped: 0 });

/** A packed value over its bound or the budget: its event is left out of the playback. */
const TOO_LARGE = Symbol("too large");

/**
 * posthog-js's packed string (gzip bytes as latin1 characters) to its value; unreadable ones
 * stay as they are. The inflate is bounded by the value's cap and what the budget has left,
 * and charged to it, failures included (a bomb's attempt costs the bytes it inflated).
 */
function unpackValue(value: unknown, budget: InflateBudget): unknown {
  if (typeof value !== "string") return value;
  const limit = Math.min(MAX_UNPACKED_VALUE_BYTES, budget.left);
  if (limit < 1) return TOO_LARGE;
  const bytes = Buffer.from(value, "latin1");
  let inflated: Buffer;
  try {
    inflated = gunzipSync(bytes, { maxOutputLength: limit });
  } catch (error) {
    budget.left -= Math.min(limit, bytes.length * MAX_DEFLATE_RATIO);
    return (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" ? TOO_LARGE : value;
  }
  budget.left -= inflated.length;
  try {
    return JSON.parse(inflated.toString("utf8")) as unknown;
  } catch {
    return value;
  }
}

/**
 * An rrweb event as the player needs it: posthog-js's `cv: "2024-10"` parts unpacked (full
 * snapshot data; mutation texts/attributes/removes/adds; style sheet rule adds/removes), as
 * PostHog's player does (notes §1.5). Unknown `cv` values are left as they are. Null (and
 * counted in the budget's `skipped`) when a part is over its bound: the player cannot use a
 * packed string, so the event is left out rather than the playback failing.
 */
export function unpackEvent(event: Record<string, unknown>, budget: InflateBudget = inflateBudget(MAX_UNPACKED_VALUE_BYTES)): Record<string, unknown> | null {
  if (event.cv !== "2024-10") return event;
  const { cv: _cv, ...rest } = event;
  let unpacked: Record<string, unknown> | null = rest;
  if (rest.type === 2) {
    const data = unpackValue(rest.data, budget);
    unpacked = data === TOO_LARGE ? null : { ...rest, data };
  } else if (rest.type === 3 && isRecord(rest.data)) {
    const data = { ...rest.data };
    const keys = data.source === 0 ? ["texts", "attributes", "removes", "adds"] : data.source === 8 ? ["adds", "removes"] : [];
    for (const key of keys) {
      if (!(key in data)) continue;
      data[key] = unpackValue(data[key], budget);
      if (data[key] === TOO_LARGE) {
        unpacked = null;
        break;
      }
    }
    if (unpacked) unpacked = { ...rest, data };
  }
  if (!unpacked) budget.skipped++;
  return unpacked;
}

/** A chunk's JSONL (`[windowId, event]` lines) to events for the player, unpacked within the budget. */
export function playbackEventsOf(jsonl: string, budget: InflateBudget = inflateBudget(MAX_UNPACKED_VALUE_BYTES)): { windowId: string; event: Record<string, unknown> }[] {
  const out: { windowId: string; event: Record<string, unknown> }[] = [];
  for (const line of jsonl.split("\n")) {
    if (line === "") continue;
    const parsed = JSON.parse(line) as unknown;
    if (!Array.isArray(parsed) || typeof parsed[0] !== "string" || !isRecord(parsed[1])) continue;
    const event = unpackEvent(parsed[1], budget);
    if (event) out.push({ windowId: parsed[0], event });
  }
  return out;
}
