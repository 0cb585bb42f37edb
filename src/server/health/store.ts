import type { Database } from "@/server/db";

/** The cheapest query the database can answer. */
export async function ping(db: Database): Promise<void> {
  await db.sql.query("SELECT 1");
}
