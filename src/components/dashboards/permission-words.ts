/** Where the reader stands on a dashboard, for the permissions dialog's words. */
export type DashboardRole = "owner" | "admin" | "collaborator" | "viewer";

export function dashboardRole(input: { isCreator: boolean; isAdmin: boolean; canEdit: boolean }): DashboardRole {
  if (input.isCreator) return "owner";
  if (input.isAdmin) return "admin";
  return input.canEdit ? "collaborator" : "viewer";
}

/** The "Only collaborators can edit" option's hint, told to the person reading it. */
export function collaboratorsOnlyHint(role: DashboardRole): string {
  switch (role) {
    case "owner":
      return "Everyone can view it; only you, project admins and the collaborators below can change it.";
    case "admin":
      return "Everyone can view it; only its owner, project admins (you are one) and the collaborators below can change it.";
    case "collaborator":
      return "Everyone can view it; only its owner, project admins and the collaborators below (you are one) can change it.";
    case "viewer":
      return "Everyone can view it; only its owner, project admins and the collaborators below can change it.";
  }
}

/** Below the choices when the reader cannot change them: what they can do. */
export function restrictionNotice(role: DashboardRole): string {
  return role === "collaborator"
    ? "Only the dashboard's owner and project admins can change who edits it. As a collaborator you can edit the dashboard itself."
    : "Only the dashboard's owner and project admins can change who edits it. You can view it.";
}
