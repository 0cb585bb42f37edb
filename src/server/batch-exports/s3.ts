/**
 * The S3 requests a batch export makes, signed with AWS Signature Version 4 by hand (a few
 * requests do not need the AWS SDK's few hundred files): PUT an object; an object written as
 * it grows (ObjectUpload: a single PUT while it fits in one part, else a multipart upload);
 * list keys under a prefix and delete one (a re-run's stale split files). Sent through the
 * outbound client, so the endpoint obeys the address rules and the allowlist. Path-style
 * addressing (`<endpoint>/<bucket>/<key>`) unless virtual-style is asked for.
 */
import { createHash, createHmac } from "node:crypto";
import { outboundRequest, type OutboundResponse } from "@/server/outbound/service";

export interface S3Target {
  endpoint: string | null;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  virtualStyle: boolean;
}

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
/** RFC 3986 encoding of one path segment, as SigV4 wants it. */
const encodeSegment = (segment: string) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The bucket's URL (a listing's), with a query. */
export function bucketUrl(target: S3Target, query: Record<string, string> = {}): URL {
  const base = target.endpoint ? new URL(target.endpoint) : new URL(`https://s3.${target.region}.amazonaws.com`);
  const url = target.virtualStyle ? new URL(`${base.protocol}//${target.bucket}.${base.host}/`) : new URL(`${base.protocol}//${base.host}${base.pathname.replace(/\/$/, "")}/${target.bucket}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url;
}

export function objectUrl(target: S3Target, key: string, query: Record<string, string> = {}): URL {
  const path = key.split("/").map(encodeSegment).join("/");
  const bucket = bucketUrl(target);
  const url = new URL(`${bucket.origin}${bucket.pathname.replace(/\/$/, "")}/${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url;
}

/** The SigV4 headers of a request (payload hash included). */
export function signedHeaders(target: S3Target, method: string, url: URL, payloadHash: string, extra: Record<string, string>, now = new Date()): Record<string, string> {
  const amzDate = now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = { ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k.toLowerCase(), v])), host: url.host, "x-amz-content-sha256": payloadHash, "x-amz-date": amzDate };
  const names = Object.keys(headers).sort();
  const query = [...url.searchParams].map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).sort();
  const canonical = [method, url.pathname, query.join("&"), ...names.map((n) => `${n}:${headers[n]!.trim()}`), "", names.join(";"), payloadHash].join("\n");
  const scope = `${day}/${target.region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${target.secretAccessKey}`, day), target.region), "s3"), "aws4_request");
  const signature = createHmac("sha256", key).update(toSign).digest("hex");
  delete headers.host;
  return { ...headers, authorization: `AWS4-HMAC-SHA256 Credential=${target.accessKeyId}/${scope}, SignedHeaders=${names.join(";")}, Signature=${signature}` };
}

export class S3Error extends Error {
  override name = "S3Error";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const xmlText = (body: string, tag: string) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(body)?.[1];
const unescapeXml = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function failed(what: string, answer: Pick<OutboundResponse, "status" | "body">): S3Error {
  const code = xmlText(answer.body, "Code");
  const message = xmlText(answer.body, "Message");
  return new S3Error(`S3 ${what} failed with status ${answer.status}${code ? `: ${code}` : ""}${message ? ` (${message})` : ""}`, answer.status);
}

/** One signed request; an answer of 300 or more is an S3Error. */
async function send(target: S3Target, method: string, url: URL, what: string, timeoutMs: number, body?: Uint8Array | string, headers: Record<string, string> = {}, maxBodyBytes?: number): Promise<OutboundResponse> {
  const payload = body === undefined ? "" : body;
  const signed = signedHeaders(target, method, url, sha256(payload), headers);
  const answer = await outboundRequest({ url: url.href, method, headers: signed, body: body === undefined ? undefined : typeof body === "string" ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength), timeoutMs, maxBodyBytes });
  if (answer.status >= 300) throw failed(what, answer);
  return answer;
}

/** PUT one object; the same key again replaces it (a re-run of an interval). */
export async function putObject(target: S3Target, key: string, body: Uint8Array | string, contentType: string, timeoutMs: number): Promise<void> {
  await send(target, "PUT", objectUrl(target, key), `PUT ${key}`, timeoutMs, body, { "content-type": contentType });
}

export async function deleteObject(target: S3Target, key: string, timeoutMs: number): Promise<void> {
  await send(target, "DELETE", objectUrl(target, key), `DELETE ${key}`, timeoutMs);
}

/**
 * Bounds of a listing. A real one under an interval's split prefix is a page or two, its
 * stale files fewer than an earlier run wrote; an endpoint that answers page after page (or
 * the same continuation token again) fails the listing instead of growing it until memory
 * runs out.
 */
export const MAX_LIST_PAGES = 100;
export const MAX_LISTED_KEYS = 10_000;
/** S3's longest key; a longer one is not a key of the bucket's. */
const MAX_KEY_BYTES = 1024;

/** The keys under a prefix (ListObjectsV2, a page of 1,000 at a time) that `keep` takes. */
export async function listKeys(target: S3Target, prefix: string, timeoutMs: number, keep: (key: string) => boolean = () => true): Promise<string[]> {
  const keys: string[] = [];
  const seen = new Set<string>();
  let token: string | undefined;
  for (let page = 0; ; page++) {
    if (page === MAX_LIST_PAGES) throw new Error(`S3 list of ${prefix} went on past ${MAX_LIST_PAGES} pages; the endpoint's ListObjectsV2 does not end.`);
    const url = bucketUrl(target, { "list-type": "2", prefix, ...(token ? { "continuation-token": token } : {}) });
    const answer = await send(target, "GET", url, `list of ${prefix}`, timeoutMs, undefined, {}, 4 * 1024 * 1024);
    for (const match of answer.body.matchAll(/<Key>([^<]*)<\/Key>/g)) {
      const key = unescapeXml(match[1]!);
      if (Buffer.byteLength(key) > MAX_KEY_BYTES || !keep(key)) continue;
      if (keys.length === MAX_LISTED_KEYS) throw new Error(`S3 list of ${prefix} answered more than ${MAX_LISTED_KEYS} of the keys asked for.`);
      keys.push(key);
    }
    token = xmlText(answer.body, "IsTruncated") === "true" ? xmlText(answer.body, "NextContinuationToken") : undefined;
    if (!token) return keys;
    // Tokens seen are kept as digests: a hostile one may be megabytes.
    const digest = sha256(token);
    if (seen.has(digest)) throw new Error(`S3 list of ${prefix} answered the continuation token it had already answered; the endpoint's ListObjectsV2 does not end.`);
    seen.add(digest);
  }
}

/** S3's smallest part but the last. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** S3's most parts of one upload: the part size doubles every PART_SIZE_STEP parts, so a file is never cut short. */
const MAX_PARTS = 10_000;
const PART_SIZE_STEP = 1_000;

/**
 * One object written as it grows, holding at most one part in memory: while it fits in one
 * part it is sent with a single PUT at `finish()`; past that, as a multipart upload, a part
 * each time the buffer fills (parts of `partBytes`, S3's 5 MiB at least), completed at
 * `finish()`. The key is written only when it completes, whole: `abort()` (a run that fails
 * or stops) aborts the upload, and a later run's upload to the same key replaces it.
 */
export class ObjectUpload {
  /** Bytes written so far. */
  bytes = 0;
  private part: Buffer | null = null;
  private filled = 0;
  private uploadId: string | null = null;
  private readonly parts: { number: number; etag: string }[] = [];
  private done = false;

  constructor(
    private readonly target: S3Target,
    readonly key: string,
    private readonly contentType: string,
    private readonly partBytes: number,
    private readonly timeoutMs: number,
  ) {
    if (partBytes < MIN_PART_BYTES) throw new Error(`S3 parts are ${MIN_PART_BYTES} bytes at least.`);
  }

  /** The size of the part being filled. */
  private partSize(): number {
    return this.partBytes * 2 ** Math.floor(this.parts.length / PART_SIZE_STEP);
  }

  async write(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      const size = this.partSize();
      if (!this.part || this.part.length !== size) this.part = Buffer.concat([this.part?.subarray(0, this.filled) ?? Buffer.alloc(0)], size);
      const taken = Math.min(size - this.filled, chunk.length - offset);
      this.part.set(chunk.subarray(offset, offset + taken), this.filled);
      this.filled += taken;
      offset += taken;
      this.bytes += taken;
      if (this.filled === size) await this.sendPart();
    }
  }

  private async sendPart(): Promise<void> {
    if (this.parts.length >= MAX_PARTS) throw new Error(`S3 takes at most ${MAX_PARTS} parts of one upload.`);
    if (this.uploadId === null) {
      const created = await send(this.target, "POST", objectUrl(this.target, this.key, { uploads: "" }), `CreateMultipartUpload of ${this.key}`, this.timeoutMs, undefined, { "content-type": this.contentType });
      this.uploadId = xmlText(created.body, "UploadId") ?? null;
      if (!this.uploadId) throw new S3Error(`S3 CreateMultipartUpload of ${this.key} answered no UploadId`, created.status);
    }
    const number = this.parts.length + 1;
    const body = this.part!.subarray(0, this.filled);
    const answer = await send(this.target, "PUT", objectUrl(this.target, this.key, { partNumber: String(number), uploadId: this.uploadId }), `UploadPart ${number} of ${this.key}`, this.timeoutMs, body);
    const etag = answer.headers.etag;
    if (typeof etag !== "string") throw new S3Error(`S3 UploadPart ${number} of ${this.key} answered no ETag`, answer.status);
    this.parts.push({ number, etag });
    this.filled = 0;
  }

  /** Writes the key: the single PUT, or the last part and the completion. */
  async finish(): Promise<void> {
    if (this.uploadId === null) {
      await putObject(this.target, this.key, this.part?.subarray(0, this.filled) ?? Buffer.alloc(0), this.contentType, this.timeoutMs);
    } else {
      if (this.filled > 0) await this.sendPart();
      const xml = `<CompleteMultipartUpload>${this.parts.map((p) => `<Part><PartNumber>${p.number}</PartNumber><ETag>${escapeXml(p.etag)}</ETag></Part>`).join("")}</CompleteMultipartUpload>`;
      const answer = await send(this.target, "POST", objectUrl(this.target, this.key, { uploadId: this.uploadId }), `CompleteMultipartUpload of ${this.key}`, this.timeoutMs, xml, { "content-type": "application/xml" });
      // S3 may answer 200 and put the failure in the body.
      if (/<Error>/.test(answer.body)) throw failed(`CompleteMultipartUpload of ${this.key}`, { status: 500, body: answer.body });
    }
    this.done = true;
    this.part = null;
  }

  /** Aborts an upload under way (best effort: the key is not written either way, and an incomplete upload left behind is S3's to expire). */
  async abort(): Promise<void> {
    this.part = null;
    if (this.done || this.uploadId === null) return;
    this.done = true;
    await send(this.target, "DELETE", objectUrl(this.target, this.key, { uploadId: this.uploadId }), `AbortMultipartUpload of ${this.key}`, this.timeoutMs).catch(() => undefined);
  }
}
