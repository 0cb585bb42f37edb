import { describe, expect, it } from "vitest";
import { compareCodePoints, dateOf, filterDate, fold, numberOf, parseIsoDate, relativeDate, textOf } from "./coerce";
import { propertiesParamSchema, type PropertyFilter, type PropertyGroup } from "./contract";
import { InconclusiveMatchError, matchesProperties, matchesPropertyFilter, propertyMatcher } from "./match";

const NOW = new Date("2024-06-15T12:00:00.000Z");

/** A filter through the shared schema, as the API and flags read it. */
function filter(raw: Record<string, unknown>): PropertyFilter {
  const group = propertiesParamSchema.parse([{ key: "v", type: "event", ...raw }]);
  return group.values[0] as PropertyFilter;
}

function matches(raw: Record<string, unknown>, properties: Record<string, unknown>): boolean {
  return matchesPropertyFilter(filter(raw), properties, { now: NOW });
}

describe("coercion helpers", () => {
  it("folds ASCII letters only", () => {
    expect(fold("HeLLo ÄÖ İ")).toBe("hello ÄÖ İ");
  });

  it("gives scalars a text form and objects none", () => {
    expect([textOf("x"), textOf(5), textOf(2.5), textOf(true), textOf(false), textOf(null)]).toEqual(["x", "5", "2.5", "true", "false", "null"]);
    expect(textOf({ a: 1 })).toBeNull();
    expect(textOf([1])).toBeNull();
    expect(textOf(undefined)).toBeNull();
  });

  it("reads numbers and decimal strings as numbers, nothing else", () => {
    expect(["5", "-3", "+5", "2.5", ".5", "5.", "1e3", "1E-2"].map(numberOf)).toEqual([5, -3, 5, 2.5, 0.5, 5, 1000, 0.01]);
    for (const text of [" 5", "5 ", "12abc", "0x10", "Infinity", "NaN", "1e308", "", "-", ".", "1,5", "١٢"]) expect(numberOf(text)).toBeNull();
    expect(numberOf("9".repeat(101))).toBeNull();
    expect(numberOf(true)).toBeNull();
    expect(numberOf(null)).toBeNull();
  });

  it("compares by code point, as PostgreSQL's C collation", () => {
    expect(compareCodePoints("a", "b")).toBe(-1);
    expect(compareCodePoints("B", "a")).toBe(-1);
    expect(compareCodePoints("ab", "a")).toBe(1);
    expect(compareCodePoints("x", "x")).toBe(0);
    // UTF-16 order would put U+FFFD after U+1F600's surrogates; code points do not.
    expect(compareCodePoints("\ufffd", "😀")).toBe(-1);
  });

  it("parses ISO 8601 dates and times; no offset is UTC", () => {
    expect(parseIsoDate("2024-01-15")?.toISOString()).toBe("2024-01-15T00:00:00.000Z");
    expect(parseIsoDate("2024-01-15T10:30")?.toISOString()).toBe("2024-01-15T10:30:00.000Z");
    expect(parseIsoDate("2024-01-15 10:30:05")?.toISOString()).toBe("2024-01-15T10:30:05.000Z");
    expect(parseIsoDate("2024-01-15T10:30:05.123456Z")?.toISOString()).toBe("2024-01-15T10:30:05.123Z");
    expect(parseIsoDate("2024-01-15T10:30:05.5+05:30")?.toISOString()).toBe("2024-01-15T05:00:05.500Z");
    expect(parseIsoDate("2024-01-15T10:30-0200")?.toISOString()).toBe("2024-01-15T12:30:00.000Z");
    expect(parseIsoDate("2024-01-15T10:30+01")?.toISOString()).toBe("2024-01-15T09:30:00.000Z");
    expect(parseIsoDate("2024-02-29")?.toISOString()).toBe("2024-02-29T00:00:00.000Z");
    expect(parseIsoDate("0050-03-01")?.getUTCFullYear()).toBe(50);
    for (const text of ["2023-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "0000-01-01", "2024-01-15T24:00", "2024-01-15T10:60", "2024-01-15Z", "2024-1-5", "15/01/2024", "2024-01-15T10:00+15:00", "2024-01-15T10:00:00.1234567Z", "yesterday", ""]) {
      expect(parseIsoDate(text), text).toBeNull();
    }
  });

  it("counts relative dates back from now; months end on a shorter month's last day", () => {
    expect(relativeDate("-2h", NOW)?.toISOString()).toBe("2024-06-15T10:00:00.000Z");
    expect(relativeDate("-1d", NOW)?.toISOString()).toBe("2024-06-14T12:00:00.000Z");
    expect(relativeDate("7d", NOW)?.toISOString()).toBe("2024-06-08T12:00:00.000Z");
    expect(relativeDate("-1w", NOW)?.toISOString()).toBe("2024-06-08T12:00:00.000Z");
    expect(relativeDate("-1m", NOW)?.toISOString()).toBe("2024-05-15T12:00:00.000Z");
    expect(relativeDate("-30m", NOW)?.toISOString()).toBe("2021-12-15T12:00:00.000Z");
    expect(relativeDate("-1q", NOW)?.toISOString()).toBe("2024-03-16T12:00:00.000Z");
    expect(relativeDate("-1y", NOW)?.toISOString()).toBe("2023-06-15T12:00:00.000Z");
    expect(relativeDate("-1m", new Date("2024-03-31T08:00:00Z"))?.toISOString()).toBe("2024-02-29T08:00:00.000Z");
    expect(relativeDate("-1y", new Date("2024-02-29T08:00:00Z"))?.toISOString()).toBe("2023-02-28T08:00:00.000Z");
    for (const text of ["-1", "-1x", "-10000d", "-1.5d", "1 d", "-1D", "now"]) expect(relativeDate(text, NOW), text).toBeNull();
    expect(filterDate("-9999y", NOW)).toBeNull(); // before year 1
  });

  it("reads only ISO strings (and Date objects) as dates", () => {
    expect(dateOf("2024-01-15")?.toISOString()).toBe("2024-01-15T00:00:00.000Z");
    expect(dateOf(1705312800)).toBeNull();
    expect(dateOf("Jan 15 2024")).toBeNull();
    expect(dateOf(new Date("2024-01-15T00:00:00Z"))?.toISOString()).toBe("2024-01-15T00:00:00.000Z");
  });
});

describe("matchesPropertyFilter", () => {
  it("exact: case-insensitive text equality, a list means any of", () => {
    expect(matches({ value: "Chrome" }, { v: "chrome" })).toBe(true);
    expect(matches({ value: "chrome" }, { v: "chromium" })).toBe(false);
    expect(matches({ value: ["firefox", "CHROME"] }, { v: "Chrome" })).toBe(true);
    expect(matches({ value: [] }, { v: "Chrome" })).toBe(false);
    expect(matches({ value: "é" }, { v: "É" })).toBe(false); // ASCII folding only
    expect(matches({ operator: null, value: "x" }, { v: "X" })).toBe(true); // operator defaults to exact
  });

  it("exact: numbers, booleans and null compare by their text", () => {
    expect(matches({ value: 5 }, { v: "5" })).toBe(true);
    expect(matches({ value: "5" }, { v: 5 })).toBe(true);
    expect(matches({ value: "5.0" }, { v: 5 })).toBe(false);
    expect(matches({ value: 2.5 }, { v: 2.5 })).toBe(true);
    expect(matches({ value: true }, { v: "True" })).toBe(true);
    expect(matches({ value: "true" }, { v: true })).toBe(true);
    expect(matches({ value: "false" }, { v: true })).toBe(false);
    expect(matches({ value: null }, { v: null })).toBe(true);
    expect(matches({ value: "null" }, { v: null })).toBe(true);
    expect(matches({ value: "null" }, {})).toBe(false);
    expect(matches({ value: "[object Object]" }, { v: { a: 1 } })).toBe(false);
  });

  it("is_not: the negation of exact; a missing key is not equal", () => {
    expect(matches({ operator: "is_not", value: "chrome" }, { v: "Chrome" })).toBe(false);
    expect(matches({ operator: "is_not", value: ["a", "b"] }, { v: "c" })).toBe(true);
    expect(matches({ operator: "is_not", value: "a" }, {})).toBe(true);
    expect(matches({ operator: "is_not", value: "a" }, { v: { a: 1 } })).toBe(true);
  });

  it("icontains / not_icontains: case-insensitive substring of the text", () => {
    expect(matches({ operator: "icontains", value: "ROM" }, { v: "Chrome" })).toBe(true);
    expect(matches({ operator: "icontains", value: "" }, { v: "x" })).toBe(true);
    expect(matches({ operator: "icontains", value: 12 }, { v: 3125 })).toBe(true);
    expect(matches({ operator: "icontains", value: "ul" }, { v: null })).toBe(true); // null reads "null"
    expect(matches({ operator: "icontains", value: "x" }, {})).toBe(false);
    expect(matches({ operator: "icontains", value: ["rom"] }, { v: "Chrome" })).toBe(true); // a one-element list is unwrapped
    expect(matches({ operator: "not_icontains", value: "rom" }, { v: "Chrome" })).toBe(false);
    expect(matches({ operator: "not_icontains", value: "xyz" }, { v: "Chrome" })).toBe(true);
    expect(matches({ operator: "not_icontains", value: "x" }, {})).toBe(true);
  });

  it("regex / not_regex: a case-sensitive search in the text", () => {
    expect(matches({ operator: "regex", value: "^Ch" }, { v: "Chrome" })).toBe(true);
    expect(matches({ operator: "regex", value: "^ch" }, { v: "Chrome" })).toBe(false);
    expect(matches({ operator: "regex", value: "[0-9]{3}" }, { v: 12345 })).toBe(true);
    expect(matches({ operator: "regex", value: "^tr" }, { v: true })).toBe(true);
    expect(matches({ operator: "regex", value: "." }, {})).toBe(false);
    expect(matches({ operator: "not_regex", value: "^Ch" }, { v: "Chrome" })).toBe(false);
    expect(matches({ operator: "not_regex", value: "^x" }, { v: "Chrome" })).toBe(true);
    expect(matches({ operator: "not_regex", value: "." }, {})).toBe(true);
  });

  it("gt/gte/lt/lte: numeric when both sides are numbers, else by text", () => {
    expect(matches({ operator: "gt", value: 5 }, { v: 10 })).toBe(true);
    expect(matches({ operator: "gt", value: "5" }, { v: "10" })).toBe(true); // numerically, not "10" < "5"
    expect(matches({ operator: "gt", value: 5 }, { v: 5 })).toBe(false);
    expect(matches({ operator: "gte", value: 5 }, { v: "5.0" })).toBe(true);
    expect(matches({ operator: "lt", value: 0 }, { v: -0.5 })).toBe(true);
    expect(matches({ operator: "lte", value: "1e3" }, { v: 1000 })).toBe(true);
    expect(matches({ operator: "gt", value: "abc" }, { v: "abd" })).toBe(true); // text order
    expect(matches({ operator: "gt", value: 5 }, { v: "abc" })).toBe(true); // "abc" > "5" as text
    expect(matches({ operator: "lt", value: "b" }, { v: "B" })).toBe(true); // code points: "B" < "b"
    expect(matches({ operator: "gt", value: "s" }, { v: true })).toBe(true); // "true" > "s"
    expect(matches({ operator: "gt", value: -1 }, { v: null })).toBe(false);
    expect(matches({ operator: "gt", value: -1 }, {})).toBe(false);
    expect(matches({ operator: "gt", value: "" }, { v: { a: 1 } })).toBe(false);
  });

  it("is_set / is_not_set: whether the key is there (a null value is set)", () => {
    expect(matches({ operator: "is_set", value: "is_set" }, { v: null })).toBe(true);
    expect(matches({ operator: "is_set" }, {})).toBe(false);
    expect(matches({ operator: "is_not_set" }, {})).toBe(true);
    expect(matches({ operator: "is_not_set" }, { v: "" })).toBe(false);
  });

  it("is_date_before / is_date_after: ISO values against an ISO or relative date", () => {
    expect(matches({ operator: "is_date_before", value: "2024-01-16" }, { v: "2024-01-15T23:59:59Z" })).toBe(true);
    expect(matches({ operator: "is_date_before", value: "2024-01-15" }, { v: "2024-01-15" })).toBe(false);
    expect(matches({ operator: "is_date_after", value: "2024-01-15T09:00:00Z" }, { v: "2024-01-15T10:00:00+02:00" })).toBe(false);
    expect(matches({ operator: "is_date_after", value: "-7d" }, { v: "2024-06-10" })).toBe(true);
    expect(matches({ operator: "is_date_before", value: "-7d" }, { v: "2024-06-10" })).toBe(false);
    expect(matches({ operator: "is_date_before", value: "30d" }, { v: "2024-05-01" })).toBe(true);
    expect(matches({ operator: "is_date_before", value: "2030-01-01" }, { v: "not a date" })).toBe(false);
    expect(matches({ operator: "is_date_before", value: "2030-01-01" }, { v: 1705312800 })).toBe(false);
    expect(matches({ operator: "is_date_after", value: "2000-01-01" }, {})).toBe(false);
    expect(matchesPropertyFilter(filter({ operator: "is_date_after", value: "2000-01-01" }), { v: new Date("2024-01-01") })).toBe(true);
  });

  it("negation inverts the result", () => {
    expect(matches({ value: "a", negation: true }, { v: "a" })).toBe(false);
    expect(matches({ operator: "is_set", negation: true }, {})).toBe(true);
  });

  it("with missing: inconclusive, a missing key throws instead of deciding", () => {
    expect(() => matchesPropertyFilter(filter({ operator: "is_not", value: "a" }), {}, { missing: "inconclusive" })).toThrow(InconclusiveMatchError);
    expect(matchesPropertyFilter(filter({ value: "a" }), { v: "A" }, { missing: "inconclusive" })).toBe(true);
  });

  it("reads only own properties", () => {
    expect(matches({ operator: "is_set" }, Object.create({ v: 1 }) as Record<string, unknown>)).toBe(false);
    expect(matchesPropertyFilter(filter({ key: "__proto__", operator: "is_set" }), JSON.parse('{"__proto__": 1}'))).toBe(true);
    expect(matchesPropertyFilter(filter({ key: "constructor", operator: "is_set" }), {})).toBe(false);
  });
});

describe("matchesProperties: groups, event and person properties", () => {
  const group = (value: unknown): PropertyGroup => propertiesParamSchema.parse(value);
  const sources = { event: { $browser: "Chrome", plan: "pro" }, person: { email: "a@example.com" } };

  it("a list must all hold; person filters read the person", () => {
    expect(matchesProperties(group([{ key: "$browser", value: "chrome" }, { key: "email", value: "a@example.com", type: "person" }]), sources)).toBe(true);
    expect(matchesProperties(group([{ key: "$browser", value: "chrome" }, { key: "email", value: "b", type: "person" }]), sources)).toBe(false);
    expect(matchesProperties(group([{ key: "email", operator: "is_set", type: "event" }]), sources)).toBe(false);
  });

  it("AND/OR groups nest; an empty group holds; no person reads as no properties", () => {
    const nested = group({
      type: "OR",
      values: [
        { type: "AND", values: [{ key: "plan", value: "free" }, { key: "$browser", value: "Chrome" }] },
        { type: "AND", values: [{ key: "plan", value: "pro" }, { key: "email", operator: "icontains", value: "@example", type: "person" }] },
      ],
    });
    expect(matchesProperties(nested, sources)).toBe(true);
    expect(matchesProperties(nested, { event: sources.event, person: null })).toBe(false);
    expect(matchesProperties(group({ type: "OR", values: [] }), sources)).toBe(true);
    expect(matchesProperties(group([{ key: "email", operator: "is_not_set", type: "person" }]), { event: {} })).toBe(true);
  });
});

describe("the filter schema", () => {
  const issue = (value: unknown) => {
    const result = propertiesParamSchema.safeParse(value);
    return result.success ? null : result.error.issues[0]!;
  };

  it("accepts PostHog's shapes: a list, a group, one filter; type defaults to event", () => {
    expect(propertiesParamSchema.parse([{ key: "a", value: "b" }])).toEqual({
      type: "AND",
      values: [{ key: "a", value: ["b"], operator: "exact", type: "event", negation: false }],
    });
    expect(propertiesParamSchema.parse({ type: "OR", values: [{ key: "a", operator: "is_set", value: "is_set", type: "person" }] })).toEqual({
      type: "OR",
      values: [{ key: "a", value: null, operator: "is_set", type: "person", negation: false }],
    });
    expect(propertiesParamSchema.parse({ key: "a", operator: "gt", value: 1 }).values).toHaveLength(1);
  });

  it("turns NUL into U+FFFD, as ingestion stores it", () => {
    const parsed = propertiesParamSchema.parse([{ key: "a\u0000b", value: "c\u0000" }]);
    expect(parsed.values[0]).toMatchObject({ key: "a\ufffdb", value: ["c\ufffd"] });
  });

  it("rejects what it cannot evaluate, saying where", () => {
    expect(issue([{ key: "a", operator: "like", value: "x" }])).toMatchObject({ path: [0, "operator"], message: expect.stringMatching(/Unknown operator 'like'/) });
    expect(issue([{ key: "a", type: "cohort", value: 3 }])).toMatchObject({ path: [0, "key"], message: expect.stringMatching(/key must be "id"/) });
    expect(issue([{ key: "id", type: "cohort", value: "x" }])).toMatchObject({ path: [0, "value"], message: expect.stringMatching(/cohort id/) });
    expect(issue([{ key: "", value: "x" }])).toMatchObject({ path: [0, "key"] });
    expect(issue([{ value: "x" }])).toMatchObject({ path: [0, "key"] });
    expect(issue([{ key: "a" }])).toMatchObject({ path: [0, "value"], message: expect.stringMatching(/required/) });
    expect(issue([{ key: "a", operator: "regex", value: "(" }])).toMatchObject({ message: expect.stringMatching(/Invalid regular expression/) });
    expect(issue([{ key: "a", operator: "gt", value: true }])).toMatchObject({ path: [0, "value"] });
    expect(issue([{ key: "a", operator: "icontains", value: ["a", "b"] }])).toMatchObject({ message: expect.stringMatching(/single value/) });
    expect(issue([{ key: "a", operator: "is_date_after", value: "last week" }])).toMatchObject({ message: expect.stringMatching(/ISO 8601/) });
    expect(issue([{ key: "a", value: { nested: 1 } }])).toMatchObject({ path: [0, "value"] });
    expect(issue(["a"])).toMatchObject({ message: expect.stringMatching(/must be an object/) });
    expect(issue("a")).toMatchObject({ message: expect.stringMatching(/must be an object/) });
    expect(issue({ type: "AND", values: "x" })).toMatchObject({ path: ["values"] });
    expect(issue([{ type: "OR", values: [{ key: "a", operator: "nope" }] }])).toMatchObject({ path: [0, "values", 0, "operator"] });
  });

  it("bounds nesting and size", () => {
    let deep: unknown = [{ key: "a", value: "b" }];
    for (let i = 0; i < 20; i++) deep = { type: "AND", values: [deep] };
    expect(issue(deep)).toMatchObject({ message: expect.stringMatching(/nest at most/) });
    let veryDeep: unknown = [];
    for (let i = 0; i < 100_000; i++) veryDeep = [veryDeep];
    expect(issue(veryDeep)).toMatchObject({ message: expect.stringMatching(/nest at most/) });
    expect(issue(Array.from({ length: 101 }, () => ({ key: "a", value: "b" })))).toMatchObject({ message: expect.stringMatching(/At most 100/) });
    expect(issue({ type: "OR", values: Array.from({ length: 60 }, () => ({ type: "AND", values: [{ key: "a", value: 1 }, { key: "b", value: 2 }] })) })).toMatchObject({
      message: expect.stringMatching(/At most 100/),
    });
  });
});

describe("propertyMatcher with the flags semantics (cohorts in feature flags)", () => {
  const leaf = (raw: Record<string, unknown>) => ({ negation: false, ...raw }) as unknown as PropertyFilter;
  const tree = (...values: PropertyFilter[]): PropertyGroup => ({ type: "AND", values });

  it("reads the flags column of the operator table, where it differs from the events one", () => {
    // Flags: `false` matches any value that is not truthy; events compare the texts.
    const falsy = tree(leaf({ type: "person", key: "beta", operator: "exact", value: [false] }));
    expect(propertyMatcher(falsy, { semantics: "flags" })({ person: { beta: "no" } })).toBe(true);
    expect(propertyMatcher(falsy)({ person: { beta: "no" } }, NOW)).toBe(false);
    const semver = tree(leaf({ type: "person", key: "app", operator: "semver_gte", value: "2.0.0" }));
    expect(propertyMatcher(semver, { semantics: "flags" })({ person: { app: "v2.10.1" } })).toBe(true);
    expect(propertyMatcher(semver, { semantics: "flags" })({ person: { app: "1.9" } })).toBe(false);
  });

  it("reads every non-group leaf against the person, applies negation, and takes cohorts from the resolver", () => {
    const untyped = tree(leaf({ type: "event", key: "plan", operator: "exact", value: ["pro"], negation: true }));
    expect(propertyMatcher(untyped, { semantics: "flags" })({ person: { plan: "pro" }, event: { plan: "free" } })).toBe(false);
    expect(propertyMatcher(untyped, { semantics: "flags" })({ person: { plan: "free" } })).toBe(true);
    const withCohort = { type: "OR", values: [{ type: "cohort", key: "id", value: 7, operator: "in", negation: true }] } as PropertyGroup;
    const matcher = propertyMatcher(withCohort, { semantics: "flags", cohort: (filter) => (sources) => (sources.person?.member === filter.value) });
    expect(matcher({ person: { member: 7 } })).toBe(false);
    expect(matcher({ person: { member: 8 } })).toBe(true);
  });
});
