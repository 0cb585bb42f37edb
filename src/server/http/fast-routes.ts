import { handleHealth, handleReady } from "@/server/http/health";
import { rawBatch, rawCapture, rawEngage } from "./capture";
import { rawDecide, rawFlags, rawRemoteConfig } from "./sdk/flags";
import { rawFlagDefinitions } from "./sdk/local-evaluation";
import { rawEarlyAccessFeatures, rawSurveys } from "./sdk/product-lists";
import { rawSnapshots } from "./sdk/recordings";
import { rawStaticAsset } from "./sdk/static-assets";
import type { RawHandler } from "./raw";

/**
 * Paths the server answers itself, without Next's router (~1 ms of CPU a request). Each
 * handler is also exported as a route handler under src/app, so `next dev` serves it too.
 * Keys have no trailing slash; both spellings match.
 */
const FAST_ROUTES: ReadonlyMap<string, RawHandler> = new Map([
  ["/_health", handleHealth],
  ["/_ready", handleReady],
  ["/capture", rawCapture],
  ["/e", rawCapture],
  ["/i/v0/e", rawCapture],
  ["/track", rawCapture],
  ["/batch", rawBatch],
  ["/engage", rawEngage],
  ["/s", rawSnapshots],
  ["/decide", rawDecide],
  ["/flags", rawFlags],
  ["/flags/definitions", rawFlagDefinitions],
  ["/api/early_access_features", rawEarlyAccessFeatures],
  ["/api/surveys", rawSurveys],
]);

/** posthog-js's remote configuration: `/array/<project key>/config` and `config.js`. */
const REMOTE_CONFIG_PATH = /^\/array\/[^/]+\/config(\.js)?$/;
/** posthog-js's bundles: `/static/<name>` and `/static/<version>/<name>`. */
const STATIC_ASSET_PATH = /^\/static\/(?:[^/]+\/)?[^/]+$/;

export function matchFastRoute(pathname: string): RawHandler | undefined {
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  const route = FAST_ROUTES.get(path);
  if (route) return route;
  if (REMOTE_CONFIG_PATH.test(path)) return rawRemoteConfig;
  return STATIC_ASSET_PATH.test(path) ? rawStaticAsset : undefined;
}
