import { describe, expect, it } from "vitest";
import { evaluateFlag, evaluateFlags, flagHash, matchingVariant, type EvaluationContext, type FlagDefinition } from "./evaluation";

function flag(key: string, filters: FlagDefinition["filters"], extra: Partial<FlagDefinition> = {}): FlagDefinition {
  return { id: 1, key, active: true, filters, ...extra };
}
function ctx(distinctId: string, extra: Partial<EvaluationContext> = {}): EvaluationContext {
  return { distinctId, personProperties: {}, ...extra };
}
function valueOf(definition: FlagDefinition, context: EvaluationContext): boolean | string {
  const result = evaluateFlag(definition, context);
  return result.enabled ? (result.variant ?? true) : false;
}

describe("flagHash (PostHog's SHA-1 rollout hash)", () => {
  // Raw strings and hashes from PostHog's SDK tests (POSTHOG-NOTES.md §1.2).
  it.each([
    ["simple-flag", "distinct_id_0", "", 0.7836963764220432],
    ["simple-flag", "distinct_id_1", "", 0.3397069926995401],
    ["multivariate-flag", "distinct_id_0", "variant", 0.6186454537930379],
    ["beta-feature", "user1", "", 0.6156884763919209],
    ["beta-feature", "user1", "variant", 0.7628393349059729],
  ])("%s.%s%s → %f", (key, id, salt, expected) => {
    expect(flagHash(key, id, salt)).toBe(expected);
  });

  it("hashes holdouts with a dash and no salt", () => {
    expect(flagHash("holdout", "user1", "", "-")).toBe(0.16980038073507872);
  });

  it("gives the rounded hashes of the SDK table for the first ids", () => {
    const table: [string, number, number, number][] = [
      ["distinct_id_2", 0.372043, 0.356604, 0.063901],
      ["distinct_id_5", 0.964085, 0.207616, 0.645715],
      ["distinct_id_9", 0.142544, 0.873172, 0.980122],
    ];
    for (const [id, simple, multivariate, variant] of table) {
      expect(flagHash("simple-flag", id)).toBeCloseTo(simple, 6);
      expect(flagHash("multivariate-flag", id)).toBeCloseTo(multivariate, 6);
      expect(flagHash("multivariate-flag", id, "variant")).toBeCloseTo(variant, 6);
    }
  });
});

describe("consistency with PostHog's SDK test vectors", () => {
  // The first 100 expected results of test_simple_flag_consistency and
  // test_multivariate_flag_consistency (PostHog's server and SDK tests), ids distinct_id_0…99.
  const SIMPLE = "0110100101" + "0110100011" + "0100101100" + "0111100000" + "0110110001" + "1000010101" + "0110101011" + "0010010100" + "1000110110" + "1111101100";
  // 0 = false, 1…5 = first…fifth variant.
  const MULTIVARIATE = "2210021000" + "1301210041" + "0300011111" + "1303210300" + "1201120100" + "1112102232" + "1012401110" + "1203000000" + "1502120330" + "0003001103";
  const VARIANTS = ["first-variant", "second-variant", "third-variant", "fourth-variant", "fifth-variant"];

  it("simple-flag at 45%", () => {
    const simple = flag("simple-flag", { groups: [{ properties: [], rollout_percentage: 45 }] });
    for (let index = 0; index < SIMPLE.length; index++) {
      const result = evaluateFlag(simple, ctx(`distinct_id_${index}`));
      expect(result.enabled, `distinct_id_${index}`).toBe(SIMPLE[index] === "1");
      expect(result.reason.code).toBe(SIMPLE[index] === "1" ? "condition_match" : "out_of_rollout_bound");
      expect(result.reason.condition_index).toBe(0);
    }
  });

  it("multivariate-flag at 55% with five variants", () => {
    const multivariate = flag("multivariate-flag", {
      groups: [{ properties: [], rollout_percentage: 55 }],
      multivariate: {
        variants: [
          { key: "first-variant", name: "First Variant", rollout_percentage: 50 },
          { key: "second-variant", name: "Second Variant", rollout_percentage: 20 },
          { key: "third-variant", name: "Third Variant", rollout_percentage: 20 },
          { key: "fourth-variant", name: "Fourth Variant", rollout_percentage: 5 },
          { key: "fifth-variant", name: "Fifth Variant", rollout_percentage: 5 },
        ],
      },
    });
    for (let index = 0; index < MULTIVARIATE.length; index++) {
      const code = Number(MULTIVARIATE[index]);
      expect(valueOf(multivariate, ctx(`distinct_id_${index}`)), `distinct_id_${index}`).toBe(code === 0 ? false : VARIANTS[code - 1]);
    }
  });
});

describe("evaluateFlag", () => {
  const variants = [
    { key: "control", rollout_percentage: 50 },
    { key: "test", rollout_percentage: 50 },
  ];

  it("is off with flag_disabled when inactive, whatever the conditions", () => {
    const result = evaluateFlag(flag("off", { groups: [{ rollout_percentage: 100 }] }, { active: false }), ctx("u"));
    expect(result).toMatchObject({ enabled: false, variant: null, reason: { code: "flag_disabled", condition_index: null } });
  });

  it("tries condition groups in order and reports the first that matches", () => {
    const definition = flag("ordered", {
      groups: [
        { properties: [{ key: "plan", value: "pro", type: "person" }], rollout_percentage: 100 },
        { properties: [{ key: "email", value: "@acme.com", operator: "icontains", type: "person" }], rollout_percentage: 100 },
        { properties: [], rollout_percentage: 0 },
      ],
    });
    expect(evaluateFlag(definition, ctx("a", { personProperties: { email: "x@ACME.com" } })).reason).toEqual({
      code: "condition_match",
      condition_index: 1,
      description: "Matched condition set 2",
    });
    expect(evaluateFlag(definition, ctx("a", { personProperties: { plan: "PRO", email: "x@acme.com" } })).reason.condition_index).toBe(0);
    const none = evaluateFlag(definition, ctx("a", { personProperties: { plan: "free" } }));
    expect(none).toMatchObject({ enabled: false, reason: { code: "out_of_rollout_bound", condition_index: 2, description: "Out of rollout bound" } });
  });

  it("answers no_condition_match when no group's filters hold", () => {
    const definition = flag("nomatch", { groups: [{ properties: [{ key: "plan", value: ["pro", "team"], type: "person" }] }] });
    expect(evaluateFlag(definition, ctx("a", { personProperties: { plan: "free" } })).reason).toEqual({
      code: "no_condition_match",
      condition_index: null,
      description: "No matching condition set",
    });
  });

  it("uses a group's variant override when the flag has that variant, else the hashed variant", () => {
    const definition = flag("mv", {
      groups: [
        { properties: [{ key: "beta", value: true, type: "person" }], rollout_percentage: 100, variant: "test" },
        { properties: [], rollout_percentage: 100, variant: "missing" },
      ],
      multivariate: { variants },
    });
    for (let index = 0; index < 50; index++) {
      const id = `user-${index}`;
      expect(valueOf(definition, ctx(id, { personProperties: { beta: "TRUE" } }))).toBe("test");
      const hashed = flagHash("mv", id, "variant") < 0.5 ? "control" : "test";
      expect(valueOf(definition, ctx(id))).toBe(hashed);
    }
  });

  it("is true without a variant when the variants do not cover the hash", () => {
    const partial = flag("partial", { groups: [{ rollout_percentage: 100 }], multivariate: { variants: [{ key: "a", rollout_percentage: 10 }] } });
    let sawA = false;
    let sawTrue = false;
    for (let index = 0; index < 100; index++) {
      const id = `id-${index}`;
      const expected = flagHash("partial", id, "variant") < 0.1 ? "a" : true;
      expect(valueOf(partial, ctx(id))).toBe(expected);
      if (expected === "a") sawA = true;
      else sawTrue = true;
    }
    expect(sawA && sawTrue).toBe(true);
  });

  it("includes a hash exactly at the rollout threshold (hash > pct/100 is out)", () => {
    const id = "distinct_id_1";
    const hash = flagHash("simple-flag", id);
    const at = flag("simple-flag", { groups: [{ rollout_percentage: hash * 100 }] });
    // The threshold computed back from the hash may round either way; one ulp above must be in.
    const above = flag("simple-flag", { groups: [{ rollout_percentage: (hash + Number.EPSILON) * 100 }] });
    expect(evaluateFlag(above, ctx(id)).enabled).toBe(true);
    expect(evaluateFlag(at, ctx(id)).enabled).toBe(hash <= (hash * 100) / 100);
  });

  it("returns the payload of the value, parsing JSON text", () => {
    const definition = flag("payloads", {
      groups: [{ rollout_percentage: 100 }],
      multivariate: { variants: [{ key: "only", rollout_percentage: 100 }] },
      payloads: { only: '{"color":"blue"}', true: "ignored" },
    });
    expect(evaluateFlag(definition, ctx("x")).payload).toEqual({ color: "blue" });
    const boolean = flag("b", { groups: [{ rollout_percentage: 100 }], payloads: { true: "plain text" } });
    expect(evaluateFlag(boolean, ctx("x")).payload).toBe("plain text");
    const off = flag("off", { groups: [{ rollout_percentage: 0 }], payloads: { true: "1" } });
    expect(evaluateFlag(off, ctx("x")).payload).toBeNull();
  });

  it("holds a share of users out before the conditions", () => {
    const definition = flag("held", { groups: [{ rollout_percentage: 100 }], holdout: { id: 7, exclusion_percentage: 30 } });
    for (let index = 0; index < 50; index++) {
      const id = `h-${index}`;
      const result = evaluateFlag(definition, ctx(id));
      if (flagHash("holdout", id, "", "-") <= 0.3) {
        expect(result).toMatchObject({ enabled: true, variant: "holdout-7", reason: { code: "holdout_condition_value" } });
      } else {
        expect(result).toMatchObject({ enabled: true, variant: null, reason: { code: "condition_match" } });
      }
    }
  });

  describe("group flags", () => {
    const groupTypeMapping = { "0": "company", "1": "team" };
    const definition = flag("company-flag", {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: "size", value: 100, operator: "gte", type: "group", group_type_index: 0 }], rollout_percentage: 50 }],
    });

    it("is off with no_group_type when the request lacks the group", () => {
      expect(evaluateFlag(definition, ctx("p", { groupTypeMapping })).reason.code).toBe("no_group_type");
      expect(evaluateFlag(definition, ctx("p", { groupTypeMapping, groups: { team: "t1" } })).enabled).toBe(false);
    });

    it("reads the group's properties and buckets on the group key, not the distinct id", () => {
      for (let index = 0; index < 40; index++) {
        const key = `company-${index}`;
        const context = (distinctId: string) =>
          ctx(distinctId, { groupTypeMapping, groups: { company: key }, groupProperties: { company: { size: "250" } } });
        const expected = flagHash("company-flag", key) <= 0.5;
        expect(evaluateFlag(definition, context("anyone")).enabled).toBe(expected);
        expect(evaluateFlag(definition, context("someone-else")).enabled).toBe(expected);
      }
      const small = ctx("p", { groupTypeMapping, groups: { company: "c" }, groupProperties: { company: { size: 3 } } });
      expect(evaluateFlag(definition, small).reason.code).toBe("no_condition_match");
    });

    it("mixed targeting: a condition with its own group type uses that group, others the person", () => {
      const mixed = flag("mixed", {
        groups: [
          { properties: [{ key: "plan", value: "enterprise", type: "group", group_type_index: 1 }], rollout_percentage: 100, aggregation_group_type_index: 1 },
          { properties: [{ key: "email", value: "a@b.c", type: "person" }], rollout_percentage: 100 },
        ],
      });
      const groupCtx = ctx("p", { groupTypeMapping, groups: { team: "t" }, groupProperties: { team: { plan: "enterprise" } } });
      expect(evaluateFlag(mixed, groupCtx).reason.condition_index).toBe(0);
      expect(evaluateFlag(mixed, ctx("p", { groupTypeMapping, personProperties: { email: "a@b.c" } })).reason.condition_index).toBe(1);
      expect(evaluateFlag(mixed, ctx("p", { groupTypeMapping })).reason.code).toBe("no_condition_match");
    });
  });

  it("experience continuity buckets on the stored hash key instead of the distinct id", () => {
    const definition = flag("continuity", { groups: [{ rollout_percentage: 50 }] }, { ensure_experience_continuity: true });
    // Find an anonymous id that is in and an identified id that is out.
    const ids = Array.from({ length: 200 }, (_, index) => `id-${index}`);
    const inside = ids.find((id) => flagHash("continuity", id) <= 0.5)!;
    const outside = ids.find((id) => flagHash("continuity", id) > 0.5)!;
    expect(evaluateFlag(definition, ctx(outside)).enabled).toBe(false);
    expect(evaluateFlag(definition, ctx(outside, { hashKeyOverrides: { continuity: inside } })).enabled).toBe(true);
    // Flags without continuity ignore overrides.
    const plain = flag("continuity", { groups: [{ rollout_percentage: 50 }] });
    expect(evaluateFlag(plain, ctx(outside, { hashKeyOverrides: { continuity: inside } })).enabled).toBe(false);
  });

  it("answers an early-access opt-in from the super group before the conditions", () => {
    const definition = flag("early", {
      groups: [{ properties: [], rollout_percentage: 0 }],
      super_groups: [{ properties: [{ key: "$feature_enrollment/early", value: ["true"], operator: "exact", type: "person" }], rollout_percentage: 100 }],
    });
    expect(evaluateFlag(definition, ctx("u", { personProperties: { "$feature_enrollment/early": true } }))).toMatchObject({
      enabled: true,
      reason: { code: "super_condition_value", condition_index: 0 },
    });
    expect(evaluateFlag(definition, ctx("u", { personProperties: { "$feature_enrollment/early": false } }))).toMatchObject({
      enabled: false,
      reason: { code: "super_condition_value" },
    });
    expect(evaluateFlag(definition, ctx("u")).reason.code).toBe("out_of_rollout_bound");
  });

  it("follows flag dependencies (flag_evaluates_to)", () => {
    const base = flag("base", { groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }] }], multivariate: { variants: [{ key: "v", rollout_percentage: 100 }] } });
    const onWhenBase = flag("dependent", { groups: [{ properties: [{ key: "base", value: true, type: "flag", operator: "flag_evaluates_to", dependency_chain: ["base"] }] }] });
    const onWhenVariant = flag("by-variant", { groups: [{ properties: [{ key: "base", value: "v", type: "flag", operator: "flag_evaluates_to", dependency_chain: ["base"] }] }] });
    const onWhenOff = flag("when-off", { groups: [{ properties: [{ key: "base", value: false, type: "flag", operator: "flag_evaluates_to", dependency_chain: ["base"] }] }] });
    const flagsByKey = new Map([base, onWhenBase, onWhenVariant, onWhenOff].map((definition) => [definition.key, definition]));
    const pro = evaluateFlags([onWhenBase, onWhenVariant, onWhenOff], ctx("u", { flagsByKey, personProperties: { plan: "pro" } }));
    expect([pro.dependent!.enabled, pro["by-variant"]!.enabled, pro["when-off"]!.enabled]).toEqual([true, true, false]);
    const free = evaluateFlags([onWhenBase, onWhenVariant, onWhenOff], ctx("u", { flagsByKey, personProperties: { plan: "free" } }));
    expect([free.dependent!.enabled, free["by-variant"]!.enabled, free["when-off"]!.enabled]).toEqual([false, false, true]);
  });

  it("stops at the first rollout exclusion with early_exit", () => {
    const id = Array.from({ length: 100 }, (_, index) => `e-${index}`).find((candidate) => flagHash("exit", candidate) > 0.2)!;
    const groups = [{ properties: [], rollout_percentage: 20 }, { properties: [], rollout_percentage: 100 }];
    expect(evaluateFlag(flag("exit", { groups }), ctx(id)).enabled).toBe(true);
    expect(evaluateFlag(flag("exit", { groups, early_exit: true }), ctx(id))).toMatchObject({ enabled: false, reason: { code: "out_of_rollout_bound" } });
  });

  it("matchingVariant splits ids in proportion to the percentages", () => {
    const definition = flag("split", { multivariate: { variants: [{ key: "a", rollout_percentage: 20 }, { key: "b", rollout_percentage: 80 }] } });
    let a = 0;
    for (let index = 0; index < 10_000; index++) if (matchingVariant(definition, `s${index}`) === "a") a++;
    expect(a).toBeGreaterThan(1_800);
    expect(a).toBeLessThan(2_200);
  });
});
