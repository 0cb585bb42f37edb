import { getDb } from "@/server/db";
import { checkDatabase, isWarm } from "@/server/health/service";
import { jsonResponse, type RawResponse } from "@/server/http/raw";

const ok = (body: object, status = 200) => jsonResponse(status, body, { "cache-control": "no-store" });

/** `GET /_health`: the process is up. */
export async function handleHealth(): Promise<RawResponse> {
  return ok({ status: "ok" });
}

/** `GET /_ready`: warmed up, and the database answers within two seconds. */
export async function handleReady(): Promise<RawResponse> {
  if (!isWarm()) return ok({ status: "starting", database: "warming up" }, 503);
  try {
    await checkDatabase(await getDb());
    return ok({ status: "ok", database: "ok" });
  } catch (error) {
    return ok({ status: "unavailable", database: error instanceof Error ? error.message : String(error) }, 503);
  }
}
