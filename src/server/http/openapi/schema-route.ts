/** `GET /api/schema/`: the OpenAPI document as JSON, or YAML with `?format=yaml` (PostHog's path). */
import { createHash } from "node:crypto";
import { AppError } from "@/server/errors";
import { toErrorResponse } from "@/server/http/rest/respond";
import { openApiDocument } from "./document";

const FORMATS = {
  json: "application/json; charset=utf-8",
  yaml: "application/yaml; charset=utf-8",
} as const;

const etags = new Map<string, string>();

export async function schemaResponse(request: Request): Promise<Response> {
  try {
    const format = new URL(request.url).searchParams.get("format") ?? "json";
    if (format !== "json" && format !== "yaml") throw new AppError("invalid_input", "format must be 'json' or 'yaml'.", "format");
    const body = openApiDocument()[format];
    let etag = etags.get(format);
    if (!etag) {
      etag = `"${createHash("sha1").update(body).digest("base64url")}"`;
      etags.set(format, etag);
    }
    // Public and the same for everyone: any origin may read it (API tooling), caches revalidate by ETag.
    const headers = { "content-type": FORMATS[format], etag, "cache-control": "public, no-cache", "access-control-allow-origin": "*" };
    if (request.headers.get("if-none-match")?.split(",").some((tag) => tag.trim() === etag)) return new Response(null, { status: 304, headers });
    return new Response(body, { status: 200, headers });
  } catch (error) {
    return toErrorResponse(error);
  }
}
