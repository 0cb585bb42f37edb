/** PostHog's dashboard permission rules, case by case. */
import { describe, expect, it } from "vitest";
import { dashboardPermissions } from "./service";

const OWNER = 1;
const as = (id: number, membershipLevel: number) => ({ actor: { id }, project: { membershipLevel } });
const member = as(2, 1);
const admin = as(3, 8);
const orgOwner = as(4, 15);
const creator = as(OWNER, 1);

describe("dashboardPermissions", () => {
  it.each([
    // [restriction, actor, collaborator level, privilege, canEdit, canRestrict]
    ["open, member", 21, member, null, 37, true, false],
    ["open, member with an old collaborator row", 21, member, 37, 37, true, false],
    ["open, creator", 21, creator, null, 37, true, true],
    ["open, admin", 21, admin, null, 37, true, true],
    ["restricted, member", 37, member, null, 21, false, false],
    ["restricted, member with view level", 37, member, 21, 21, false, false],
    ["restricted, collaborator", 37, member, 37, 37, true, false],
    ["restricted, creator", 37, creator, null, 37, true, true],
    ["restricted, admin", 37, admin, null, 37, true, true],
    ["restricted, organization owner", 37, orgOwner, null, 37, true, true],
  ] as const)("%s", (_, restrictionLevel, actor, level, privilege, canEdit, canRestrict) => {
    expect(dashboardPermissions({ restrictionLevel, createdById: OWNER }, actor, level)).toEqual({
      effectiveRestrictionLevel: restrictionLevel,
      effectivePrivilegeLevel: privilege,
      canEdit,
      canRestrict,
    });
  });

  it("a dashboard whose creator is gone is restricted to admins and collaborators", () => {
    expect(dashboardPermissions({ restrictionLevel: 37, createdById: null }, member, null)).toMatchObject({ canEdit: false, canRestrict: false });
    expect(dashboardPermissions({ restrictionLevel: 37, createdById: null }, admin, null)).toMatchObject({ canEdit: true, canRestrict: true });
  });
});
