/**
 * Who may do what with a dashboard, as PostHog computes it (posthog/user_permissions.py).
 * Pure functions of the dashboard, the caller (a `Context`, or any `Member`) and the caller's
 * collaborator row, so the list, the single dashboard, insights, collaborators and sharing
 * all decide the same way.
 */
import { MembershipLevel } from "@/server/accounts/contract";
import type { Actor, ProjectAccess } from "@/server/context";
import { AppError } from "@/server/errors";
import { NO_EDIT_PERMISSION, PrivilegeLevel, RestrictionLevel } from "./contract";

/**
 * Who asks: a user and their standing in the project. A request's `Context` is one; so is
 * any other member (e.g. a would-be collaborator) written as `{ actor: { id }, project: { membershipLevel } }`.
 */
export interface Member {
  actor: Pick<Actor, "id">;
  /** Organization membership level (1 member, 8 admin, 15 owner); admins are project admins. */
  project: Pick<ProjectAccess, "membershipLevel">;
}

export interface DashboardPermissions {
  effectiveRestrictionLevel: number;
  effectivePrivilegeLevel: number;
  /** The owner or a project admin: may change the restriction level, and edits always. */
  canRestrict: boolean;
  canEdit: boolean;
}

/**
 * PostHog's rules. Burrow has no licence gate, so the effective restriction level is the
 * stored one. `collaboratorLevel` is the caller's explicit level on this dashboard, if any.
 */
export function dashboardPermissions(
  dashboard: { restrictionLevel: number; createdById: number | null },
  member: Member,
  collaboratorLevel: number | null,
): DashboardPermissions {
  const effectiveRestrictionLevel = dashboard.restrictionLevel;
  const canRestrict = isInherentEditor(dashboard, member);
  const effectivePrivilegeLevel =
    effectiveRestrictionLevel <= RestrictionLevel.everyoneInProjectCanEdit || canRestrict
      ? PrivilegeLevel.canEdit
      : (collaboratorLevel ?? PrivilegeLevel.canView);
  return {
    effectiveRestrictionLevel,
    effectivePrivilegeLevel,
    canRestrict,
    canEdit: effectiveRestrictionLevel < RestrictionLevel.onlyCollaboratorsCanEdit || effectivePrivilegeLevel >= PrivilegeLevel.canEdit,
  };
}

/** The dashboard's owner and project admins edit whatever the restriction. */
export function isInherentEditor(dashboard: { createdById: number | null }, member: Member): boolean {
  return dashboard.createdById === member.actor.id || member.project.membershipLevel >= MembershipLevel.admin;
}

/** A dashboard an insight is on, with the caller's collaborator level there (if any). */
export interface InsightDashboard {
  restrictionLevel: number;
  createdById: number | null;
  collaboratorLevel: number | null;
}

/**
 * PostHog's `UserInsightPermissions.effective_privilege_level` (and its `CanEditInsight`):
 * an insight on no dashboard is editable by everyone in the project; otherwise by whoever
 * may edit at least one of its dashboards.
 */
export function canEditInsight(dashboards: readonly InsightDashboard[], member: Member): boolean {
  if (dashboards.length === 0) return true;
  return dashboards.some((dashboard) => dashboardPermissions(dashboard, member, dashboard.collaboratorLevel).canEdit);
}

/** Throws PostHog's 403 unless the caller may edit. */
export function assertCanEdit(permissions: DashboardPermissions): void {
  if (!permissions.canEdit) throw new AppError("permission_denied", NO_EDIT_PERMISSION);
}
