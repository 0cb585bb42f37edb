/**
 * For tests: the shared dashboard with every insight tile's chart in it, once all are
 * computed — what the public page shows when its stream has ended, read through the page's
 * own path (findSharedDashboardCharting).
 */
import type { SharedDashboard } from "@/server/dashboards/present";
import type { Database } from "@/server/db/client";
import { findSharedDashboardCharting } from "@/server/sharing/service";

export async function findSharedDashboardWithCharts(db: Database, token: string): Promise<SharedDashboard | null> {
  const found = await findSharedDashboardCharting(db, token);
  if (!found) return null;
  const tiles = await Promise.all(
    found.dashboard.tiles.map(async (tile) => (tile.insight && found.charts[tile.id] ? { ...tile, insight: { ...tile.insight, computation: await found.charts[tile.id]! } } : tile)),
  );
  return { ...found.dashboard, tiles };
}
