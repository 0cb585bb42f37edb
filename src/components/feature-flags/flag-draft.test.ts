/** The flag form's mapping: draft → the API contract, a saved flag → draft, and the list's rollout line. */
import { describe, expect, it } from "vitest";
import type { FlagResource } from "@/server/flags/present";
import { createFlagInput } from "@/server/flags/contract";
import { draftOf, editableInForm, EMPTY_DRAFT, newCohortProperty, newCondition, bucketText, conditionName, reachGroups, reachPercent, rolloutSummary, toFlagInput, type FlagDraft } from "./flag-draft";

function resource(filters: Partial<FlagResource["filters"]>, extra: Partial<FlagResource> = {}): FlagResource {
  return {
    id: 1,
    name: "",
    key: "k",
    filters: { groups: [], multivariate: null, aggregation_group_type_index: null, payloads: {}, ...filters },
    deleted: false,
    active: true,
    created_by: null,
    created_at: "",
    updated_at: "",
    version: 1,
    last_modified_by: null,
    ensure_experience_continuity: false,
    is_simple_flag: false,
    rollout_percentage: null,
    tags: [],
    experiment_set: [],
    surveys: [],
    features: [],
    can_edit: true,
    ...extra,
  };
}

describe("toFlagInput", () => {
  it("builds a body the contract accepts: person filters, lists for exact, payload for true", () => {
    const draft: FlagDraft = {
      ...EMPTY_DRAFT,
      key: " beta ",
      tags: "a, b,,",
      conditions: [
        {
          ...newCondition("40"),
          properties: [
            { id: 1, type: "person", key: " plan ", operator: "exact", value: "pro, team" },
            { id: 2, type: "person", key: "email", operator: "is_set", value: "ignored" },
          ],
        },
      ],
      payloads: { true: ' {"a": 1} ', control: "unused" },
    };
    const input = toFlagInput(draft);
    expect(input).toMatchObject({
      key: "beta",
      tags: ["a", "b"],
      filters: {
        groups: [
          {
            properties: [
              { key: "plan", operator: "exact", value: ["pro", "team"], type: "person" },
              { key: "email", operator: "is_set", value: undefined, type: "person" },
            ],
            rollout_percentage: 40,
            variant: null,
          },
        ],
        multivariate: null,
        payloads: { true: '{"a": 1}' },
      },
    });
    expect(createFlagInput.safeParse(input).success).toBe(true);
  });

  it("never turns an empty rollout into null (which means 100%): the contract names the field", () => {
    const result = createFlagInput.safeParse(toFlagInput({ ...EMPTY_DRAFT, key: "k", conditions: [newCondition("")] }));
    expect(result.error?.issues[0]?.path).toEqual(["filters", "groups", 0, "rollout_percentage"]);
  });

  it("sends variants, overrides and per-variant payloads only for a multivariate flag", () => {
    const input = toFlagInput({ ...EMPTY_DRAFT, key: "k", multivariate: true, conditions: [{ ...newCondition("100"), variant: "test" }], payloads: { true: "1", test: '"t"' } });
    expect(input.filters).toMatchObject({
      groups: [{ variant: "test" }],
      multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] },
      payloads: { test: '"t"' },
    });
    expect(createFlagInput.safeParse(input).success).toBe(true);
  });
});

describe("draftOf", () => {
  it("reads a saved flag back into the same body", () => {
    const saved = createFlagInput.parse({
      key: "round-trip",
      name: "Round trip",
      tags: ["x"],
      filters: {
        groups: [{ properties: [{ key: "plan", type: "person", operator: "exact", value: ["pro", "team"] }], rollout_percentage: 25, variant: "b" }],
        multivariate: { variants: [{ key: "a", rollout_percentage: 30 }, { key: "b", rollout_percentage: 70 }] },
        payloads: { b: '{"x":1}' },
      },
    });
    const flag = resource(saved.filters!, { key: saved.key, name: saved.name, tags: saved.tags });
    expect(createFlagInput.parse(toFlagInput(draftOf(flag)))).toEqual(saved);
  });

  it("round-trips cohort conditions (in, not in) and sends an unchosen cohort as null for the contract to name", () => {
    const saved = createFlagInput.parse({
      key: "cohorts",
      filters: {
        groups: [
          { properties: [{ key: "id", type: "cohort", operator: "in", value: 7 }, { key: "plan", type: "person", operator: "exact", value: ["pro"] }], rollout_percentage: 100 },
          { properties: [{ key: "id", type: "cohort", value: 8 }], rollout_percentage: 50 },
          { properties: [{ key: "id", type: "cohort", operator: "not_in", value: 9 }], rollout_percentage: 10 },
        ],
      },
    });
    expect(saved.filters!.groups[1]!.properties[0]!.operator).toBe("in");
    const flag = resource(saved.filters!, { key: saved.key });
    expect(editableInForm(flag)).toBe(true);
    const draft = draftOf(flag);
    expect(draft.conditions[2]!.properties[0]).toMatchObject({ type: "cohort", operator: "not_in", value: "9" });
    expect(createFlagInput.parse(toFlagInput(draft))).toEqual(saved);

    const unchosen = toFlagInput({ ...EMPTY_DRAFT, key: "k", conditions: [{ ...newCondition("100"), properties: [newCohortProperty()] }] });
    expect(unchosen.filters!.groups[0]!.properties![0]).toEqual({ key: "id", type: "cohort", operator: "in", value: null });
    expect(createFlagInput.safeParse(unchosen).error?.issues[0]?.path).toEqual(["filters", "groups", 0, "properties", 0, "value"]);
  });

  it("shows a null rollout (everyone) as 100", () => {
    expect(draftOf(resource({ groups: [{ properties: [], rollout_percentage: null, variant: null }] })).conditions[0]!.rollout).toBe("100");
  });
});

describe("editableInForm and rolloutSummary", () => {
  it("leaves group and flag conditions, and negated cohort conditions, to the API", () => {
    expect(editableInForm(resource({ groups: [{ properties: [{ key: "id", type: "cohort", operator: "in", value: 1, negation: true }], rollout_percentage: 1, variant: null }] }))).toBe(false);
    expect(editableInForm(resource({ groups: [{ properties: [{ key: "p", type: "person", operator: "exact", value: "x" }], rollout_percentage: 1, variant: null }] }))).toBe(true);
    expect(editableInForm(resource({ groups: [], aggregation_group_type_index: 0 }))).toBe(false);
    expect(editableInForm(resource({ groups: [{ properties: [{ key: "3", type: "flag", operator: "flag_evaluates_to", value: true }], rollout_percentage: 1, variant: null }] }))).toBe(false);
  });

  it.each([
    [{ groups: [{ properties: [], rollout_percentage: null, variant: null }] }, "100% of all users"],
    [{ groups: [{ properties: [], rollout_percentage: 5, variant: null }] }, "5% of all users"],
    [{ groups: [{ properties: [{ key: "a", type: "person" as const }], rollout_percentage: 50, variant: null }] }, "50% of users matching 1 condition"],
    [{ groups: [{ properties: [], rollout_percentage: 5, variant: null }, { properties: [], rollout_percentage: 5, variant: null }] }, "2 condition sets"],
    [{ groups: [], multivariate: { variants: [{ key: "a", rollout_percentage: 100 }] } }, "No conditions · 1 variant"],
  ])("summarises %j as %s", (filters, text) => {
    expect(rolloutSummary(resource(filters as Partial<FlagResource["filters"]>))).toBe(text);
  });
});

describe("the reach lines' percentages", () => {
  it("rounds to whole percent, keeps a few and nearly all visible, and marks estimates", () => {
    expect(reachPercent(0.25, false)).toBe("25%");
    expect(reachPercent(0.2049, true)).toBe("≈20%");
    expect(reachPercent(0.004, true)).toBe("≈<1%");
    expect(reachPercent(0.996, false)).toBe(">99%");
    expect(reachPercent(1, false)).toBe("100%");
    expect(reachPercent(0, false)).toBe("0%");
  });

  it("a new flag starts as PostHog's: one condition set, no filters, rolled out to everyone", () => {
    expect(EMPTY_DRAFT.conditions).toHaveLength(1);
    expect(EMPTY_DRAFT.conditions[0]).toMatchObject({ properties: [], rollout: "100", variant: "" });
    expect(reachGroups({ ...EMPTY_DRAFT, key: "k" })).toEqual([{ properties: [], rollout_percentage: 100, variant: null }]);
  });
});

describe("the test box's why", () => {
  it("names the condition set by its description, else by its filters", () => {
    expect(conditionName(1, "Staff", [])).toBe("condition set 2 (“Staff”)");
    expect(conditionName(0, null, [])).toBe("condition set 1 (everyone)");
    expect(
      conditionName(0, null, [
        { key: "email", value: "@burrow.test", operator: "icontains", type: "person" },
        { key: "plan", value: ["pro", "team"], operator: "exact", type: "person" },
        { key: "beta", operator: "is_set", type: "person" },
        { key: "id", value: 4, operator: "not_in", type: "cohort" },
      ]),
    ).toBe("condition set 1 (email contains @burrow.test and plan equals pro, team and beta is set and is not in cohort 4)");
  });

  it("compares the bucket with the rollout the way the hash is read (≤ is inside)", () => {
    expect(bucketText(0.7312, 50)).toBe("bucket 0.73 > rollout 50%: outside the rollout");
    expect(bucketText(0.5, 50)).toBe("bucket 0.50 ≤ rollout 50%: inside the rollout");
    expect(bucketText(0.5004, 50)).toBe("bucket 0.5004 > rollout 50%: outside the rollout");
    expect(bucketText(0.01, 0)).toBe("bucket 0.01 > rollout 0%: outside the rollout");
  });
});
