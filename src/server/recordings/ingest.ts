/**
 * `/s/` bodies to chunks, as pure functions: the `$snapshot` events posthog-js sends, grouped
 * per (session, window), each group one gzip-compressed JSONL chunk of `[windowId, event]`
 * lines (PostHog's blob format, gzip instead of snappy) with the metadata it adds, and the
 * merge of that metadata into a recording's row (PostHog's segmentation rules, notes §1.6).
 * Events are stored as sent, `cv`-packed parts included: the player unpacks them.
 */
import { gzipSync } from "node:zlib";
import { AppError } from "@/server/errors";
import { SESSION_ID_PATTERN, type ChunkSummary, type RecordingRow, type SnapshotItem } from "./contract";

/** A bad body: 400 (the edge answers it in capture's error shape). */
const invalid = (message: string) => new AppError("invalid_input", message);

/** rrweb's incremental-snapshot sources (notes §1.4). */
const SOURCE = { mutation: 0, mouseMove: 1, mouseInteraction: 2, scroll: 3, viewportResize: 4, input: 5, touchMove: 6, mediaInteraction: 7, drag: 12 } as const;
const ACTIVE_SOURCES = new Set<number>([SOURCE.mouseMove, SOURCE.mouseInteraction, SOURCE.scroll, SOURCE.viewportResize, SOURCE.input, SOURCE.touchMove, SOURCE.mediaInteraction, SOURCE.drag]);
const MOUSE_SOURCES = new Set<number>([SOURCE.mouseMove, SOURCE.mouseInteraction, SOURCE.touchMove]);
/** MouseInteraction types counted as clicks: Click, ContextMenu, DblClick, TouchEnd. */
const CLICK_TYPES = new Set<number>([2, 3, 4, 9]);
/** A gap longer than this between active events starts a new active segment. */
export const ACTIVITY_GAP_MS = 5_000;
const MAX_URL_LENGTH = 4096;
/** Timestamps outside 2000–2100 are not rrweb's (and not storable everywhere). */
const MIN_TIMESTAMP = 946_684_800_000;
const MAX_TIMESTAMP = 4_102_444_800_000;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The events of a body: posthog-js sends a JSON array; `{batch}` and a single event are read too. */
function eventsOf(payload: unknown): unknown[] {
  if (Array.isArray(payload)) return payload;
  if (isObject(payload) && Array.isArray(payload.batch)) return payload.batch;
  if (isObject(payload)) return [payload];
  throw invalid("Malformed request data: expected $snapshot events.");
}

function tokenOf(payload: unknown, event: Record<string, unknown>, properties: Record<string, unknown>): string | null {
  for (const value of [event.api_key, event.token, properties.token, isObject(payload) ? payload.api_key : undefined, isObject(payload) ? payload.token : undefined]) {
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return null;
}

function isItem(value: unknown): value is SnapshotItem {
  if (!isObject(value)) return false;
  const { type, timestamp } = value;
  return typeof type === "number" && Number.isInteger(type) && typeof timestamp === "number" && timestamp >= MIN_TIMESTAMP && timestamp <= MAX_TIMESTAMP;
}

const storable = (text: string) => text.replaceAll("\u0000", "\uFFFD");

function urlOf(item: SnapshotItem): string | null {
  const data = item.data as Record<string, unknown> | undefined;
  if (!isObject(data)) return null;
  const href = item.type === 4 ? data.href : item.type === 5 && isObject(data.payload) ? data.payload.href : undefined;
  return typeof href === "string" && href !== "" ? storable(href.slice(0, MAX_URL_LENGTH)) : null;
}

interface Group {
  sessionId: string;
  windowId: string;
  distinctId: string;
  snapshotSource: string;
  snapshotLibrary: string | null;
  items: SnapshotItem[];
}

/** The chunk of one group: its compressed lines and the metadata they add. */
export function summarise(group: Group): ChunkSummary {
  const items = [...group.items].sort((a, b) => a.timestamp - b.timestamp);
  const prefix = `[${JSON.stringify(group.windowId)},`;
  const text = items.map((item) => `${prefix}${JSON.stringify(item)}]\n`).join("");
  const raw = Buffer.from(text, "utf8");
  const summary: ChunkSummary = {
    sessionId: group.sessionId,
    windowId: group.windowId,
    distinctId: group.distinctId,
    firstTimestamp: items[0]!.timestamp,
    lastTimestamp: items.at(-1)!.timestamp,
    eventCount: items.length,
    rawBytes: raw.length,
    data: gzipSync(raw),
    activeTimestamps: [],
    clicks: 0,
    keypresses: 0,
    mouseActivity: 0,
    consoleLog: 0,
    consoleWarn: 0,
    consoleError: 0,
    firstUrl: null,
    snapshotSource: group.snapshotSource,
    snapshotLibrary: group.snapshotLibrary,
  };
  for (const item of items) {
    summary.firstUrl ??= urlOf(item);
    const data = isObject(item.data) ? item.data : {};
    if (item.type === 3 && typeof data.source === "number") {
      if (ACTIVE_SOURCES.has(data.source)) summary.activeTimestamps.push(item.timestamp);
      if (MOUSE_SOURCES.has(data.source)) summary.mouseActivity++;
      if (data.source === SOURCE.mouseInteraction && typeof data.type === "number" && CLICK_TYPES.has(data.type)) summary.clicks++;
      if (data.source === SOURCE.input) summary.keypresses++;
    } else if (item.type === 6 && data.plugin === "rrweb/console@1" && isObject(data.payload)) {
      const level = data.payload.level;
      if (level === "error") summary.consoleError++;
      else if (level === "warn") summary.consoleWarn++;
      else if (level === "info" || level === "log") summary.consoleLog++;
    }
  }
  return summary;
}

/**
 * A decoded /s/ body to its project key and chunks. Bad ids are a 400 for the whole request
 * (as PostHog's capture answers); items that are not rrweb events are left out, and a body
 * with none is a 400.
 */
export function parseSnapshotRequest(payload: unknown, formToken: string | null): { token: string | null; chunks: ChunkSummary[] } {
  const groups = new Map<string, Group>();
  let token = formToken;
  for (const raw of eventsOf(payload)) {
    if (!isObject(raw)) throw invalid("Malformed request data: every event must be an object.");
    if (raw.event !== "$snapshot") continue;
    const properties = isObject(raw.properties) ? raw.properties : {};
    token ??= tokenOf(payload, raw, properties);
    const sessionId = properties.$session_id;
    if (typeof sessionId !== "string" || !SESSION_ID_PATTERN.test(sessionId)) {
      throw invalid("$session_id must be at most 70 letters, digits and hyphens.");
    }
    const windowId = properties.$window_id ?? sessionId;
    if (typeof windowId !== "string" || !SESSION_ID_PATTERN.test(windowId)) throw invalid("$window_id must be at most 70 letters, digits and hyphens.");
    const distinct = raw.distinct_id ?? properties.distinct_id;
    const distinctId = typeof distinct === "number" ? String(distinct) : distinct;
    if (typeof distinctId !== "string" || distinctId.trim() === "") throw invalid("distinct_id is required.");
    if (distinctId.length > 200 || distinctId.includes("\u0000")) throw invalid("distinct_id must be at most 200 characters, without NUL.");
    const data = properties.$snapshot_data;
    const items = (Array.isArray(data) ? data : [data]).filter(isItem);
    if (items.length === 0) continue;
    const key = `${sessionId}\u0001${windowId}`;
    let group = groups.get(key);
    if (!group) {
      const source = typeof properties.$snapshot_source === "string" ? properties.$snapshot_source.slice(0, 20) : "web";
      const lib = typeof properties.$lib === "string" ? storable(properties.$lib.slice(0, 100)) : null;
      group = { sessionId, windowId, distinctId, snapshotSource: storable(source), snapshotLibrary: lib, items: [] };
      groups.set(key, group);
    }
    // One at a time: spreading ~200k items (they fit the decoded limit) into push() overflows the stack.
    for (const item of items) group.items.push(item);
  }
  if (groups.size === 0) throw invalid("Malformed request data: no $snapshot events with rrweb snapshot data.");
  return { token, chunks: [...groups.values()].map(summarise) };
}

/** A recording's row with one more chunk's metadata. */
export function mergeChunk(existing: RecordingRow | null, chunk: ChunkSummary): RecordingRow {
  const row: RecordingRow = existing
    ? { ...existing }
    : {
        sessionId: chunk.sessionId,
        distinctId: chunk.distinctId,
        startTime: new Date(chunk.firstTimestamp),
        endTime: new Date(chunk.lastTimestamp),
        activeMs: 0,
        lastActiveMs: null,
        clickCount: 0,
        keypressCount: 0,
        mouseActivityCount: 0,
        consoleLogCount: 0,
        consoleWarnCount: 0,
        consoleErrorCount: 0,
        startUrl: null,
        snapshotSource: chunk.snapshotSource,
        snapshotLibrary: chunk.snapshotLibrary,
        sizeBytes: 0,
        chunkCount: 0,
      };
  if (chunk.firstTimestamp < row.startTime.getTime()) {
    row.startTime = new Date(chunk.firstTimestamp);
    // An earlier chunk's URL is the recording's first.
    if (chunk.firstUrl) row.startUrl = chunk.firstUrl;
  }
  if (chunk.lastTimestamp > row.endTime.getTime()) row.endTime = new Date(chunk.lastTimestamp);
  row.startUrl ??= chunk.firstUrl;
  let last = row.lastActiveMs;
  for (const at of chunk.activeTimestamps) {
    if (last === null || at - last > ACTIVITY_GAP_MS) row.activeMs += 1;
    else if (at > last) row.activeMs += at - last;
    last = last === null ? at : Math.max(last, at);
  }
  row.lastActiveMs = last;
  row.clickCount += chunk.clicks;
  row.keypressCount += chunk.keypresses;
  row.mouseActivityCount += chunk.mouseActivity;
  row.consoleLogCount += chunk.consoleLog;
  row.consoleWarnCount += chunk.consoleWarn;
  row.consoleErrorCount += chunk.consoleError;
  row.sizeBytes += chunk.data.length;
  row.chunkCount += 1;
  row.snapshotLibrary ??= chunk.snapshotLibrary;
  return row;
}
