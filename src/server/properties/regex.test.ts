import { describe, expect, it } from "vitest";
import { cachedRegexCount, compiledRegex, regexFinds, regexSyntaxError } from "./regex";

/** Milliseconds `work` takes. */
function timed(work: () => unknown): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

describe("regex", () => {
  it("searches (not full-match), case-sensitively unless the pattern says (?i)", () => {
    expect(regexFinds("acme", "bob@acme.com")).toBe(true);
    expect(regexFinds("^[a-z]+@acme\\.com$", "bob@acme.com")).toBe(true);
    expect(regexFinds("ACME", "bob@acme.com")).toBe(false);
    expect(regexFinds("(?i)ACME", "bob@acme.com")).toBe(true);
    expect(regexFinds("^\\d{3}$", "123")).toBe(true);
    expect(regexFinds("\\bfoo\\b", "a foo b")).toBe(true);
    expect(regexFinds("", "anything")).toBe(true);
  });

  it("refuses what RE2 cannot run in linear time, saying why", () => {
    expect(regexSyntaxError("(a)\\1")).toBe("invalid escape sequence: `\\1`");
    expect(regexSyntaxError("(?=x)")).toBe("invalid or unsupported Perl syntax: `(?=`");
    expect(regexSyntaxError("(?<=x)a")).toMatch(/invalid named capture/);
    expect(regexSyntaxError("(unclosed")).toBe("missing closing ): `(unclosed`");
    expect(regexSyntaxError("^(a+)+$")).toBeNull();
    // Asked twice: the second answer comes from the cache and must say the same.
    expect(regexSyntaxError("(a)\\1")).toBe("invalid escape sequence: `\\1`");
  });

  it("refuses a program too large to run cheaply on long values", () => {
    expect(regexSyntaxError("(((a|b|c|d){50}){20})x")).toBe("pattern too complex (3045 RE2 instructions; at most 1000)");
    expect(compiledRegex("(((a|b|c|d){50}){20})x")).toBeNull();
    // An alternation of 50 domains is a third of the budget.
    expect(regexSyntaxError(Array.from({ length: 50 }, (_, i) => `domain${i}\\.com`).join("|"))).toBeNull();
    // The best of three runs: one run can land on a pause of a loaded machine.
    const long = `${"abcd".repeat(250_000)}x`;
    expect(Math.min(...[0, 1, 2].map(() => timed(() => regexFinds("((a|b|c|d){50}){6}x", long))))).toBeLessThan(500);
  });

  it("answers null (no match either way) for a pattern it cannot run", () => {
    expect(compiledRegex("(?=x)")).toBeNull();
    expect(regexFinds("(?=x)", "x")).toBeNull();
    expect(regexFinds("(a)\\1", "aa")).toBeNull();
  });

  it("runs a catastrophic pattern in linear time", () => {
    // V8 took 1.7 s on 27 a's and a "b", doubling with each extra character (4 min at 34):
    // backtracking would take minutes here, far past the 5 s bound.
    compiledRegex("^(a+)+$");
    expect(timed(() => expect(regexFinds("^(a+)+$", `${"a".repeat(34)}b`)).toBe(false))).toBeLessThan(5_000);
    expect(timed(() => expect(regexFinds("^(a+)+$", `${"a".repeat(10_000)}b`)).toBe(false))).toBeLessThan(5_000);
    expect(timed(() => expect(regexFinds("(x+x+)+y", "x".repeat(10_000))).toBe(false))).toBeLessThan(5_000);
    expect(regexFinds("^(a+)+$", "a".repeat(34))).toBe(true);
  });

  it("keeps at most 1000 compiled patterns, dropping the least recently used", () => {
    const kept = compiledRegex("kept-pattern");
    const dropped = compiledRegex("filler-0");
    for (let i = 1; i < 1500; i++) {
      compiledRegex(`filler-${i}`);
      if (i % 100 === 0) expect(compiledRegex("kept-pattern")).toBe(kept); // used, so it stays
    }
    expect(cachedRegexCount()).toBe(1000);
    expect(compiledRegex("kept-pattern")).toBe(kept);
    expect(compiledRegex("filler-0")).not.toBe(dropped); // compiled afresh
  });
});
