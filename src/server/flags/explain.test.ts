import { describe, expect, it } from "vitest";
import { evaluateFlag, type EvaluationContext, type FlagDefinition } from "./evaluation";
import { explainEvaluation, explainHoldout, explainVariant } from "./explain";

// PostHog's SDK test flag (POSTHOG-NOTES.md §1.2): distinct_id_0's variant hash is 0.6186454537930379.
const MULTIVARIATE: FlagDefinition = {
  id: 1,
  key: "multivariate-flag",
  active: true,
  filters: {
    groups: [{ properties: [], rollout_percentage: 100 }],
    multivariate: {
      variants: [
        { key: "first-variant", rollout_percentage: 50 },
        { key: "second-variant", rollout_percentage: 20 },
        { key: "third-variant", rollout_percentage: 20 },
        { key: "fourth-variant", rollout_percentage: 5 },
        { key: "fifth-variant", rollout_percentage: 5 },
      ],
    },
  },
};

describe("explainVariant", () => {
  it("places a known hash in its variant's range, as evaluation decides", () => {
    const why = explainVariant(MULTIVARIATE, "distinct_id_0")!;
    expect(why.hash).toBe(0.6186454537930379);
    // Summed in order as evaluation sums them (so 0.5 + 0.2 is 0.7 only to the last bit)
    expect(why.ranges.map((range) => [range.key, Number(range.from.toFixed(12)), Number(range.to.toFixed(12))])).toEqual([
      ["first-variant", 0, 0.5],
      ["second-variant", 0.5, 0.7],
      ["third-variant", 0.7, 0.9],
      ["fourth-variant", 0.9, 0.95],
      ["fifth-variant", 0.95, 1],
    ]);
    expect(why.variant).toBe("second-variant");
    expect(why.text).toBe("variant hash 0.6186 falls in second-variant's range 0.50–0.70");
    expect(evaluateFlag(MULTIVARIATE, { distinctId: "distinct_id_0", personProperties: {} }).variant).toBe(why.variant);
  });

  it("agrees with evaluation for many ids, and says when the percentages leave the hash out", () => {
    for (let i = 0; i < 200; i++) {
      expect(explainVariant(MULTIVARIATE, `user-${i}`)!.variant).toBe(evaluateFlag(MULTIVARIATE, { distinctId: `user-${i}`, personProperties: {} }).variant);
    }
    // beta-feature.user1 hashes to 0.7628393349059729 with the variant salt: past a 60 % cover
    const partial: FlagDefinition = { id: 2, key: "beta-feature", active: true, filters: { multivariate: { variants: [{ key: "control", rollout_percentage: 30 }, { key: "test", rollout_percentage: 30 }] } } };
    const why = explainVariant(partial, "user1")!;
    expect(why.variant).toBeNull();
    expect(why.text).toBe("variant hash 0.7628 falls in no variant's range (they cover 0.00–0.60)");
  });

  it("names a condition set's own variant, which wins over the hash, and nothing for a boolean flag", () => {
    const why = explainVariant(MULTIVARIATE, "distinct_id_0", "fifth-variant")!;
    expect(why.override).toBe("fifth-variant");
    expect(why.text).toBe("the condition set assigns fifth-variant (the variant hash 0.6186 falls in second-variant's range 0.50–0.70)");
    // An override naming no variant of the flag is ignored, as evaluation ignores it
    expect(explainVariant(MULTIVARIATE, "distinct_id_0", "gone")!.override).toBeNull();
    expect(explainVariant({ ...MULTIVARIATE, filters: { groups: [] } }, "distinct_id_0")).toBeNull();
  });
});

describe("explainHoldout", () => {
  // holdout-user1 hashes to 0.16980038073507872 (PostHog's holdout hash: a dash, no salt)
  const withHoldout = (exclusion: number): FlagDefinition => ({ ...MULTIVARIATE, filters: { ...MULTIVARIATE.filters, holdout: { id: 7, exclusion_percentage: exclusion } } });

  it("holds an id whose hash is within the exclusion, as evaluation does", () => {
    const held = explainHoldout(withHoldout(20), "user1")!;
    expect(held).toMatchObject({ id: 7, hash: 0.16980038073507872, exclusion: 0.2, held: true, text: "in holdout (hash 0.1698 ≤ 0.20)" });
    expect(evaluateFlag(withHoldout(20), { distinctId: "user1", personProperties: {} }).variant).toBe("holdout-7");
    const free = explainHoldout(withHoldout(10), "user1")!;
    expect(free).toMatchObject({ held: false, text: "not in holdout (hash 0.1698 > 0.10)" });
    expect(evaluateFlag(withHoldout(10), { distinctId: "user1", personProperties: {} }).variant).not.toBe("holdout-7");
    expect(explainHoldout(MULTIVARIATE, "user1")).toBeNull();
  });
});

describe("explainEvaluation on a flag bucketed by a group", () => {
  // Hashes computed apart from this code (Python's hashlib, PostHog's formula): for the group key
  // globex, rollout sha1("multivariate-flag.globex") 0.24679554301910528, variant (salt
  // "variant") 0.9881532871234548, holdout sha1("holdout-globex") 0.22745503401367484; acme's
  // holdout hash is 0.9269703562845474. The person shopper-1's would be 0.7184646195042554
  // (variant) and 0.1597286788122596 (holdout): a different answer each time.
  const byCompany: FlagDefinition = { ...MULTIVARIATE, filters: { ...MULTIVARIATE.filters, aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 50 }] } };
  const withHoldout: FlagDefinition = { ...byCompany, filters: { ...byCompany.filters, holdout: { id: 7, exclusion_percentage: 30 } } };
  const company = (key: string | null): EvaluationContext => ({ distinctId: "shopper-1", personProperties: {}, groupTypeMapping: { "0": "company", "1": "team" }, groups: key === null ? {} : { company: key } });
  const explain = (flag: FlagDefinition, ctx: EvaluationContext) => {
    const result = evaluateFlag(flag, ctx);
    return { result, why: explainEvaluation(flag, ctx, result) };
  };

  it("hashes the group key, not the person, for the rollout and the variant", () => {
    const { result, why } = explain(byCompany, company("globex"));
    expect(why.bucketedBy).toEqual({ id: "globex", groupType: "company", continuity: false });
    expect(why.rollout).toEqual({ hash: 0.24679554301910528, rollout: 50 });
    expect(why.variant).toMatchObject({ hash: 0.9881532871234548, variant: "fifth-variant", override: null });
    expect(why.variant!.text).toBe("variant hash 0.9882 falls in fifth-variant's range 0.95–1.00");
    expect(result.variant).toBe("fifth-variant");
    // The person's own hash would have said third-variant
    expect(explainVariant(byCompany, "shopper-1")!.variant).toBe("third-variant");
  });

  it("hashes the group key for the holdout", () => {
    const held = explain(withHoldout, company("globex"));
    expect(held.why.holdout).toMatchObject({ id: 7, hash: 0.22745503401367484, held: true, text: "in holdout (hash 0.2275 ≤ 0.30)" });
    expect([held.result.variant, held.why.variant, held.why.rollout]).toEqual(["holdout-7", null, null]);
    // acme is out of the holdout, though the person shopper-1 (0.1597) would be in it
    const free = explain(withHoldout, company("acme"));
    expect(free.why.holdout).toMatchObject({ hash: 0.9269703562845474, held: false });
    expect(free.result.variant).not.toBe("holdout-7");
  });

  it("explains nothing hashed when the request names no group of the flag's type", () => {
    const { result, why } = explain(withHoldout, company(null));
    expect(result.reason.code).toBe("no_group_type");
    expect(why).toEqual({ bucketedBy: null, rollout: null, variant: null, holdout: null });
  });

  it("agrees with evaluation for many group keys: the rollout, the variant and the holdout", () => {
    const flag: FlagDefinition = { ...withHoldout, filters: { ...withHoldout.filters, groups: [{ properties: [], rollout_percentage: 60 }], holdout: { id: 7, exclusion_percentage: 10 } } };
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const { result, why } = explain(flag, company(`org-${i}`));
      expect(why.bucketedBy?.id).toBe(`org-${i}`);
      expect(why.holdout!.held).toBe(result.variant === "holdout-7");
      if (why.holdout!.held) {
        seen.add("held");
        continue;
      }
      expect(why.rollout!.hash <= 0.6).toBe(result.reason.code === "condition_match");
      seen.add(result.reason.code);
      if (result.reason.code === "condition_match") expect(why.variant!.variant).toBe(result.variant);
      else expect(why.variant).toBeNull();
    }
    expect([...seen].sort()).toEqual(["condition_match", "held", "out_of_rollout_bound"]);
  });

  it("follows a condition set aggregated by another group type, and a person's experience-continuity id", () => {
    const mixed: FlagDefinition = { ...MULTIVARIATE, filters: { ...MULTIVARIATE.filters, groups: [{ properties: [], rollout_percentage: 100, aggregation_group_type_index: 1 }] } };
    const ctx = { ...company("acme"), groups: { team: "globex" } };
    const { result, why } = explain(mixed, ctx);
    expect(why.bucketedBy).toEqual({ id: "globex", groupType: "team", continuity: false });
    expect(why.variant!.variant).toBe(result.variant);
    const continuing: FlagDefinition = { ...MULTIVARIATE, ensure_experience_continuity: true };
    const pinned = explain(continuing, { distinctId: "shopper-1", personProperties: {}, hashKeyOverrides: { "multivariate-flag": "distinct_id_0" } });
    expect(pinned.why.bucketedBy).toEqual({ id: "distinct_id_0", groupType: null, continuity: true });
    expect(pinned.why.variant).toMatchObject({ hash: 0.6186454537930379, variant: "second-variant" });
    expect(pinned.result.variant).toBe("second-variant");
  });
});
