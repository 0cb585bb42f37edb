/** Dashboard collaborators as PostHog's API shows them (DashboardCollaboratorSerializer). */
import { toUserBasic } from "@/server/accounts/present";
import type { CollaboratorResource } from "./contract";

export type { CollaboratorResource } from "./contract";
import type { CollaboratorRow } from "./store";

export function collaboratorResource(row: CollaboratorRow): CollaboratorResource {
  return {
    id: row.id,
    dashboard_id: row.dashboardId,
    user: toUserBasic(row.user),
    level: row.level,
    added_at: row.addedAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
