import { gunzipSync } from "node:zlib";
import LZString from "lz-string";
import { IngestionError, invalidPayload } from "./errors";

/** Largest accepted body, compressed or not (PostHog's /batch limit). */
export const MAX_PAYLOAD_BYTES = 20 * 1024 * 1024;

const tooLarge = () => new IngestionError(413, "request_too_large", `Request too large: bodies are limited to ${MAX_PAYLOAD_BYTES} bytes.`);

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 0x08;
}

function gunzip(bytes: Uint8Array): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_PAYLOAD_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
    throw invalidPayload("Malformed request data: the body is not valid gzip.");
  }
}

function fromBase64(text: string): string {
  // posthog-js's base64 may arrive URL-encoded, with spaces for '+', or unpadded.
  const cleaned = text.trim().replace(/ /g, "+");
  if (!/^[A-Za-z0-9+/=_-]*$/.test(cleaned)) throw invalidPayload("Malformed request data: the body is not valid base64.");
  return Buffer.from(cleaned, "base64").toString("utf8");
}

function fromLz64(text: string): string {
  let out: string | null;
  try {
    // lz-string throws a TypeError on some malformed input instead of returning null.
    out = LZString.decompressFromBase64(text.trim().replace(/ /g, "+"));
  } catch {
    out = null;
  }
  if (!out) throw invalidPayload("Malformed request data: the body is not valid lz64.");
  // lz64 expands quadratically at worst: hold it to the same limit as gzip.
  if (out.length > MAX_PAYLOAD_BYTES) throw tooLarge();
  return out;
}

type Compression = "gzip" | "base64" | "lz64" | null;

function compressionOf(url: URL): Compression {
  const hint = (url.searchParams.get("compression") ?? "").toLowerCase();
  if (hint === "gzip" || hint === "gzip-js") return "gzip";
  if (hint === "base64") return "base64";
  if (hint === "lz64" || hint === "lz-string") return "lz64";
  return null;
}

/** The text of a `data=` value: base64, lz64 or plain JSON, whatever the hint says. */
function decodeDataField(value: string, compression: Compression): string {
  if (compression === "lz64") return fromLz64(value);
  const trimmed = value.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return trimmed;
  return fromBase64(trimmed);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Legacy endpoints: a payload that is still base64 after decompression.
    const trimmed = text.trim();
    if (/^[A-Za-z0-9+/=\s]+$/.test(trimmed) && trimmed.length > 0) {
      try {
        return JSON.parse(fromBase64(trimmed));
      } catch {
        /* fall through to the error below */
      }
    }
    throw invalidPayload("Malformed request data: the body is not valid JSON.");
  }
}

export interface DecodedRequest {
  payload: unknown;
  /** `sent_at` from the query (`sent_at` or `_`, in ms), if given. */
  querySentAt: Date | null;
  /** The body's form fields or query, for the project key of form posts. */
  formToken: string | null;
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
 * text/plain with no hint); `?compression=base64|lz64`; form bodies and GET with `data=`.
 */
export function decodeRequest(method: string, url: URL, headers: { get(name: string): string | null }, body: Uint8Array): DecodedRequest {
  if (body.length > MAX_PAYLOAD_BYTES) throw tooLarge();
  const compression = compressionOf(url);
  const sentAt = querySentAt(url);

  if (method === "GET") {
    const data = url.searchParams.get("data");
    if (!data) throw new IngestionError(400, "no_data", "No data found. Send the payload in the body of a POST, or as ?data= on a GET.");
    return { payload: parseJson(decodeDataField(data, compression)), querySentAt: sentAt, formToken: url.searchParams.get("token") ?? url.searchParams.get("api_key") };
  }

  if (body.length === 0) throw new IngestionError(400, "no_data", "No data found. Make sure to use a POST request when sending the payload in the body of the request.");
  let bytes: Uint8Array = body;
  const encoding = (headers.get("content-encoding") ?? "").toLowerCase();
  if (encoding === "gzip" || compression === "gzip" || isGzip(bytes)) bytes = gunzip(bytes);

  const contentType = (headers.get("content-type") ?? "").toLowerCase();
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (contentType.startsWith("application/x-www-form-urlencoded")) {
    const form = new URLSearchParams(text);
    const data = form.get("data");
    if (data === null) throw new IngestionError(400, "no_data", "No data found: a form body needs a data= field.");
    return { payload: parseJson(decodeDataField(data, compression)), querySentAt: sentAt, formToken: form.get("api_key") ?? form.get("token") };
  }
  if (compression === "base64") return { payload: parseJson(fromBase64(text)), querySentAt: sentAt, formToken: null };
  if (compression === "lz64") return { payload: parseJson(fromLz64(text)), querySentAt: sentAt, formToken: null };
  return { payload: parseJson(text), querySentAt: sentAt, formToken: null };
}
