/**
 * `/s/`: posthog-js's session recording snapshots, on the server's fast path. Bodies are
 * bounded while reading (1 MiB on the wire, 8 MiB decoded: 413 beyond) and decoded as
 * capture's (gzip by magic bytes or hint, base64, lz64, form `data=`, plain JSON). The answer
 * is PostHog's `{"status":"Ok"}`, sent only once the chunks are committed; bad input is a 4xx
 * and stores nothing, a database failure a 503 (retry).
 */
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { IngestionError } from "@/server/ingestion/contract";
import { MAX_RECORDING_BODY_BYTES, MAX_RECORDING_DECODED_BYTES } from "@/server/recordings/contract";
import { CAPTURE_MISSING_PROJECT_KEY, INVALID_PROJECT_KEY } from "@/server/accounts/contract";
import { projectByKey } from "@/server/ingestion/service";
import { acceptSnapshots, parseSnapshotRequest } from "@/server/recordings/ingestion";
import { stepAsideForUrgent } from "@/server/event-loop";
import { decodeRequest } from "../body/decode";
import { corsHeaders, corsJson } from "../cors";
import { asRouteHandler, type RawHandler, type RawRequest, type RawResponse } from "../raw";

async function handleSnapshots(request: RawRequest): Promise<RawResponse> {
  if (request.method === "OPTIONS") return { status: 204, headers: corsHeaders(request), body: null };
  if (request.method !== "POST") {
    return corsJson(request, 405, { type: "invalid_request", code: "method_not_allowed", detail: `Method "${request.method}" not allowed.`, attr: null });
  }
  try {
    if (request.body.length > MAX_RECORDING_BODY_BYTES) {
      throw new IngestionError(413, "request_too_large", `Request too large: bodies are limited to ${MAX_RECORDING_BODY_BYTES} bytes.`);
    }
    // Flag requests in progress go first (event-loop.ts).
    await stepAsideForUrgent();
    const url = new URL(request.url, "http://localhost");
    const decoded = await decodeRequest(request.method, url, { get: request.header }, request.body, MAX_RECORDING_DECODED_BYTES);
    const { token, chunks } = parseSnapshotRequest(decoded.payload, decoded.formToken);
    if (!token) throw new IngestionError(401, "no_api_key", CAPTURE_MISSING_PROJECT_KEY);
    const db = await getDb();
    const project = await projectByKey(db, token);
    if (!project) throw new IngestionError(401, "invalid_api_key", INVALID_PROJECT_KEY);
    await acceptSnapshots(db, project.id, chunks);
    return corsJson(request, 200, { status: "Ok" });
  } catch (error) {
    if (error instanceof AppError) return corsJson(request, error.status, { type: "validation_error", code: "invalid_payload", detail: error.message, attr: null });
    if (error instanceof IngestionError) {
      const type = error.status === 401 ? "authentication_error" : "validation_error";
      return corsJson(request, error.status, { type, code: error.code, detail: error.message, attr: null });
    }
    console.error("burrow: recording snapshots failed", error);
    return corsJson(request, 503, { type: "server_error", code: "transient_error", detail: "Transient error, please retry.", attr: null });
  }
}

export const rawSnapshots: RawHandler = Object.assign(handleSnapshots, { maxBodyBytes: MAX_RECORDING_BODY_BYTES });

/** The same handler as a fetch-style route handler (src/app/s, tests). */
export const handleSnapshotsRoute = asRouteHandler(rawSnapshots);
