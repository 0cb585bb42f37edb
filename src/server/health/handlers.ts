import { getDb } from "@/server/db";
import { jsonResponse, type RawResponse } from "@/server/http/raw";

const READY_TIMEOUT_MS = 2_000;

const ok = (body: object, status = 200) => jsonResponse(status, body, { "cache-control": "no-store" });

/** `GET /_health`: the process is up. */
export async function handleHealth(): Promise<RawResponse> {
  return ok({ status: "ok" });
}

/** `GET /_ready`: the database answers, within two seconds. */
export async function handleReady(): Promise<RawResponse> {
  try {
    const db = await getDb();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the database did not answer within 2 s")), READY_TIMEOUT_MS);
    });
    await Promise.race([db.sql.query("SELECT 1"), timeout]).finally(() => clearTimeout(timer));
    return ok({ status: "ok", database: "ok" });
  } catch (error) {
    return ok({ status: "unavailable", database: error instanceof Error ? error.message : String(error) }, 503);
  }
}
