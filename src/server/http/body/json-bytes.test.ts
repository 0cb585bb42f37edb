/**
 * parseJsonBytes: the same value as JSON.parse of the whole text (keys in the same order,
 * "__proto__" an own key, a repeated key's last value), a throw wherever JSON.parse throws, and
 * JsonTooDeep for a document nested more than MAX_BODY_DEPTH levels, wherever the depth is.
 */
import { describe, expect, it } from "vitest";
import { JsonTooDeep, MAX_BODY_DEPTH, parseJsonBytes } from "./json-bytes";

/** A small deterministic generator, so that a failure names its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const STRINGS = ["", "plain", "en – dash", "日本語", "emoji 🦔", 'quote " inside', "back\\slash\\", "\\", 'ends with \\"', "\u0000nul", "line\nbreak", "]}[{,:", "__proto__", "constructor"];

/** A JSON value of about `budget` characters, nested up to `depth`. */
function value(next: () => number, depth: number, budget: number): unknown {
  const kind = Math.floor(next() * (depth > 0 ? 8 : 5));
  if (kind === 0) return Math.floor(next() * 1e6) * (next() < 0.5 ? -1 : 1) * (next() < 0.2 ? 1.5e-3 : 1);
  if (kind === 1) return STRINGS[Math.floor(next() * STRINGS.length)]! + "x".repeat(Math.floor(next() * 40));
  if (kind === 2) return next() < 0.5;
  if (kind === 3) return null;
  if (kind === 4) return STRINGS[Math.floor(next() * STRINGS.length)]!;
  const size = Math.max(1, Math.floor(next() * Math.min(40, budget / 20)));
  if (kind === 5) return Array.from({ length: size }, () => value(next, depth - 1, budget / size));
  const object: Record<string, unknown> = {};
  for (let i = 0; i < size; i++) Object.defineProperty(object, STRINGS[Math.floor(next() * STRINGS.length)]! + (next() < 0.7 ? `k${i}` : ""), { value: value(next, depth - 1, budget / size), enumerable: true, writable: true, configurable: true });
  return object;
}

/** The text with random whitespace (JSON's four) around its structure. */
function spaced(text: string, next: () => number): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    out += char;
    if (inString) {
      if (char === "\\") out += text[++i];
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if ("{}[],:".includes(char) && next() < 0.3) out += [" ", "\n", "\r\n", "\t"][Math.floor(next() * 4)];
  }
  return out;
}

/** As a body of events: large enough to be split, with events of every shape. */
function body(seed: number): string {
  const next = random(seed);
  const batch = Array.from({ length: 100 + Math.floor(next() * 500) }, () => ({ event: "$pageview", distinct_id: `u${Math.floor(next() * 100)}`, properties: value(next, 3, 2000) }));
  const document = next() < 0.3 ? batch : { api_key: "phc_x", batch, sent_at: "2026-11-30T00:00:00.000Z", extra: value(next, 2, 200) };
  return next() < 0.5 ? spaced(JSON.stringify(document), next) : JSON.stringify(document);
}

/** JSON.parse's value, compared by its text (key order included) and its own "__proto__" keys. */
async function same(bytes: Buffer, text: string): Promise<void> {
  const parsed = await parseJsonBytes(bytes);
  expect(JSON.stringify(parsed)).toBe(JSON.stringify(JSON.parse(text)));
  expect(Object.getPrototypeOf(parsed)).toBe(Object.getPrototypeOf(JSON.parse(text)));
}

describe("parseJsonBytes", () => {
  it("gives JSON.parse's value for 200 generated bodies of about 40 to 250 KB, spaced or not", async () => {
    for (let seed = 1; seed <= 200; seed++) {
      const text = body(seed);
      expect(Buffer.byteLength(text), `seed ${seed}`).toBeGreaterThan(32 * 1024);
      await same(Buffer.from(text, "utf8"), text);
    }
  });

  it("lets other callbacks run while it parses a large body (10 MB), between its runs", async () => {
    const text = JSON.stringify({ api_key: "phc_x", batch: Array.from({ length: 40_000 }, (_, i) => ({ event: "e", distinct_id: `u${i}`, properties: { i, text: "x".repeat(200) } })) });
    // Once a turn of the event loop while the parse runs: more than one turn means it yielded.
    let turns = 0;
    let parsing = true;
    const turn = () => {
      turns++;
      if (parsing) setImmediate(turn);
    };
    setImmediate(turn);
    await same(Buffer.from(text), text).finally(() => (parsing = false));
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it("keeps JSON.parse's rules for keys: '__proto__' an own key, the last of a repeated key in its first place, integer keys first", async () => {
    const long = "y".repeat(20_000);
    const text = `{"b":1,"__proto__":{"polluted":true},"a":"${long}","b":2,"2":"two","1":"one","batch":[{"__proto__":{"x":1}},"${long}",{"k":1,"k":2}],"b":3}`;
    const parsed = (await parseJsonBytes(Buffer.from(text))) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(["1", "2", "b", "__proto__", "a", "batch"]);
    expect(parsed.b).toBe(3);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn((parsed.batch as object[])[0]!, "__proto__")).toBe(true);
    await same(Buffer.from(text), text);
  });

  it("reads values of any size at either level: tiny elements by the thousand, one string of 300 KB, empty containers", async () => {
    for (const text of [
      `[${Array.from({ length: 50_000 }, (_, i) => i % 7).join(",")}]`,
      `{"batch":[${Array.from({ length: 20_000 }, () => "{}").join(", ")}], "data": [], "x": {}}`,
      `{"data":"${"é".repeat(150_000)}","batch":[[], {}, "", 0, [[[[1]]]]]}`,
      ` \n\t{ "batch" : [ ${Array.from({ length: 2_000 }, (_, i) => `{"i":${i},"s":"${"z".repeat(i % 50)}"}`).join(" , ")} ] } \r\n`,
      "[]",
      " {} ",
      "12",
      '"text"',
    ])
      await same(Buffer.from(text), text);
  });

  it("throws wherever JSON.parse throws: structure broken at either level, trailing commas, two documents, a BOM", async () => {
    const events = Array.from({ length: 300 }, (_, i) => `{"event":"e${i}","properties":{"s":"${"v".repeat(100)}"}}`).join(",");
    for (const text of [
      `{"batch":[${events},]}`,
      `{"batch":[${events}],}`,
      `{"batch":[${events}]`,
      `{"batch":[${events}]}}`,
      `{"batch":[${events}]} {}`,
      `{"batch":[${events}] "x":1}`,
      `{"batch" [${events}]}`,
      `{batch:[${events}]}`,
      `{"batch":[${events},,{}]}`,
      `{"batch":[${events}}]`,
      `{"batch":[${events}],"s":"unterminated}`,
      `[${events}`,
      `[,${events}]`,
      `\uFEFF{"batch":[${events}]}`,
      `{"batch":[${events.replace('"e7"', "'e7'")}]}`,
      `{"batch":[${events.replace('"e9"', "e9")}]}`,
      `{"batch":[${events}],"n":01}`,
      `{"batch":[${events}],"n":1.}`,
      `{"batch":[${events}],"t":tru}`,
      "",
      "   ",
    ]) {
      expect(() => JSON.parse(text), text.slice(0, 40)).toThrow();
      await expect(parseJsonBytes(Buffer.from(text)), text.slice(0, 40)).rejects.toThrow();
    }
  });

  it("after any one byte of a body is changed, answers exactly when JSON.parse does, with its value (1,000 mutations)", async () => {
    const next = random(7);
    const base = Buffer.from(body(3), "utf8");
    const structural = [0x22, 0x5c, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d, 0x20, 0x30, 0x74];
    for (let n = 0; n < 1_000; n++) {
      const bytes = Buffer.from(base);
      const at = Math.floor(next() * bytes.length);
      bytes[at] = structural[Math.floor(next() * structural.length)]!;
      const text = bytes.toString("utf8");
      let expected: unknown;
      try {
        expected = JSON.parse(text);
      } catch {
        await expect(parseJsonBytes(bytes), `byte ${at}`).rejects.toThrow();
        continue;
      }
      expect(JSON.stringify(await parseJsonBytes(bytes)), `byte ${at}`).toBe(JSON.stringify(expected));
    }
  });

  it("refuses nesting past MAX_BODY_DEPTH at any level, in short and long bodies, objects and arrays alike, and reads the limit itself", async () => {
    const nest = (levels: number, open = "[", close = "]") => `${open.repeat(levels)}${close.repeat(levels)}`;
    const objects = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`;
    const pad = `"${"p".repeat(40_000)}"`;
    const documents = (levels: number) => [
      nest(levels),
      objects(levels),
      `{"batch":[${nest(levels - 2)}]}`,
      `{"pad":${pad},"batch":[${pad},${nest(levels - 2)}]}`,
      `{"pad":${pad},"deep":${objects(levels - 1)}}`,
      `[${pad},{"properties":${objects(levels - 2)}}]`,
      `${nest(levels)}${" ".repeat(40_000)}`,
    ];
    for (const text of documents(MAX_BODY_DEPTH)) await same(Buffer.from(text), text);
    for (const text of documents(MAX_BODY_DEPTH + 1)) await expect(parseJsonBytes(Buffer.from(text)), text.slice(0, 30)).rejects.toThrow(JsonTooDeep);
  });
});
