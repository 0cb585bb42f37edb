import { describe, expect, it } from "vitest";
import { collaboratorsOnlyHint, dashboardRole, restrictionNotice } from "./permission-words";

describe("the permissions dialog speaks to its reader", () => {
  it("tells only the dashboard's owner 'only you'", () => {
    expect(collaboratorsOnlyHint(dashboardRole({ isCreator: true, isAdmin: false, canEdit: true }))).toMatch(/only you,/);
    for (const role of [
      dashboardRole({ isCreator: false, isAdmin: true, canEdit: true }),
      dashboardRole({ isCreator: false, isAdmin: false, canEdit: true }),
      dashboardRole({ isCreator: false, isAdmin: false, canEdit: false }),
    ]) {
      expect(collaboratorsOnlyHint(role)).not.toMatch(/\byou,/);
      expect(collaboratorsOnlyHint(role)).toMatch(/only its owner/);
    }
  });

  it("knows the roles: creator first, then admin, then collaborator or viewer", () => {
    expect(dashboardRole({ isCreator: true, isAdmin: true, canEdit: true })).toBe("owner");
    expect(dashboardRole({ isCreator: false, isAdmin: true, canEdit: false })).toBe("admin");
    expect(dashboardRole({ isCreator: false, isAdmin: false, canEdit: true })).toBe("collaborator");
    expect(dashboardRole({ isCreator: false, isAdmin: false, canEdit: false })).toBe("viewer");
  });

  it("tells a view-only member what they can do", () => {
    expect(restrictionNotice("viewer")).toMatch(/You can view it\.$/);
    expect(restrictionNotice("collaborator")).toMatch(/you can edit the dashboard itself/);
  });
});
