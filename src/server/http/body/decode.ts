import { gunzipSync } from "node:zlib";
import { IngestionError, invalidPayload, type DecodedRequest } from "@/server/ingestion/contract";
import { JsonTooDeep, MAX_BODY_DEPTH, parseJsonBytes } from "./json-bytes";
import { decompressLz64, Lz64Malformed, Lz64TooLarge } from "./lz64";

/** Largest accepted body, compressed or not (PostHog's /batch limit). */
export const MAX_PAYLOAD_BYTES = 20 * 1024 * 1024;

const tooLarge = (limit = MAX_PAYLOAD_BYTES) => new IngestionError(413, "request_too_large", `Request too large: bodies are limited to ${limit} bytes.`);

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 0x08;
}

function gunzip(bytes: Uint8Array, limit: number): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(limit);
    throw invalidPayload("Malformed request data: the body is not valid gzip.");
  }
}

function fromBase64(text: string): string {
  // posthog-js's base64 may arrive URL-encoded, with spaces for '+', or unpadded.
  const cleaned = text.trim().replace(/ /g, "+");
  if (!/^[A-Za-z0-9+/=_-]*$/.test(cleaned)) throw invalidPayload("Malformed request data: the body is not valid base64.");
  return Buffer.from(cleaned, "base64").toString("utf8");
}

function fromLz64(text: string, limit: number): string {
  let out: string;
  try {
    // The limit is enforced while decompressing (a 56 KB body can expand to 300 MB). It
    // counts UTF-16 code units, which are never more than the UTF-8 bytes they become.
    out = decompressLz64(text.trim().replace(/ /g, "+"), limit);
  } catch (error) {
    if (error instanceof Lz64TooLarge) throw tooLarge(limit);
    if (error instanceof Lz64Malformed) throw invalidPayload("Malformed request data: the body is not valid lz64.");
    throw error;
  }
  if (!out) throw invalidPayload("Malformed request data: the body is not valid lz64.");
  // As UTF-8 the text can be up to 3× its code units: the same 20 MB as gzip's output.
  if (Buffer.byteLength(out) > limit) throw tooLarge(limit);
  return out;
}

type Compression = "gzip" | "base64" | "lz64" | null;

/** A `compression` hint, from the query or (as PostHog reads it too) a form field. */
function compressionOf(hint: string | null): Compression {
  const value = (hint ?? "").toLowerCase();
  if (value === "gzip" || value === "gzip-js") return "gzip";
  if (value === "base64") return "base64";
  if (value === "lz64" || value === "lz-string") return "lz64";
  return null;
}

const hexDigit = (byte: number) => (byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66 ? (byte | 0x20) - 0x57 : -1);

/**
 * `%XX` escapes decoded to the bytes they name, everything else kept (a `%` without two hex
 * digits too), in one pass over a preallocated buffer. The per-character version it replaces
 * took about 1 s per 5 M characters, a stall a 20 MB form could cause; this takes milliseconds.
 */
function percentDecodedBytes(text: Buffer): Buffer {
  const out = Buffer.allocUnsafe(text.length);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const high = text[i] === 0x25 && i + 2 < text.length ? hexDigit(text[i + 1]!) : -1;
    const low = high === -1 ? -1 : hexDigit(text[i + 2]!);
    if (low === -1) out[length++] = text[i]!;
    else {
      out[length++] = high * 16 + low;
      i += 2;
    }
  }
  return out.subarray(0, length);
}

/**
 * A form (or query) field's value as bytes. URLSearchParams decodes `%XX` as UTF-8, which
 * would mangle the bytes of a gzip value; null when the field is absent.
 */
function fieldBytes(encoded: string, name: string): Buffer | null {
  for (const pair of encoded.split("&")) {
    const eq = pair.indexOf("=");
    if (eq === -1 || pair.slice(0, eq) !== name) continue;
    const value = pair.slice(eq + 1).replace(/\+/g, " ");
    return percentDecodedBytes(Buffer.from(value, "utf8"));
  }
  return null;
}

/** A gzip `data=` value: its bytes percent-encoded, or base64 (a text field carries either). */
function gunzipField(value: string, raw: Buffer | null, limit: number): string {
  if (raw && isGzip(raw)) return gunzip(raw, limit).toString("utf8");
  const cleaned = value.trim().replace(/ /g, "+");
  const decoded = /^[A-Za-z0-9+/=_-]+$/.test(cleaned) ? Buffer.from(cleaned, "base64") : null;
  if (decoded && isGzip(decoded)) return gunzip(decoded, limit).toString("utf8");
  throw invalidPayload("Malformed request data: the data field is not valid gzip.");
}

/** The text of a `data=` value: gzip, base64, lz64 or plain JSON, whatever the hint says. */
function decodeDataField(value: string, raw: Buffer | null, compression: Compression, limit: number): string {
  if (compression === "lz64") return fromLz64(value, limit);
  if (compression === "gzip") return gunzipField(value, raw, limit);
  const trimmed = value.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return trimmed;
  return fromBase64(trimmed);
}

const tooDeep = () => invalidPayload(`Malformed request data: the body is nested more than ${MAX_BODY_DEPTH} levels deep.`);

/**
 * The body's JSON document (json-bytes.ts: large ones in pieces, any nested past MAX_BODY_DEPTH
 * refused before anything is built); a legacy payload still base64 after decompression once.
 */
async function parseJson(source: string | Buffer, base64Retry = true): Promise<unknown> {
  try {
    return await parseJsonBytes(typeof source === "string" ? Buffer.from(source, "utf8") : source);
  } catch (error) {
    if (error instanceof JsonTooDeep) throw tooDeep();
  }
  // Not a document the walk reads: JSON.parse's own answer.
  const text = typeof source === "string" ? source : source.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    const trimmed = text.trim();
    if (base64Retry && /^[A-Za-z0-9+/=\s]+$/.test(trimmed) && trimmed.length > 0) {
      let decoded: string | null = null;
      try {
        decoded = fromBase64(trimmed);
      } catch {
        /* not base64 either: the error below */
      }
      if (decoded !== null) return parseJson(decoded, false);
    }
    throw invalidPayload("Malformed request data: the body is not valid JSON.");
  }
}

function querySentAt(url: URL): Date | null {
  const raw = url.searchParams.get("sent_at") ?? url.searchParams.get("_");
  if (!raw || !/^\d+$/.test(raw)) return null;
  const date = new Date(Number(raw));
  // Seconds instead of milliseconds land before 2021: PostHog ignores those.
  return date.getUTCFullYear() > 2020 ? date : null;
}

/**
 * Everything the SDKs send, to one JSON value: JSON bodies; gzip by header, by
 * `?compression=gzip|gzip-js` or sniffed from the magic bytes (posthog-js sends gzip as
 * text/plain with no hint); `?compression=base64|lz64`; form bodies and GET with `data=`,
 * whose `compression` hint may also be a form field. Every decompression stops at `limit`
 * (20 MB unless the endpoint says less).
 */
export async function decodeRequest(method: string, url: URL, headers: { get(name: string): string | null }, body: Uint8Array, limit = MAX_PAYLOAD_BYTES): Promise<DecodedRequest> {
  if (body.length > limit) throw tooLarge(limit);
  const queryHint = compressionOf(url.searchParams.get("compression"));
  const sentAt = querySentAt(url);

  if (method === "GET") {
    const data = url.searchParams.get("data");
    if (!data) throw new IngestionError(400, "no_data", "No data found. Send the payload in the body of a POST, or as ?data= on a GET.");
    const text = decodeDataField(data, queryHint === "gzip" ? fieldBytes(url.search.slice(1), "data") : null, queryHint, limit);
    return { payload: await parseJson(text), querySentAt: sentAt, formToken: url.searchParams.get("token") ?? url.searchParams.get("api_key") };
  }

  if (body.length === 0) throw new IngestionError(400, "no_data", "No data found. Make sure to use a POST request when sending the payload in the body of the request.");
  const contentType = (headers.get("content-type") ?? "").toLowerCase();
  const isForm = contentType.startsWith("application/x-www-form-urlencoded");
  const encoding = (headers.get("content-encoding") ?? "").toLowerCase();
  let bytes: Uint8Array = body;
  // A gzip hint on a form body that is not itself gzip is about its data= field.
  const bodyIsGzip = encoding === "gzip" || isGzip(bytes) || (queryHint === "gzip" && !isForm);
  if (bodyIsGzip) bytes = gunzip(bytes, limit);

  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isForm) {
    const encoded = buffer.toString("utf8");
    const form = new URLSearchParams(encoded);
    const data = form.get("data");
    if (data === null) throw new IngestionError(400, "no_data", "No data found: a form body needs a data= field.");
    // posthog-js (sendBeacon, older versions) sends `data=…&compression=lz64` in the body;
    // the query's hint wins, as in PostHog.
    let hint = queryHint ?? compressionOf(form.get("compression"));
    if (hint === "gzip" && bodyIsGzip) hint = null;
    const decoded = decodeDataField(data, hint === "gzip" ? fieldBytes(encoded, "data") : null, hint, limit);
    return { payload: await parseJson(decoded), querySentAt: sentAt, formToken: form.get("api_key") ?? form.get("token") };
  }
  if (queryHint === "base64") return { payload: await parseJson(fromBase64(buffer.toString("utf8"))), querySentAt: sentAt, formToken: null };
  if (queryHint === "lz64") return { payload: await parseJson(fromLz64(buffer.toString("utf8"), limit)), querySentAt: sentAt, formToken: null };
  // JSON, gunzipped above when it was gzip (as posthog-js and posthog-node send it): from its bytes.
  return { payload: await parseJson(buffer), querySentAt: sentAt, formToken: null };
}
