/** The pieces of the paths algorithm that need no database: item cleaning, groupings, trimming. */
import { describe, expect, it } from "vitest";
import { groupingPattern } from "./contract";
import { forEachSession, pathItemCleaner, trimmedPath, type TimedPath } from "./paths";

describe("path items", () => {
  it("reads a grouping's characters literally except '*', matching anywhere in the item", () => {
    expect(groupingPattern("/a.b(*)")).toBe("/a\\.b\\(.*\\)");
    const clean = pathItemCleaner({ pathCleaning: [], pathGroupings: ["/a.b*"] });
    expect(clean("/a.b/1")).toBe("/a.b*");
    expect(clean("https://x.test/a.b")).toBe("/a.b*");
    expect(clean("/axb/1")).toBe("/axb/1");
  });

  it("replaces every match, \\0 standing for the match and \\\\ for a backslash", () => {
    const clean = pathItemCleaner({ pathCleaning: [{ regex: "\\d+", alias: "<\\0>\\\\" }], pathGroupings: [] });
    expect(clean("/a/12/b/3")).toBe("/a/<12>\\/b/<3>\\");
  });

  it("with the editor's query-string rule, /page?utm=… and /page/#top are one step with /page (issue 34)", () => {
    const clean = pathItemCleaner({ pathCleaning: [{ regex: "/?[?#].*$", alias: "" }], pathGroupings: [] });
    for (const url of ["https://x.test/page?utm_source=news", "https://x.test/page/?a=1&b=2", "https://x.test/page#top", "https://x.test/page"]) {
      expect(clean(url)).toBe("https://x.test/page");
    }
  });

  it("applies the first matching grouping after the cleaning rules", () => {
    const clean = pathItemCleaner({ pathCleaning: [{ regex: "^/shop", alias: "/store" }], pathGroupings: ["/store/*", "/s*"] });
    expect(clean("/shop/1")).toBe("/store/*");
  });
});

describe("trimming", () => {
  const path = { items: ["/a", "/b", "/a", "/b", "/c"], times: [0, 1, 2, 3, 4] };

  it("cuts at the first start point and the first end point after it", () => {
    expect(trimmedPath(path, { start: "/b", end: "/b", stepLimit: 5 }, "...")).toEqual({ items: ["/b"], times: [1] });
    expect(trimmedPath(path, { start: "/z", end: null, stepLimit: 5 }, "...")).toBeNull();
  });

  it("splits sessions at 30-minute gaps and keeps a run's last element, within a session only", () => {
    const sessions: TimedPath<string>[] = [];
    const minute = 60_000;
    forEachSession(["/a", "/a", "/a", "/a", "/b"], [0, minute, 2 * minute, 32 * minute, 33 * minute], (session) => sessions.push(session));
    expect(sessions).toEqual([
      { items: ["/a"], times: [2 * minute] },
      { items: ["/a", "/b"], times: [32 * minute, 33 * minute] },
    ]);
  });
});
