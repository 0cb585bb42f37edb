/** Dashboard collaborators as PostHog's API shows them (DashboardCollaboratorSerializer). */
import { toUserBasic, type UserBasic } from "@/server/accounts/present";
import type { CollaboratorRow } from "./store";

export interface CollaboratorResource {
  id: string;
  dashboard_id: number;
  user: UserBasic;
  level: number;
  added_at: string;
  updated_at: string;
}

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
