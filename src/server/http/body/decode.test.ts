/**
 * decodeRequest: every encoding the PostHog SDKs send becomes one JSON value, and every
 * malformed body becomes an IngestionError (400/413) with a clear detail, never a crash.
 */
import { gzipSync } from "node:zlib";
import LZString from "lz-string";
import { describe, expect, it } from "vitest";
import { decodeRequest, MAX_PAYLOAD_BYTES } from "./decode";
import { MAX_BODY_DEPTH } from "./json-bytes";
import { IngestionError } from "@/server/ingestion/contract";
import { lz64Bomb } from "./lz64-bomb";

const EVENT = { event: "$pageview", distinct_id: "user-1", properties: { token: "phc_x", $current_url: "https://a.example/ü?q=1+2" } };
const BATCH = { api_key: "phc_x", batch: [EVENT, { ...EVENT, event: "second" }], sent_at: "2025-01-01T00:00:00.000Z" };

const enc = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64");

function post(path: string, body: Uint8Array | string, headers: Record<string, string> = {}) {
  return decodeRequest("POST", new URL(path, "http://burrow.test"), new Headers(headers), typeof body === "string" ? enc(body) : body);
}
function get(path: string) {
  return decodeRequest("GET", new URL(path, "http://burrow.test"), new Headers(), new Uint8Array());
}

async function errorOf(fn: () => unknown): Promise<IngestionError> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(IngestionError);
    return error as IngestionError;
  }
  throw new Error("expected an IngestionError, got a result");
}

/** A base64 payload with at least one '+' in it, to prove '+'→' ' survives. */
function payloadWithPlus(): { value: unknown; base64: string } {
  for (let i = 0; ; i++) {
    const value = { ...BATCH, sent_at: undefined, pad: "x".repeat(i), marker: ">>>?" };
    const base64 = b64(value);
    if (base64.includes("+")) return { value: JSON.parse(JSON.stringify(value)), base64 };
  }
}

describe("decodeRequest: encodings the SDKs send", () => {
  it("parses a plain JSON object body", async () => {
    expect((await post("/batch/", JSON.stringify(BATCH), { "content-type": "application/json" })).payload).toEqual(BATCH);
  });

  it("parses a JSON array body", async () => {
    expect((await post("/e/", JSON.stringify([EVENT, EVENT]))).payload).toEqual([EVENT, EVENT]);
  });

  it("gunzips a body sent with Content-Encoding: gzip (posthog-node)", async () => {
    const body = gzipSync(JSON.stringify(BATCH));
    expect((await post("/batch/", body, { "content-type": "application/json", "content-encoding": "gzip" })).payload).toEqual(BATCH);
  });

  it.each(["gzip", "gzip-js", "GZIP"])("gunzips a body with ?compression=%s", async (hint) => {
    expect((await post(`/e/?compression=${hint}`, gzipSync(JSON.stringify([EVENT])))).payload).toEqual([EVENT]);
  });

  it("sniffs gzip from the magic bytes of a text/plain body with no hint (current posthog-js)", async () => {
    const body = gzipSync(JSON.stringify(BATCH), { level: 6 });
    expect([...body.subarray(0, 3)]).toEqual([0x1f, 0x8b, 0x08]);
    expect((await post("/e/?ver=1.449.2", body, { "content-type": "text/plain" })).payload).toEqual(BATCH);
  });

  it("decodes a raw base64 body with ?compression=base64", async () => {
    expect((await post("/e/?compression=base64", b64(BATCH), { "content-type": "text/plain" })).payload).toEqual(BATCH);
  });

  it("decodes a form body data=<base64> with ?compression=base64 (sendBeacon), URL-encoded", async () => {
    const { value, base64 } = payloadWithPlus();
    const body = `data=${encodeURIComponent(base64)}`;
    expect((await post("/e/?compression=base64", body, { "content-type": "application/x-www-form-urlencoded" })).payload).toEqual(value);
  });

  it("decodes a form data= whose '+' characters arrived as spaces (not URL-encoded)", async () => {
    const { value, base64 } = payloadWithPlus();
    const body = `data=${base64}`; // '+' is a space in form encoding
    expect((await post("/e/?compression=base64", body, { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" })).payload).toEqual(value);
  });

  it("decodes form data= holding base64 even without a compression hint", async () => {
    expect((await post("/e/", `data=${encodeURIComponent(b64(EVENT))}`, { "content-type": "application/x-www-form-urlencoded" })).payload).toEqual(EVENT);
  });

  it("decodes form data= holding plain JSON", async () => {
    expect((await post("/e/", `data=${encodeURIComponent(JSON.stringify(EVENT))}`, { "content-type": "application/x-www-form-urlencoded" })).payload).toEqual(EVENT);
  });

  it("takes the project key of a form body from its api_key or token field", async () => {
    const decoded = await post("/e/", `data=${encodeURIComponent(b64(EVENT))}&api_key=phc_form`, { "content-type": "application/x-www-form-urlencoded" });
    expect(decoded.formToken).toBe("phc_form");
    const byToken = await post("/e/", `token=phc_tok&data=${encodeURIComponent(b64(EVENT))}`, { "content-type": "application/x-www-form-urlencoded" });
    expect(byToken.formToken).toBe("phc_tok");
  });

  it.each(["lz64", "lz-string"])("decodes lz64 (LZString.compressToBase64) as form data= with ?compression=%s", async (hint) => {
    const compressed = LZString.compressToBase64(JSON.stringify(BATCH));
    const body = `data=${encodeURIComponent(compressed)}`;
    expect((await post(`/e/?compression=${hint}`, body, { "content-type": "application/x-www-form-urlencoded" })).payload).toEqual(BATCH);
  });

  it("decodes lz64 form data= whose '+' characters arrived as spaces", async () => {
    let compressed = "";
    for (let i = 0; !compressed.includes("+"); i++) compressed = LZString.compressToBase64(JSON.stringify({ ...BATCH, pad: i }));
    const value = JSON.parse(LZString.decompressFromBase64(compressed));
    expect((await post("/e/?compression=lz64", `data=${compressed}`, { "content-type": "application/x-www-form-urlencoded" })).payload).toEqual(value);
  });

  it("decodes lz64 as a raw body", async () => {
    const compressed = LZString.compressToBase64(JSON.stringify([EVENT]));
    expect((await post("/e/?compression=lz64", compressed, { "content-type": "text/plain" })).payload).toEqual([EVENT]);
  });

  it("decodes GET ?data= holding base64", async () => {
    const decoded = await get(`/e/?data=${encodeURIComponent(b64(EVENT))}`);
    expect(decoded.payload).toEqual(EVENT);
  });

  it("decodes GET ?data= holding JSON, and takes ?token= as the key", async () => {
    const decoded = await get(`/capture/?data=${encodeURIComponent(JSON.stringify(EVENT))}&token=phc_q`);
    expect(decoded.payload).toEqual(EVENT);
    expect(decoded.formToken).toBe("phc_q");
  });

  it("decodes GET ?data= holding lz64 with ?compression=lz64", async () => {
    const decoded = await get(`/e/?compression=lz64&data=${encodeURIComponent(LZString.compressToBase64(JSON.stringify(EVENT)))}`);
    expect(decoded.payload).toEqual(EVENT);
  });

  it("unwraps a plain body that is still base64 (legacy endpoints)", async () => {
    expect((await post("/e/", b64(BATCH))).payload).toEqual(BATCH);
  });
});

describe("decodeRequest: bodies of 32 KB and more are parsed piece by piece (json-bytes.ts), to the same value and the same errors", () => {
  // 100 events with an en dash each: 66K characters, a string V8 would put in its large-object space.
  const LARGE = { api_key: "phc_x", batch: Array.from({ length: 100 }, (_, i) => ({ ...EVENT, properties: { ...EVENT.properties, $title: `Page ${i} – ${"x".repeat(1200)}` } })) };
  const text = JSON.stringify(LARGE);

  it("parses a plain body, a bare array, a gzip body and one with spaces around its structure", async () => {
    expect(Buffer.byteLength(text)).toBeGreaterThan(128 * 1024);
    expect((await post("/batch/", text, { "content-type": "application/json" })).payload).toEqual(LARGE);
    expect((await post("/e/", JSON.stringify(LARGE.batch))).payload).toEqual(LARGE.batch);
    expect((await post("/batch/", gzipSync(text), { "content-encoding": "gzip" })).payload).toEqual(LARGE);
    expect((await post("/e/?compression=gzip-js", gzipSync(text), { "content-type": "text/plain" })).payload).toEqual(LARGE);
    expect((await post("/batch/", `\n { "api_key" : "phc_x" ,\n "batch" : [ ${LARGE.batch.map((e) => JSON.stringify(e)).join(" ,\n ")} ] }\n`)).payload).toEqual(LARGE);
  });

  it("reads an escaped NUL (\\u0000) as JSON.parse does; ingestion makes it storable later", async () => {
    const escaped = text.replace('"event":"$pageview"', '"event":"$page\\u0000view"');
    expect(((await post("/batch/", escaped)).payload as typeof LARGE).batch[0]!.event).toBe("$page\u0000view");
  });

  it("still unwraps a large plain body that is base64 (legacy endpoints)", async () => {
    expect((await post("/e/", b64(LARGE))).payload).toEqual(LARGE);
  });

  it.each([
    ["a trailing comma in the batch", text.replace(/\]\}$/, ",]}")],
    ["an event cut short", text.slice(0, 90_000)],
    ["two documents", `${text} ${text}`],
    ["a broken event in the middle", text.replace('"event":"$pageview"', '"event":$pageview')],
    ["a raw NUL inside a string", text.replace('"event":"$pageview"', '"event":"$page\u0000view"')],
  ])("rejects %s with the plain way's 400", async (_, body) => {
    const error = await errorOf(() => post("/batch/", body, { "content-type": "application/json" }));
    expect(error.status).toBe(400);
    expect(error.message).toBe("Malformed request data: the body is not valid JSON.");
  });
});

describe("decodeRequest: a body nested more than MAX_BODY_DEPTH levels is refused before it is parsed", () => {
  const nest = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
  const refused = async (fn: () => unknown) => {
    const error = await errorOf(fn);
    expect(error.status).toBe(400);
    expect(error.message).toBe(`Malformed request data: the body is nested more than ${MAX_BODY_DEPTH} levels deep.`);
  };
  // Ten million levels: JSON.parse alone held the thread 8–11 s on them.
  const HUGE = `{"api_key":"phc_x","batch":${nest(10_000_000)}}`;

  it("refuses 20 MB of nesting as JSON and gzip, and deep nesting as legacy base64 and lz64", async () => {
    await refused(() => post("/batch/", HUGE, { "content-type": "application/json" }));
    await refused(() => post("/batch/", gzipSync(HUGE), { "content-encoding": "gzip" }));
    await refused(() => post("/e/?compression=lz64", LZString.compressToBase64(nest(100_000))));
    await refused(() => post("/e/", Buffer.from(nest(2_000_000)).toString("base64")));
  });

  it("refuses a short body one level too deep, and reads one at the limit, small or large", async () => {
    await refused(() => post("/e/", nest(MAX_BODY_DEPTH + 1)));
    expect(JSON.stringify((await post("/e/", nest(MAX_BODY_DEPTH))).payload)).toBe(nest(MAX_BODY_DEPTH));
    const pad = `"${"p".repeat(40_000)}"`;
    const large = (levels: number) => `{"pad":${pad},"batch":[${pad},${nest(levels - 2)}]}`;
    await refused(() => post("/batch/", large(MAX_BODY_DEPTH + 1)));
    expect(JSON.stringify((await post("/batch/", large(MAX_BODY_DEPTH))).payload)).toBe(large(MAX_BODY_DEPTH).replace(/\s/g, ""));
  });
});

describe("decodeRequest: the compression hint as a form field (posthog-js sendBeacon, older versions)", () => {
  const FORM = { "content-type": "application/x-www-form-urlencoded" };

  it("decodes data=<lz64>&compression=lz64, also with the hint first and '+' arriving as spaces", async () => {
    let compressed = "";
    for (let i = 0; !compressed.includes("+"); i++) compressed = LZString.compressToBase64(JSON.stringify({ ...BATCH, pad: i }));
    const value = JSON.parse(LZString.decompressFromBase64(compressed));
    expect((await post("/e/", `data=${encodeURIComponent(compressed)}&compression=lz64`, FORM)).payload).toEqual(value);
    expect((await post("/e/", `compression=lz-string&data=${compressed}`, FORM)).payload).toEqual(value);
  });

  it("decodes data=<base64>&compression=base64", async () => {
    const { value, base64 } = payloadWithPlus();
    expect((await post("/e/", `data=${encodeURIComponent(base64)}&compression=base64`, FORM)).payload).toEqual(value);
  });

  it.each(["gzip-js", "gzip"])("decodes data=<gzip> with compression=%s, percent-encoded bytes or base64", async (hint) => {
    const gz = gzipSync(JSON.stringify(BATCH));
    const percentEncoded = [...gz].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
    expect((await post("/e/", `data=${percentEncoded}&compression=${hint}`, FORM)).payload).toEqual(BATCH);
    expect((await post("/e/", `data=${encodeURIComponent(gz.toString("base64"))}&compression=${hint}`, FORM)).payload).toEqual(BATCH);
  });

  it("lets ?compression= win over the form field, as PostHog does", async () => {
    const body = `data=${encodeURIComponent(b64(EVENT))}&compression=lz64`;
    expect((await post("/e/?compression=base64", body, FORM)).payload).toEqual(EVENT);
  });

  it("rejects a gzip hint on a data field that is not gzip with 400", async () => {
    const error = await errorOf(() => post("/e/", `data=${encodeURIComponent(b64(EVENT))}&compression=gzip-js`, FORM));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/not valid gzip/);
  });
});

describe("decodeRequest: sent_at from the query", () => {
  const ms = Date.parse("2025-03-04T05:06:07.890Z");

  it("reads ?sent_at= in milliseconds", async () => {
    expect((await post(`/e/?sent_at=${ms}`, JSON.stringify(EVENT))).querySentAt?.toISOString()).toBe("2025-03-04T05:06:07.890Z");
  });

  it("reads the _ alias in milliseconds (GET)", async () => {
    expect((await get(`/e/?_=${ms}&data=${encodeURIComponent(b64(EVENT))}`)).querySentAt?.toISOString()).toBe("2025-03-04T05:06:07.890Z");
  });

  it("ignores a value in seconds (it would land before 2021)", async () => {
    expect((await post(`/e/?sent_at=${Math.floor(ms / 1000)}`, JSON.stringify(EVENT))).querySentAt).toBeNull();
    expect((await post(`/e/?_=${Math.floor(ms / 1000)}`, JSON.stringify(EVENT))).querySentAt).toBeNull();
  });

  it("ignores a non-numeric or absent value", async () => {
    expect((await post("/e/?sent_at=yesterday", JSON.stringify(EVENT))).querySentAt).toBeNull();
    expect((await post("/e/?sent_at=-5", JSON.stringify(EVENT))).querySentAt).toBeNull();
    expect((await post("/e/", JSON.stringify(EVENT))).querySentAt).toBeNull();
  });
});

describe("decodeRequest: size limits", () => {
  it("documents the limit as 20 MB", () => {
    expect(MAX_PAYLOAD_BYTES).toBe(20 * 1024 * 1024);
  });

  it("rejects a body over 20 MB with 413 request_too_large", async () => {
    const error = await errorOf(() => post("/batch/", new Uint8Array(MAX_PAYLOAD_BYTES + 1).fill(0x20)));
    expect(error.status).toBe(413);
    expect(error.code).toBe("request_too_large");
    expect(error.message).toMatch(/too large/i);
  });

  it("accepts a body of exactly 20 MB up to JSON parsing", async () => {
    const body = new Uint8Array(MAX_PAYLOAD_BYTES).fill(0x20);
    body[0] = 0x5b; // "[" ... spaces ... "]"
    body[body.length - 1] = 0x5d;
    expect((await post("/batch/", body)).payload).toEqual([]);
  });

  it("rejects a small gzip that expands past 20 MB (gzip bomb) with 413", async () => {
    const bomb = gzipSync(Buffer.alloc(MAX_PAYLOAD_BYTES + 1024, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    const error = await errorOf(() => post("/batch/", bomb, { "content-type": "text/plain" }));
    expect(error.status).toBe(413);
    expect(error.code).toBe("request_too_large");
  });

  it("rejects the gzip bomb also when announced by Content-Encoding", async () => {
    const bomb = gzipSync(Buffer.alloc(MAX_PAYLOAD_BYTES * 2, 0x20));
    const error = await errorOf(() => post("/batch/", bomb, { "content-encoding": "gzip" }));
    expect(error.status).toBe(413);
  });
});

describe("decodeRequest: malformed bodies are 400 with a clear detail", () => {
  it("rejects invalid gzip announced by a header", async () => {
    const error = await errorOf(() => post("/batch/", "this is not gzip", { "content-encoding": "gzip" }));
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_payload");
    expect(error.message).toMatch(/not valid gzip/);
  });

  it("rejects invalid gzip announced by ?compression=gzip-js", async () => {
    const error = await errorOf(() => post("/e/?compression=gzip-js", "{\"event\":\"x\"}"));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/gzip/);
  });

  it("rejects a truncated gzip body (magic bytes sniffed)", async () => {
    const full = gzipSync(JSON.stringify(BATCH));
    const error = await errorOf(() => post("/e/", full.subarray(0, full.length - 12), { "content-type": "text/plain" }));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/gzip/);
  });

  it("rejects a base64 body with characters outside the alphabet", async () => {
    const error = await errorOf(() => post("/e/?compression=base64", "%%%not*base64!!!"));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/base64/);
  });

  it("rejects base64 that decodes to something other than JSON", async () => {
    const error = await errorOf(() => post("/e/?compression=base64", Buffer.from("hello world").toString("base64")));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/JSON/);
  });

  it("rejects invalid lz64", async () => {
    const error = await errorOf(() => post("/e/?compression=lz64", "data=%%%%", { "content-type": "application/x-www-form-urlencoded" }));
    expect(error.status).toBe(400);
  });

  it("rejects lz64 on which lz-string itself throws (\"zzzz\") with 400, not a crash", async () => {
    const error = await errorOf(() => post("/e/?compression=lz64", "zzzz"));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/lz64/);
    expect((await errorOf(() => get("/e/?compression=lz64&data=zzzz"))).status).toBe(400);
  });

  it("rejects a small lz64 body that expands past 20 MB (lz64 bomb) with 413", async () => {
    const bomb = lz64Bomb(6_600);
    expect(bomb.length).toBeLessThan(20_000);
    const error = await errorOf(() => post("/e/?compression=lz64", bomb));
    expect(error.status).toBe(413);
  });

  it("rejects the lz64 bomb (55 KB → 289 MB) as form data=, with the hint in the form or the query, and as GET ?data=", async () => {
    const bomb = lz64Bomb(24_000);
    const form = { "content-type": "application/x-www-form-urlencoded" };
    expect((await errorOf(() => post("/e/", `data=${encodeURIComponent(bomb)}&compression=lz64`, form))).status).toBe(413);
    expect((await errorOf(() => post("/engage/?compression=lz64", `data=${encodeURIComponent(bomb)}`, form))).status).toBe(413);
    expect((await errorOf(() => get(`/e/?compression=lz64&data=${encodeURIComponent(bomb)}`))).status).toBe(413);
  });

  it("rejects lz64 whose text is under 20 M characters but over 20 MB as UTF-8 with 413", async () => {
    // 12.5 M × "é": 25 MB as UTF-8.
    expect((await errorOf(() => post("/e/?compression=lz64", lz64Bomb(5_000, "é")))).status).toBe(413);
  });

  it("rejects a body that is not JSON", async () => {
    const error = await errorOf(() => post("/e/", "{\"event\": \"x\", ", { "content-type": "application/json" }));
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_payload");
    expect(error.message).toBe("Malformed request data: the body is not valid JSON.");
  });

  it("rejects an empty POST with 400 no_data", async () => {
    const error = await errorOf(() => post("/e/", new Uint8Array()));
    expect(error.status).toBe(400);
    expect(error.code).toBe("no_data");
    expect(error.message).toMatch(/No data found/);
  });

  it("rejects a GET without data= with 400 no_data", async () => {
    const error = await errorOf(() => get("/e/"));
    expect(error.status).toBe(400);
    expect(error.code).toBe("no_data");
  });

  it("rejects a GET whose data= is garbage", async () => {
    const error = await errorOf(() => get("/e/?data=%F0%9F%92%A9not-json"));
    expect(error.status).toBe(400);
  });

  it("rejects a form body without data=", async () => {
    const error = await errorOf(() => post("/e/", "api_key=phc_x", { "content-type": "application/x-www-form-urlencoded" }));
    expect(error.status).toBe(400);
    expect(error.code).toBe("no_data");
  });
});
