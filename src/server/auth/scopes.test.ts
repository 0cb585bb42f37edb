import { describe, expect, it } from "vitest";
import { ALL_SCOPES, SCOPE_OBJECTS, scopesSchema } from "./contract";
import { hasScope } from "./service";

describe("hasScope", () => {
  it("allows exactly the scope a key has", () => {
    expect(hasScope(["dashboard:read"], "dashboard:read")).toBe(true);
    expect(hasScope(["dashboard:write"], "dashboard:write")).toBe(true);
  });

  it("lets write imply read of the same object", () => {
    expect(hasScope(["dashboard:write"], "dashboard:read")).toBe(true);
    expect(hasScope(["sharing_configuration:write"], "sharing_configuration:read")).toBe(true);
  });

  it("does not let read imply write", () => {
    expect(hasScope(["dashboard:read"], "dashboard:write")).toBe(false);
    expect(hasScope(["feature_flag:read", "insight:read"], "feature_flag:write")).toBe(false);
  });

  it("does not let a scope of one object allow another object", () => {
    expect(hasScope(["insight:write"], "dashboard:read")).toBe(false);
    expect(hasScope(["dashboard:write"], "sharing_configuration:write")).toBe(false);
    expect(hasScope([], "query:read")).toBe(false);
  });

  it('lets "*" allow every scope of every object', () => {
    for (const object of SCOPE_OBJECTS) {
      expect(hasScope(["*"], `${object}:read`)).toBe(true);
      expect(hasScope(["*"], `${object}:write`)).toBe(true);
    }
  });
});

describe("scopesSchema", () => {
  it("accepts every known scope, including *", () => {
    expect(scopesSchema.parse([...ALL_SCOPES])).toEqual([...ALL_SCOPES]);
    for (const object of ["dashboard", "sharing_configuration", "plugin", "query", "feature_flag", "insight", "person"]) {
      expect(ALL_SCOPES).toContain(`${object}:read`);
      expect(ALL_SCOPES).toContain(`${object}:write`);
    }
  });

  it("rejects an unknown scope, naming it", () => {
    const result = scopesSchema.safeParse(["dashboard:read", "dashboard:admin"]);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.message).toContain("dashboard:admin");
  });

  it("rejects an empty list of scopes", () => {
    expect(scopesSchema.safeParse([]).success).toBe(false);
  });
});
