import { describe, expect, it } from "vitest";
import { evaluateFlag, type FlagDefinition } from "./evaluation";
import { explainHoldout, explainVariant } from "./explain";

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
