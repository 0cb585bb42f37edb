import type { Database } from "@/server/db";
import { ping } from "./store";

const READY_TIMEOUT_MS = 2_000;

/** Resolves once the database answers; rejects if it fails or takes more than two seconds. */
export async function checkDatabase(db: Database): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the database did not answer within 2 s")), READY_TIMEOUT_MS);
  });
  await Promise.race([ping(db), timeout]).finally(() => clearTimeout(timer));
}
