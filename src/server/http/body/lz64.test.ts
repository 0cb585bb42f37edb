/**
 * Our bounded LZ-string base64 decompressor against lz-string's own compressor: every
 * round trip gives back the text, malformed input is Lz64Malformed (never another error),
 * and a bomb stops as soon as the output would pass the limit.
 */
import LZString from "lz-string";
import { describe, expect, it } from "vitest";
import { decompressLz64, Lz64Malformed, Lz64TooLarge } from "./lz64";
import { lz64Bomb, lz64BombLength } from "./lz64-bomb";

const NO_LIMIT = 1e9;

/** A small seeded generator, so that a failure can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomText(next: () => number, length: number, unitRange: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += String.fromCharCode(Math.floor(next() * unitRange));
  return text;
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error, got a result");
}

describe("decompressLz64: round trips with LZString.compressToBase64", () => {
  it.each([
    ["a small alphabet (long repeats)", 3],
    ["Latin-1", 256],
    ["any UTF-16 code unit, lone surrogates included", 0x10000],
  ])("gives back 300 random texts over %s", (_, unitRange) => {
    const next = random(unitRange);
    for (let i = 0; i < 300; i++) {
      const text = randomText(next, Math.floor(next() * 2000), unitRange);
      expect(decompressLz64(LZString.compressToBase64(text), NO_LIMIT)).toBe(text);
    }
  });

  it("gives back JSON with emoji, accents and CJK, and a long repetitive batch", () => {
    const event = { event: "$pageview", properties: { title: "Crème brûlée 🍮 — 東京", url: "https://a.example/ü?q=1+2" } };
    for (const text of [JSON.stringify(event), JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ ...event, i })))]) {
      expect(decompressLz64(LZString.compressToBase64(text), NO_LIMIT)).toBe(text);
    }
  });

  it("gives back the empty text", () => {
    expect(LZString.compressToBase64("")).toBe("Q===");
    expect(decompressLz64("Q===", NO_LIMIT)).toBe("");
  });

  it("accepts output of exactly the limit", () => {
    const text = "x".repeat(10_000);
    expect(decompressLz64(LZString.compressToBase64(text), 10_000)).toBe(text);
    expect(errorOf(() => decompressLz64(LZString.compressToBase64(text), 9_999))).toBeInstanceOf(Lz64TooLarge);
  });
});

describe("decompressLz64: malformed input is Lz64Malformed", () => {
  const valid = LZString.compressToBase64(JSON.stringify({ event: "x", properties: { a: 1 } }));

  it.each([
    ["empty", ""],
    ["only padding", "===="],
    ["characters outside the alphabet", "%%%%"],
    ["a URL-encoded stream", "%2B" + valid],
    ["a stream cut short", valid.slice(0, Math.floor(valid.length / 2))],
    ["a first code that is not a literal (lz-string throws a TypeError on it)", "zzzz"],
    ["a code for an entry that does not exist yet (\"a\", then code 7)", "Ibg="],
  ])("%s", (_, input) => {
    expect(errorOf(() => decompressLz64(input, NO_LIMIT))).toBeInstanceOf(Lz64Malformed);
  });

  it("never throws anything else on 2,000 random corruptions of a valid stream", () => {
    const next = random(7);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (let i = 0; i < 2000; i++) {
      const chars = [...valid];
      chars[Math.floor(next() * chars.length)] = alphabet[Math.floor(next() * 64)]!;
      try {
        decompressLz64(chars.join(""), 10_000);
      } catch (error) {
        expect(error instanceof Lz64Malformed || error instanceof Lz64TooLarge).toBe(true);
      }
    }
  });
});

describe("decompressLz64: a bomb stops at the limit", () => {
  it("builds bombs lz-string itself expands (the test's own check)", () => {
    expect(LZString.decompressFromBase64(lz64Bomb(100))).toBe("a".repeat(lz64BombLength(100)));
    expect(decompressLz64(lz64Bomb(100), NO_LIMIT)).toBe("a".repeat(lz64BombLength(100)));
  });

  it("stops a 55 KB body that would expand to 289 M characters within 1 M of output", () => {
    const codes = 24_000;
    const bomb = lz64Bomb(codes);
    expect(bomb.length).toBeLessThan(56_000);
    expect(lz64BombLength(codes)).toBeGreaterThan(280_000_000);
    const limit = 1_000_000;
    const error = errorOf(() => decompressLz64(bomb, limit));
    expect(error).toBeInstanceOf(Lz64TooLarge);
    // It stopped before writing past the limit: the work done is bounded by the limit, not
    // by what the body would have expanded to.
    expect((error as Lz64TooLarge).producedUnits).toBeLessThanOrEqual(limit);
    expect((error as Lz64TooLarge).producedUnits).toBeGreaterThan(limit - codes);
  });
});
