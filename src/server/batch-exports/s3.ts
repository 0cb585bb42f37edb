/**
 * The S3 request a batch export makes (PUT an object), signed with AWS
 * Signature Version 4 by hand: one request does not need the AWS SDK's few hundred files. Sent
 * through the outbound client, so the endpoint obeys the address rules and the allowlist.
 * Path-style addressing (`<endpoint>/<bucket>/<key>`) unless virtual-style is asked for.
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

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
/** RFC 3986 encoding of one path segment, as SigV4 wants it. */
const encodeSegment = (segment: string) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export function objectUrl(target: S3Target, key: string): URL {
  const path = key.split("/").map(encodeSegment).join("/");
  const base = target.endpoint ? new URL(target.endpoint) : new URL(`https://s3.${target.region}.amazonaws.com`);
  if (target.virtualStyle) return new URL(`${base.protocol}//${target.bucket}.${base.host}/${path}`);
  return new URL(`${base.protocol}//${base.host}${base.pathname.replace(/\/$/, "")}/${target.bucket}/${path}`);
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

function failed(what: string, answer: OutboundResponse): S3Error {
  const code = /<Code>([^<]*)<\/Code>/.exec(answer.body)?.[1];
  const message = /<Message>([^<]*)<\/Message>/.exec(answer.body)?.[1];
  return new S3Error(`S3 ${what} failed with status ${answer.status}${code ? `: ${code}` : ""}${message ? ` (${message})` : ""}`, answer.status);
}

/** PUT one object; the same key again replaces it (a re-run of an interval). */
export async function putObject(target: S3Target, key: string, body: Buffer, contentType: string, timeoutMs: number): Promise<void> {
  const url = objectUrl(target, key);
  const headers = signedHeaders(target, "PUT", url, sha256(body), { "content-type": contentType });
  const answer = await outboundRequest({ url: url.href, method: "PUT", headers, body, timeoutMs });
  if (answer.status >= 300) throw failed(`PUT ${key}`, answer);
}
