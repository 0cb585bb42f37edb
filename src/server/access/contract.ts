/**
 * The dashboard permission levels and messages of PostHog's API, shared by the contracts,
 * the rules (service.ts) and the admin UI. Browser-safe.
 */

/** `restriction_level`: who may edit. */
export const RestrictionLevel = {
  /** Everyone in the project can edit. */
  everyoneInProjectCanEdit: 21,
  /** Only the owner, project admins and collaborators can edit. */
  onlyCollaboratorsCanEdit: 37,
} as const;

/** `effective_privilege_level` and a collaborator's `level`: what a user may do. */
export const PrivilegeLevel = { canView: 21, canEdit: 37 } as const;

export const NO_EDIT_PERMISSION = "You don't have edit permissions for this dashboard.";

export const NO_INSIGHT_EDIT_PERMISSION =
  "This insight is on a dashboard that can only be edited by its owner, team members invited to editing the dashboard, and project admins.";
