import { describe, expect, it } from "vitest";
import { loginPathFor, safeReturnPath } from "./contract";

describe("safeReturnPath: sign-in only ever returns to a path of this site", () => {
  it.each([
    ["/events", "/events"],
    ["/events?event=%24pageview&after=-7d", "/events?event=%24pageview&after=-7d"],
    ["/dashboards/12#tile-3", "/dashboards/12#tile-3"],
    ["/feature-flags/4?_rsc=abc", "/feature-flags/4"],
  ])("keeps %s", (raw, expected) => {
    expect(safeReturnPath(raw)).toBe(expected);
  });

  it.each([
    "//evil.com",
    "//evil.com/events",
    "/\\evil.com",
    "/\\/evil.com",
    "\\\\evil.com",
    "https://evil.com",
    "http://evil.com/events",
    "javascript:alert(1)",
    "evil.com",
    "/\t/evil.com",
    "/\n/evil.com",
    "/%0a",
    "",
    "/login",
    "/login?callbackUrl=%2Fevents",
    "/signup",
  ])("sends %j to /", (raw) => {
    // "/%0a" is a percent-escape, harmless as a path: only the raw control characters are refused.
    if (raw === "/%0a") return expect(safeReturnPath(raw)).toBe("/%0a");
    expect(safeReturnPath(raw)).toBe("/");
  });

  it("sends what is not a string, or too long, to /", () => {
    expect(safeReturnPath(undefined)).toBe("/");
    expect(safeReturnPath(["/events", "/persons"])).toBe("/");
    expect(safeReturnPath(`/${"a".repeat(3000)}`)).toBe("/");
  });

  it("builds the sign-in link with the page to come back to, and none for the home page", () => {
    expect(loginPathFor("/events?event=a b")).toBe(`/login?callbackUrl=${encodeURIComponent("/events?event=a%20b")}`);
    expect(loginPathFor("/")).toBe("/login");
    expect(loginPathFor("//evil.com")).toBe("/login");
    expect(loginPathFor(null)).toBe("/login");
  });
});
