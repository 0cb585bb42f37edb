/** The flag contract on its own: PostHog's key rule and every filters rule that needs no database. */
import { describe, expect, it } from "vitest";
import { FLAG_PROPERTY_OPERATORS } from "@/server/properties/flag-filters";
import { createFlagInput, flagFiltersSchema, flagListFilters, tagsSchema, testFlagInput, updateFlagInput } from "./contract";

/** The first issue as the REST edge reports it: message and `attr`. */
function firstIssue(result: { success: boolean; error?: { issues: { message: string; path: PropertyKey[] }[] } }) {
  expect(result.success).toBe(false);
  const issue = result.error!.issues[0]!;
  return { message: issue.message, attr: issue.path.map(String).join("__") };
}

const person = (key: string, operator: string | undefined, value?: unknown) => ({ key, operator, value, type: "person" });
const filters = (extra: Record<string, unknown> = {}) => ({ groups: [{ properties: [], rollout_percentage: 50 }], ...extra });

describe("flag key", () => {
  it.each(["beta", "new-checkout_v2", "A1", "x".repeat(400)])("accepts %s", (key) => {
    expect(createFlagInput.safeParse({ key }).success).toBe(true);
  });

  it.each([
    ["has space", "Only letters, numbers, hyphens (-) & underscores (_) are allowed."],
    ["dots.are.out", "Only letters, numbers, hyphens (-) & underscores (_) are allowed."],
    ["ünïcode", "Only letters, numbers, hyphens (-) & underscores (_) are allowed."],
    ["", "This field may not be blank."],
    ["x".repeat(401), "Ensure this field has no more than 400 characters."],
  ])("refuses %j", (key, message) => {
    expect(firstIssue(createFlagInput.safeParse({ key }))).toEqual({ message, attr: "key" });
  });

  it("is required on create and optional on update", () => {
    expect(firstIssue(createFlagInput.safeParse({ name: "no key" }))).toEqual({ message: "This field is required.", attr: "key" });
    expect(updateFlagInput.safeParse({ name: "renamed" }).success).toBe(true);
  });
});

describe("create defaults", () => {
  it("fills PostHog's defaults", () => {
    expect(createFlagInput.parse({ key: "k" })).toEqual({ key: "k", name: "", active: true, deleted: false, ensure_experience_continuity: false, tags: [] });
  });

  it("reads a null ensure_experience_continuity as false (PostHog's classic boolean)", () => {
    expect(createFlagInput.parse({ key: "k", ensure_experience_continuity: null }).ensure_experience_continuity).toBe(false);
  });

  it("needs at least one condition set when filters are given", () => {
    expect(firstIssue(createFlagInput.safeParse({ key: "k", filters: { groups: [] } }))).toEqual({
      message: "Feature flags must have at least one condition set (group).",
      attr: "filters__groups",
    });
  });

  it("normalises tags as PostHog's tagify and drops duplicates", () => {
    expect(tagsSchema.parse([" Beta ", "beta", "Team-A"])).toEqual(["beta", "team-a"]);
    expect(firstIssue(tagsSchema.safeParse(["ok", 3]))).toEqual({ message: "Each tag must be a string.", attr: "1" });
  });
});

describe("filters", () => {
  it("normalises a valid multivariate flag: defaults, payloads as JSON text, multivariate kept", () => {
    const parsed = flagFiltersSchema.parse({
      groups: [{ properties: [person("email", "icontains", "@example.com")], rollout_percentage: 30, variant: "test" }, { properties: [] }],
      multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", name: "Test", rollout_percentage: 50 }] },
      payloads: { control: { color: "blue" }, test: '"red"' },
    });
    expect(parsed).toEqual({
      groups: [
        { properties: [{ key: "email", operator: "icontains", value: "@example.com", type: "person" }], rollout_percentage: 30, variant: "test" },
        { properties: [], rollout_percentage: null, variant: null },
      ],
      multivariate: { variants: [{ key: "control", name: "", rollout_percentage: 50 }, { key: "test", name: "Test", rollout_percentage: 50 }] },
      aggregation_group_type_index: null,
      payloads: { control: '{"color":"blue"}', test: '"red"' },
    });
  });

  it("defaults a missing operator to exact and an empty variants list to a boolean flag", () => {
    const parsed = flagFiltersSchema.parse({ groups: [{ properties: [person("plan", undefined, "pro")] }], multivariate: { variants: [] } });
    expect(parsed.groups[0]!.properties[0]!.operator).toBe("exact");
    expect(parsed.multivariate).toBeNull();
  });

  it("drops null payloads (no payload for that value)", () => {
    expect(flagFiltersSchema.parse(filters({ payloads: { true: null } })).payloads).toEqual({});
  });

  it.each([
    [{ groups: [{ rollout_percentage: 101 }] }, "rollout_percentage must be a number between 0 and 100.", "groups__0__rollout_percentage"],
    [{ groups: [{ rollout_percentage: -1 }] }, "rollout_percentage must be a number between 0 and 100.", "groups__0__rollout_percentage"],
    [{ groups: [{ rollout_percentage: "50" }] }, "rollout_percentage must be a number between 0 and 100.", "groups__0__rollout_percentage"],
    [{ groups: "all" }, "groups must be a list of condition sets.", "groups"],
    [
      { groups: [{}], multivariate: { variants: [{ key: "a", rollout_percentage: 50 }, { key: "b", rollout_percentage: 40 }] } },
      "Invalid variant definitions: Variant rollout percentages must sum to 100.",
      "multivariate__variants",
    ],
    [
      { groups: [{}], multivariate: { variants: [{ key: "a", rollout_percentage: 60 }, { key: "b", rollout_percentage: 60 }] } },
      "Invalid variant definitions: Variant rollout percentages must sum to 100.",
      "multivariate__variants",
    ],
    [
      { groups: [{}], multivariate: { variants: [{ key: "a", rollout_percentage: 50 }, { key: "a", rollout_percentage: 50 }] } },
      "Variant keys must be unique: 'a' appears twice.",
      "multivariate__variants__1__key",
    ],
    [{ groups: [{}], multivariate: { variants: [{ key: "bad key", rollout_percentage: 100 }] } }, "Only letters, numbers, hyphens (-) & underscores (_) are allowed.", "multivariate__variants__0__key"],
    [
      { groups: [{ variant: "c" }], multivariate: { variants: [{ key: "a", rollout_percentage: 50 }, { key: "b", rollout_percentage: 50 }] } },
      "Filters are not valid (variant override does not exist)",
      "groups__0__variant",
    ],
    [{ groups: [{ variant: "a" }] }, "Filters are not valid (variant override does not exist)", "groups__0__variant"],
    [{ groups: [{}], payloads: { false: "1" } }, "Payload keys must be 'true' for boolean flags", "payloads__false"],
    [
      { groups: [{}], multivariate: { variants: [{ key: "a", rollout_percentage: 100 }] }, payloads: { true: "1" } },
      "Payload keys must match a variant key for multivariate flags",
      "payloads__true",
    ],
    [{ groups: [{}], payloads: { true: "{not json" } }, "Payload value is not valid JSON", "payloads__true"],
    [{ groups: [{}], payloads: ["x"] }, "Payloads must be passed as a dictionary", "payloads"],
    [{ groups: [{}], aggregation_group_type_index: 5 }, "aggregation_group_type_index must be an integer from 0 to 4, or null.", "aggregation_group_type_index"],
  ])("refuses %j", (input, message, attr) => {
    expect(firstIssue(flagFiltersSchema.safeParse(input))).toEqual({ message, attr });
  });

  it("accepts decimal variant percentages that sum to 100", () => {
    const variants = [33.33, 33.33, 33.34].map((rollout_percentage, i) => ({ key: `v${i}`, rollout_percentage }));
    expect(flagFiltersSchema.safeParse({ groups: [{}], multivariate: { variants } }).success).toBe(true);
  });
});

describe("property conditions", () => {
  const check = (property: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    flagFiltersSchema.safeParse({ groups: [{ properties: [property] }], ...extra });
  const at = (field: string) => `groups__0__properties__0__${field}`;

  it.each(FLAG_PROPERTY_OPERATORS.map((operator) => [operator]))("accepts the engine's operator %s on a person property", (operator) => {
    const value = operator.startsWith("semver") ? "1.2.3" : operator.startsWith("is_date") ? "-7d" : operator === "is_set" || operator === "is_not_set" ? undefined : "x";
    expect(check(person("p", operator, value)).error?.issues).toBeUndefined();
  });

  it("refuses an operator PostHog does not have", () => {
    expect(firstIssue(check(person("p", "equals", "x")))).toEqual({ message: "Unknown operator 'equals'.", attr: at("operator") });
  });

  it("refuses a PostHog operator the engine does not evaluate, naming the ones it does", () => {
    const issue = firstIssue(check(person("p", "between", "x")));
    expect(issue.attr).toBe(at("operator"));
    expect(issue.message).toMatch(/^Operator 'between' is not supported yet; use one of: exact, is_not, /);
  });

  it.each([
    [{ key: "p", operator: "exact", value: "x", type: "event" }, "Filters are not valid (can only use person, cohort, and flag properties)", "type"],
    [{ key: "p", operator: "exact", value: "x" }, "Filters are not valid (can only use person, cohort, and flag properties)", "type"],
    [{ key: "p", operator: "exact", value: "x", type: "group", group_type_index: 0 }, "Filters are not valid (can only use person, cohort, and flag properties)", "type"],
    [{ key: "", operator: "exact", value: "x", type: "person" }, "key must not be empty.", "key"],
    [person("p", "exact"), "A value is required for operator 'exact'.", "value"],
    [person("p", "exact", []), "A value is required for operator 'exact'.", "value"],
    [person("p", "regex", "(unclosed"), "Invalid regular expression: (unclosed (missing closing ): `(unclosed`)", "value"],
    // JavaScript runs these; RE2 (linear time, no backtracking) cannot.
    [person("p", "regex", "(a)\\1"), "Invalid regular expression: (a)\\1 (invalid escape sequence: `\\1`)", "value"],
    [person("p", "not_regex", "(?=x)"), "Invalid regular expression: (?=x) (invalid or unsupported Perl syntax: `(?=`)", "value"],
    [person("p", "icontains", 5), "Invalid value for operator icontains: 5", "value"],
    [person("p", "gt", true), "Invalid value for operator gt: true", "value"],
    [person("p", "is_date_before", "yesterday"), "Invalid date value: yesterday", "value"],
    [person("p", "in", "1"), "The 'in' operator is only valid for cohort properties, not 'person' properties.", "operator"],
    [{ key: "id", operator: "exact", value: 1, type: "cohort" }, "Cohort properties must use the 'in' or 'not_in' operator.", "operator"],
    [{ key: "12", operator: "exact", value: true, type: "flag" }, "Flag properties must use the 'flag_evaluates_to' operator", "operator"],
    [{ key: "12", operator: "flag_evaluates_to", value: 3, type: "flag" }, "A flag dependency's value must be true, false or a variant key.", "value"],
    [person("p", "exact", Array.from({ length: 1001 }, (_, i) => i)), "Property group expressions of type p cannot contain more than 1000 values.", "value"],
  ])("refuses %j", (property, message, field) => {
    expect(firstIssue(check(property))).toEqual({ message, attr: at(field) });
  });

  it("accepts list values for exact and numbers for comparisons", () => {
    expect(check(person("plan", "exact", ["pro", "team"])).success).toBe(true);
    expect(check(person("age", "gte", 18)).success).toBe(true);
    expect(check(person("age", "gte", "18")).success).toBe(true);
    expect(check(person("p", "is_set", "is_set")).success).toBe(true);
  });

  it("lets a group flag use only that group type's properties", () => {
    const group = (index: number) => ({ key: "plan", operator: "exact", value: "pro", type: "group", group_type_index: index });
    expect(check(group(1), { aggregation_group_type_index: 1 }).success).toBe(true);
    expect(firstIssue(check(group(0), { aggregation_group_type_index: 1 }))).toEqual({ message: "Filters are not valid (can only use group properties)", attr: at("group_type_index") });
    expect(firstIssue(check(person("p", "exact", "x"), { aggregation_group_type_index: 1 }))).toEqual({ message: "Filters are not valid (can only use group properties)", attr: at("type") });
  });
});

describe("list filters and the test box", () => {
  it("reads PostHog's list parameters", () => {
    expect(flagListFilters.parse({ search: "beta", active: "true", type: "multivariant", tags: '["a"]', created_by_id: "3" })).toEqual({
      search: "beta",
      active: "true",
      type: "multivariant",
      tags: ["a"],
      created_by_id: 3,
    });
    expect(firstIssue(flagListFilters.safeParse({ active: "yes" }))).toEqual({ message: "active must be 'true' or 'false'.", attr: "active" });
    expect(firstIssue(flagListFilters.safeParse({ tags: "a,b" }))).toEqual({ message: "tags must be a JSON list of strings.", attr: "tags" });
    expect(firstIssue(flagListFilters.safeParse({ order: "filters" })).attr).toBe("order");
  });

  it("needs a distinct id and JSON objects for properties", () => {
    expect(testFlagInput.parse({ distinctId: " u1 " })).toEqual({ distinctId: "u1", personProperties: {}, groups: {}, groupProperties: {} });
    expect(firstIssue(testFlagInput.safeParse({ distinctId: "" }))).toEqual({ message: "Enter a distinct ID.", attr: "distinctId" });
    expect(firstIssue(testFlagInput.safeParse({ distinctId: "u", personProperties: [1] }))).toEqual({ message: "Person properties must be a JSON object.", attr: "personProperties" });
  });
});
