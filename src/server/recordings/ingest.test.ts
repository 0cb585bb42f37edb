import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { mergeChunk, parseSnapshotRequest } from "./ingest";
import { inflateBudget, MAX_UNPACKED_VALUE_BYTES, playbackEventsOf, sessionRecordingConfig, unpackEvent } from "./present";
import { DEFAULT_RECORDING_SETTINGS } from "./contract";
import { gzipBomb, packed, pageItems, RECORDING_T0, snapshotEvent } from "@/test-support/recordings";

const event = (items: unknown[], extra: { sessionId?: string; windowId?: string; distinctId?: string } = {}) =>
  snapshotEvent({ token: "phc_x", sessionId: extra.sessionId ?? "s1", windowId: extra.windowId, distinctId: extra.distinctId ?? "d1", items: items as Record<string, unknown>[] });

function refused(payload: unknown): string {
  try {
    parseSnapshotRequest(payload, null);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).message;
  }
  throw new Error("accepted");
}

describe("parseSnapshotRequest", () => {
  it("groups a request's events per (session, window) and reads the project key", () => {
    const { token, chunks } = parseSnapshotRequest([event(pageItems(), { windowId: "w1" }), event(pageItems().slice(0, 2), { windowId: "w2" }), event(pageItems().slice(2), { windowId: "w1" })], null);
    expect(token).toBe("phc_x");
    expect(chunks.map((chunk) => [chunk.windowId, chunk.eventCount])).toEqual([
      ["w1", 14],
      ["w2", 2],
    ]);
  });

  it("counts PostHog's metadata: clicks, keypresses, mouse activity, console levels, first URL", () => {
    const [chunk] = parseSnapshotRequest([event(pageItems())], null).chunks;
    expect(chunk).toMatchObject({ clicks: 2, keypresses: 1, mouseActivity: 3, consoleError: 1, consoleWarn: 0, firstUrl: "https://shop.example/cart", firstTimestamp: RECORDING_T0, lastTimestamp: RECORDING_T0 + 20_000 });
    expect(chunk!.activeTimestamps).toEqual([RECORDING_T0 + 1000, RECORDING_T0 + 2000, RECORDING_T0 + 3000, RECORDING_T0 + 20_000]);
  });

  it("stores each event as sent, one [windowId, event] line each, in time order", () => {
    const items = pageItems().reverse();
    const [chunk] = parseSnapshotRequest([event(items, { windowId: "w" })], null).chunks;
    const lines = gunzipSync(chunk!.data).toString("utf8").trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([...items].reverse().map((item) => ["w", item]));
    expect(chunk!.rawBytes).toBe(gunzipSync(chunk!.data).length);
  });

  it("leaves out items that are not rrweb events, and refuses a body with none", () => {
    const [chunk] = parseSnapshotRequest([event([{ type: 3 }, "x", null, { type: 4, timestamp: "soon" }, { type: 4, timestamp: 1e15 }, ...pageItems().slice(0, 1)])], null).chunks;
    expect(chunk!.eventCount).toBe(1);
    expect(refused([event([{ nope: true }])])).toMatch(/no \$snapshot events/);
    expect(refused([{ event: "$pageview" }])).toMatch(/no \$snapshot events/);
    expect(refused("text")).toMatch(/expected \$snapshot events/);
  });

  it("refuses bad session and window ids and a missing distinct id (PostHog's capture rules)", () => {
    expect(refused([event(pageItems(), { sessionId: "a".repeat(71) })])).toMatch(/\$session_id/);
    expect(refused([event(pageItems(), { sessionId: "has space" })])).toMatch(/\$session_id/);
    expect(refused([event(pageItems(), { windowId: "w/1" })])).toMatch(/\$window_id/);
    expect(refused([event(pageItems(), { distinctId: "" })])).toMatch(/distinct_id/);
    expect(refused([event(pageItems(), { distinctId: "a\u0000b" })])).toMatch(/NUL/);
  });
});

describe("mergeChunk", () => {
  it("adds chunks up: times, counts, size, and active time across chunks with 5 s gaps", () => {
    const [first] = parseSnapshotRequest([event(pageItems())], null).chunks;
    const [second] = parseSnapshotRequest([event(pageItems(RECORDING_T0 + 22_000).slice(2, 4))], null).chunks;
    const row = mergeChunk(mergeChunk(null, first!), second!);
    expect(row).toMatchObject({ clickCount: 3, keypressCount: 1, consoleErrorCount: 1, chunkCount: 2, startUrl: "https://shop.example/cart" });
    expect(row.startTime.getTime()).toBe(RECORDING_T0);
    expect(row.endTime.getTime()).toBe(RECORDING_T0 + 24_000);
    // Segments: 1–3 s (2001 ms); 20 s (1 ms), continued 3 s later at 23 s (+3000) and 24 s (+1000).
    expect(row.activeMs).toBe(2001 + 1 + 3000 + 1000);
    expect(row.sizeBytes).toBe(first!.data.length + second!.data.length);
  });

  it("takes an earlier chunk's URL as the start URL", () => {
    const [late] = parseSnapshotRequest([event(pageItems(RECORDING_T0 + 60_000, { href: "https://late.example/" }))], null).chunks;
    const [early] = parseSnapshotRequest([event(pageItems(RECORDING_T0, { href: "https://early.example/" }))], null).chunks;
    expect(mergeChunk(mergeChunk(null, late!), early!).startUrl).toBe("https://early.example/");
  });
});

describe("playback and remote config", () => {
  it("unpacks posthog-js's cv 2024-10 parts and leaves others as they are", () => {
    const full = { node: { type: 0, childNodes: [] }, initialOffset: { top: 0, left: 0 } };
    expect(unpackEvent({ type: 2, cv: "2024-10", data: packed(full), timestamp: 1 })).toEqual({ type: 2, data: full, timestamp: 1 });
    const mutation = { type: 3, cv: "2024-10", timestamp: 2, data: { source: 0, texts: packed([]), attributes: packed([{ id: 1 }]), removes: packed([]), adds: packed([{ parentId: 1 }]) } };
    expect(unpackEvent(mutation)).toEqual({ type: 3, timestamp: 2, data: { source: 0, texts: [], attributes: [{ id: 1 }], removes: [], adds: [{ parentId: 1 }] } });
    expect(unpackEvent({ type: 2, cv: "2030-01", data: "x", timestamp: 1 })).toEqual({ type: 2, cv: "2030-01", data: "x", timestamp: 1 });
    expect(unpackEvent({ type: 2, cv: "2024-10", data: "not gzip", timestamp: 1 })).toEqual({ type: 2, data: "not gzip", timestamp: 1 });
    expect(playbackEventsOf(`["w",${JSON.stringify({ type: 2, cv: "2024-10", data: packed(full), timestamp: 1 })}]\n\n`)).toEqual([{ windowId: "w", event: { type: 2, data: full, timestamp: 1 } }]);
  });

  it("leaves out an event whose packed part inflates past its bound, charging the attempt to the budget", () => {
    const bomb = gzipBomb(MAX_UNPACKED_VALUE_BYTES + 16 * 1024 * 1024);
    const budget = inflateBudget(10 * MAX_UNPACKED_VALUE_BYTES);
    expect(unpackEvent({ type: 2, cv: "2024-10", data: bomb, timestamp: 1 }, budget)).toBeNull();
    const mutation = { type: 3, cv: "2024-10", timestamp: 2, data: { source: 0, texts: packed([]), attributes: packed([]), removes: packed([]), adds: bomb } };
    expect(unpackEvent(mutation, budget)).toBeNull();
    // Two attempts at the bound; the mutation's texts, attributes and removes (`[]` each) before its adds.
    expect(budget).toEqual({ left: 8 * MAX_UNPACKED_VALUE_BYTES - 3 * 2, skipped: 2 });
    // Not gzip: left as it is, and charged no more than deflate could have made of it.
    expect(unpackEvent({ type: 2, cv: "2024-10", data: "not gzip", timestamp: 1 }, budget)).toEqual({ type: 2, data: "not gzip", timestamp: 1 });
    expect(budget.left).toBeGreaterThanOrEqual(8 * MAX_UNPACKED_VALUE_BYTES - 3 * 2 - 8 * 1032);
  });

  it("stops unpacking once the budget is spent: packed events are left out, the others kept", () => {
    const full = { node: { type: 0, childNodes: [] }, initialOffset: { top: 0, left: 0 } };
    const line = (event: unknown) => `${JSON.stringify(["w", event])}\n`;
    const jsonl = [
      line({ type: 2, cv: "2024-10", data: packed(full), timestamp: 1 }),
      line({ type: 2, cv: "2024-10", data: gzipBomb(64 * 1024 * 1024), timestamp: 2 }),
      line({ type: 2, cv: "2024-10", data: packed(full), timestamp: 3 }),
      line({ type: 4, data: { href: "https://x.example/" }, timestamp: 4 }),
    ].join("");
    const budget = inflateBudget(MAX_UNPACKED_VALUE_BYTES);
    expect(playbackEventsOf(jsonl, budget).map(({ event }) => [event.timestamp, typeof event.data])).toEqual([
      [1, "object"],
      [4, "object"],
    ]);
    expect(budget).toMatchObject({ left: 0, skipped: 2 });
  });

  it("answers false while recording is off, PostHog's object when on", () => {
    expect(sessionRecordingConfig(DEFAULT_RECORDING_SETTINGS)).toBe(false);
    const on = sessionRecordingConfig({ ...DEFAULT_RECORDING_SETTINGS, session_recording_opt_in: true, session_recording_sample_rate: 1, session_recording_linked_flag: { key: "beta" } });
    expect(on).toMatchObject({ endpoint: "/s/", sampleRate: null, linkedFlag: "beta", masking: { maskAllInputs: true }, consoleLogRecordingEnabled: true });
  });
});
