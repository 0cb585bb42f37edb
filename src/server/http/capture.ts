import { getDb } from "@/server/db";
import { stepAsideForUrgent } from "@/server/event-loop";
import { IngestionError } from "@/server/ingestion/contract";
import { ingestDecoded, ingestionServices, type RequestInfo } from "@/server/ingestion/service";
import { transformationsFor } from "@/server/transformations/service";
import { decodeRequest } from "./body/decode";
import { clientIp } from "./client-ip";
import { corsHeaders } from "./cors";
import { asRouteHandler, jsonResponse, type RawRequest, type RawResponse } from "./raw";

function respond(body: string, status: number, request: RawRequest): RawResponse {
  return jsonResponse(status, body, corsHeaders(request));
}

/**
 * The capture family (`/capture/`, `/batch/`, `/e/`, `/i/v0/e/`, `/track/`, `/engage/`):
 * one handler per kind of path, for the server's fast path and Next's route files alike.
 * Success is `{"status": 1}`; a batch with some bad events stores the rest and lists the
 * dropped ones under `errors`. Bad input is a 4xx with a `detail`, never a 5xx; a database
 * failure is 503 (retry), because nothing was acknowledged.
 */
export function captureHandler(path: RequestInfo["path"]) {
  return async function handleCapture(request: RawRequest): Promise<RawResponse> {
    if (request.method === "OPTIONS") return { status: 204, headers: corsHeaders(request), body: null };
    if (request.method !== "GET" && request.method !== "POST") {
      return respond(JSON.stringify({ type: "invalid_request", code: "method_not_allowed", detail: `Method "${request.method}" not allowed.`, attr: null }), 405, request);
    }
    // Flag requests in progress go first (event-loop.ts); the arrival time stays the request's.
    const now = new Date();
    await stepAsideForUrgent();
    try {
      const url = new URL(request.url, "http://localhost");
      const decoded = await decodeRequest(request.method, url, { get: request.header }, request.body);
      const db = await getDb();
      const services = ingestionServices(db);
      const result = await ingestDecoded(services, decoded, { path, ip: clientIp(request.header), userAgent: request.header("user-agent") ?? null, now }, transformationsFor(db));
      const errors = result.dropped.map(({ index, detail }) => ({ index, detail }));
      return respond(errors.length > 0 ? JSON.stringify({ status: 1, errors }) : '{"status":1}', 200, request);
    } catch (error) {
      if (error instanceof IngestionError) {
        const type = error.status === 401 ? "authentication_error" : "validation_error";
        return respond(JSON.stringify({ type, code: error.code, detail: error.message, attr: null }), error.status, request);
      }
      console.error("burrow: capture failed", error);
      return respond(JSON.stringify({ type: "server_error", code: "transient_error", detail: "Transient error, please retry.", attr: null }), 503, request);
    }
  };
}

/** For the server's fast path. */
export const rawCapture = captureHandler("capture");
export const rawBatch = captureHandler("batch");
export const rawEngage = captureHandler("engage");

/** The same handlers as fetch-style route handlers (route files under src/app, tests). */
export const handleCaptureEvents = asRouteHandler(rawCapture);
export const handleBatch = asRouteHandler(rawBatch);
export const handleEngage = asRouteHandler(rawEngage);
