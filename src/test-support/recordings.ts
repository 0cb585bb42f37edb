/** Test helpers: posthog-js's `/s/` bodies, built as the recorder builds them. */
import { gzipSync } from "node:zlib";

export interface SnapshotOptions {
  token: string;
  sessionId: string;
  windowId?: string;
  distinctId: string;
  items: Record<string, unknown>[];
}

/** One `$snapshot` event as posthog-js captures it (the body is an array of these). */
export function snapshotEvent(options: SnapshotOptions): Record<string, unknown> {
  return {
    event: "$snapshot",
    properties: {
      $snapshot_data: options.items,
      $snapshot_bytes: JSON.stringify(options.items).length,
      $session_id: options.sessionId,
      $window_id: options.windowId ?? options.sessionId,
      $lib: "web",
      $lib_version: "1.449.2",
      distinct_id: options.distinctId,
      token: options.token,
    },
    timestamp: new Date().toISOString(),
  };
}

/** posthog-js's `cv: "2024-10"` packing of one value: gzip of its JSON, bytes as latin1 characters. */
export function packed(value: unknown): string {
  return Buffer.from(gzipSync(Buffer.from(JSON.stringify(value), "utf8"))).toString("latin1");
}

/**
 * A packed value (gzip as latin1 characters) that inflates to `bytes` zeros: gzip members of
 * 16 MiB each, concatenated (gunzip reads them one after the other), so that making it never
 * holds more than 16 MiB.
 */
export function gzipBomb(bytes: number): string {
  const piece = 16 * 1024 * 1024;
  const member = gzipSync(Buffer.alloc(piece));
  return Buffer.concat(Array.from({ length: Math.ceil(bytes / piece) }, () => member)).toString("latin1");
}

const T = Date.parse("2026-11-20T10:00:00.000Z");

/** A small realistic recording: meta, full snapshot (packed), clicks, input, console error, navigation. */
export function pageItems(start = T, options: { href?: string; packed?: boolean } = {}): Record<string, unknown>[] {
  const href = options.href ?? "https://shop.example/cart";
  const node = { type: 0, childNodes: [{ type: 2, tagName: "html", attributes: {}, childNodes: [{ type: 2, tagName: "h1", attributes: {}, childNodes: [{ type: 3, textContent: "Cart" }], id: 3 }], id: 2 }], id: 1 };
  const full = { node, initialOffset: { top: 0, left: 0 } };
  return [
    { type: 4, data: { href, width: 1280, height: 720 }, timestamp: start },
    options.packed === false ? { type: 2, data: full, timestamp: start + 1 } : { type: 2, data: packed(full), cv: "2024-10", timestamp: start + 1 },
    { type: 3, data: { source: 1, positions: [{ x: 1, y: 2, id: 3, timeOffset: 0 }] }, timestamp: start + 1000 },
    { type: 3, data: { source: 2, type: 2, id: 3, x: 1, y: 2 }, timestamp: start + 2000 },
    { type: 3, data: { source: 5, text: "*****", isChecked: false, id: 3 }, timestamp: start + 3000 },
    { type: 6, data: { plugin: "rrweb/console@1", payload: { level: "error", payload: ['"boom"'], trace: [] } }, timestamp: start + 4000 },
    { type: 5, data: { tag: "$url_changed", payload: { href: `${href}/checkout` } }, timestamp: start + 5000 },
    { type: 3, data: { source: 2, type: 2, id: 3, x: 5, y: 5 }, timestamp: start + 20_000 },
  ];
}

export const RECORDING_T0 = T;
