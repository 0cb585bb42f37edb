import { MembershipLevel, type MembershipLevelName } from "@/server/accounts/contract";

/** member / admin / owner for a membership level (1, 8, 15). */
export function levelName(level: number): MembershipLevelName {
  if (level >= MembershipLevel.owner) return "owner";
  if (level >= MembershipLevel.admin) return "admin";
  return "member";
}

/** Admins and owners manage members, invites and projects. */
export function isAdmin(level: number | null | undefined): boolean {
  return (level ?? 0) >= MembershipLevel.admin;
}
