/**
 * Who may do what with a dashboard, as PostHog computes it (posthog/user_permissions.py).
 * Pure functions of the dashboard, the caller and the caller's collaborator row, so the
 * list, the single dashboard, collaborators and sharing all decide the same way.
 */
import { MembershipLevel } from "@/server/accounts/contract";
import { AppError } from "@/server/errors";

/** `restriction_level`: who may edit. */
export const RestrictionLevel = {
  /** Everyone in the project can edit. */
  everyoneInProjectCanEdit: 21,
  /** Only the owner, project admins and collaborators can edit. */
  onlyCollaboratorsCanEdit: 37,
} as const;

/** `effective_privilege_level` and a collaborator's `level`: what a user may do. */
export const PrivilegeLevel = { canView: 21, canEdit: 37 } as const;

/** The caller of a dashboard operation: a user and their standing in the project. */
export interface DashboardActor {
  userId: number;
  /** Organization membership level (1 member, 8 admin, 15 owner); admins are project admins. */
  membershipLevel: number;
}

export interface DashboardPermissions {
  effectiveRestrictionLevel: number;
  effectivePrivilegeLevel: number;
  /** The owner or a project admin: may change the restriction level, and edits always. */
  canRestrict: boolean;
  canEdit: boolean;
}

export const NO_EDIT_PERMISSION = "You don't have edit permissions for this dashboard.";

/**
 * PostHog's rules. Burrow has no licence gate, so the effective restriction level is the
 * stored one. `collaboratorLevel` is the caller's explicit level on this dashboard, if any.
 */
export function dashboardPermissions(
  dashboard: { restrictionLevel: number; createdById: number | null },
  actor: DashboardActor,
  collaboratorLevel: number | null,
): DashboardPermissions {
  const effectiveRestrictionLevel = dashboard.restrictionLevel;
  const canRestrict = isInherentEditor(dashboard, actor);
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
export function isInherentEditor(dashboard: { createdById: number | null }, actor: DashboardActor): boolean {
  return dashboard.createdById === actor.userId || actor.membershipLevel >= MembershipLevel.admin;
}

export const NO_INSIGHT_EDIT_PERMISSION =
  "This insight is on a dashboard that can only be edited by its owner, team members invited to editing the dashboard, and project admins.";

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
export function canEditInsight(dashboards: readonly InsightDashboard[], actor: DashboardActor): boolean {
  if (dashboards.length === 0) return true;
  return dashboards.some((dashboard) => dashboardPermissions(dashboard, actor, dashboard.collaboratorLevel).canEdit);
}

/** Throws PostHog's 403 unless the caller may edit. */
export function assertCanEdit(permissions: DashboardPermissions): void {
  if (!permissions.canEdit) throw new AppError("permission_denied", NO_EDIT_PERMISSION);
}

/** The actor of a request: the signed-in or key-holding user, in the project the path names. */
export function actorOf(user: { id: number }, project: { membershipLevel: number }): DashboardActor {
  return { userId: user.id, membershipLevel: project.membershipLevel };
}
