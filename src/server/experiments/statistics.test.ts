/**
 * The statistics against two references: values computed with scipy from PostHog's formulas
 * (products/experiments/stats), and jstat from npm for
 * the distribution functions over a grid.
 */
import { describe, expect, it } from "vitest";
// jstat ships no types; its CommonJS export is `{ jStat }`
// eslint-disable-next-line @typescript-eslint/ban-ts-comment
// @ts-ignore
import jstatModule from "jstat";
import { chiSquareSf, normalCdf, normalPpf, studentTCdf, studentTPpf, studentTTwoSidedP } from "./distributions";
import { bayesianCompare, experimentStatistics, frequentistCompare, relativeEffect, validationFailures, type VariantStats } from "./statistics";
import { experimentPlan, funnelSampleSizePerVariant, meanSampleSizePerVariant, sampleRatioMismatch } from "./planning";

interface JStat {
  normal: { cdf(x: number, m: number, s: number): number; inv(p: number, m: number, s: number): number };
  studentt: { cdf(x: number, df: number): number; inv(p: number, df: number): number };
  chisquare: { cdf(x: number, df: number): number };
}
const { jStat } = jstatModule as { jStat: JStat };

const v = (key: string, n: number, sum: number, sumSquares = sum): VariantStats => ({ key, number_of_samples: n, sum, sum_squares: sumSquares });

describe("distribution functions agree with jstat", () => {
  it("normal cdf and quantile", () => {
    for (const x of [-8, -3.2, -1.96, -0.5, 0, 0.3, 1.2, 2.5, 6]) expect(normalCdf(x)).toBeCloseTo(jStat.normal.cdf(x, 0, 1), 12);
    for (const p of [1e-9, 0.001, 0.025, 0.2, 0.5, 0.8, 0.975, 0.999999]) expect(normalPpf(p)).toBeCloseTo(jStat.normal.inv(p, 0, 1), 8);
    expect(normalPpf(0.975)).toBeCloseTo(1.959963984540054, 12);
  });
  it("Student's t cdf and quantile, fractional degrees of freedom too", () => {
    for (const df of [1, 2.3, 3.5, 10, 57.7, 1985.37]) {
      for (const t of [-4, -2.2, -0.7, 0, 0.4, 1.3, 3.1]) expect(studentTCdf(t, df)).toBeCloseTo(jStat.studentt.cdf(t, df), 7); // jstat itself is good to ~1e-8 here
      for (const p of [0.01, 0.2, 0.5, 0.9, 0.975]) expect(studentTPpf(p, df)).toBeCloseTo(jStat.studentt.inv(p, df), 6);
    }
    // scipy: t.ppf(0.975, 3.5), t.cdf(-2.2, 2.3)
    expect(studentTPpf(0.975, 3.5)).toBeCloseTo(2.9400886379827282, 9);
    expect(studentTCdf(-2.2, 2.3)).toBeCloseTo(0.07101453070604133, 10);
    expect(studentTTwoSidedP(1.3, 40)).toBeCloseTo(2 * (1 - jStat.studentt.cdf(1.3, 40)), 8);
    expect(studentTTwoSidedP(1.3, 40)).toBeCloseTo(0.2010425149921626, 13); // scipy: 2 * t.sf(1.3, 40)
  });
  it("chi-square survival", () => {
    for (const df of [1, 2, 5]) for (const x of [0.1, 1, 4, 10.5, 30]) expect(chiSquareSf(x, df)).toBeCloseTo(1 - jStat.chisquare.cdf(x, df), 10);
  });
});

describe("PostHog's tests on the relative difference (values from scipy with PostHog's formulas)", () => {
  // Each: treatment, control, Bayesian [chance, ci], frequentist [p, ci, df]
  const cases = [
    { type: "funnel" as const, t: v("test", 1000, 120), c: v("control", 1000, 100), chance: 0.9039004818067533, ci: [-0.10058461614448244, 0.5005846161444822], p: 0.19235020701505579, conf: [-0.10076797484835626, 0.500767974848356], df: 1985.3714563542528 },
    { type: "funnel" as const, t: v("test", 500, 40), c: v("control", 2000, 200), chance: 0.0658340080114071, ci: [-0.46001860557317165, 0.060018605573171596], p: 0.13204791558644868, conf: [-0.46039771630008686, 0.06039771630008681], df: 831.3356160856706 },
    { type: "mean" as const, t: v("test", 800, 4200, 31000), c: v("control", 820, 4000, 29000), chance: 0.9835981799272842, ci: [0.006234180679913048, 0.146265819320087], p: 0.032953569371449554, conf: [0.006181762685671305, 0.14631823731432875], df: 1617.899216619561 },
    { type: "mean" as const, t: v("test", 60, 30, 40), c: v("control", 55, 20, 25), chance: 0.8429702820812057, ci: [-0.3550653996992977, 1.1050653996992976], p: 0.31621373909268113, conf: [-0.36298085566041277, 1.1129808556604126], df: 112.82221128470594 },
  ];
  for (const [i, c] of cases.entries()) {
    it(`case ${i + 1}: ${c.type}, ${c.t.number_of_samples} vs ${c.c.number_of_samples}`, () => {
      const bayes = bayesianCompare(c.type, c.t, c.c);
      expect(bayes.chance_to_win).toBeCloseTo(c.chance, 10);
      expect(bayes.credible_interval[0]).toBeCloseTo(c.ci[0]!, 10);
      expect(bayes.credible_interval[1]).toBeCloseTo(c.ci[1]!, 10);
      const freq = frequentistCompare(c.type, c.t, c.c);
      expect(freq.p_value).toBeCloseTo(c.p, 9);
      expect(freq.confidence_interval[0]).toBeCloseTo(c.conf[0]!, 9);
      expect(freq.confidence_interval[1]).toBeCloseTo(c.conf[1]!, 9);
      expect(freq.degrees_of_freedom).toBeCloseTo(c.df, 6);
    });
  }
  it("by hand: 12 % against 10 % of 1000 is a +20 % effect with variance 0.02352", () => {
    const { effect, variance } = relativeEffect("funnel", v("test", 1000, 120), v("control", 1000, 100));
    expect(effect).toBeCloseTo(0.2, 12);
    // 0.12·0.88/1000/0.01 + 0.0144·(0.09/1000)/0.0001
    expect(variance).toBeCloseTo(0.01056 + 0.01296, 12);
  });
  it("significance: Bayesian is decisive beyond the credible level either way; frequentist below α", () => {
    expect(bayesianCompare("mean", v("t", 800, 4200, 31000), v("c", 820, 4000, 29000)).significant).toBe(true);
    expect(bayesianCompare("funnel", v("t", 1000, 120), v("c", 1000, 100)).significant).toBe(false);
    // clearly worse is decisive too
    expect(bayesianCompare("funnel", v("t", 5000, 400), v("c", 5000, 600)).significant).toBe(true);
    expect(frequentistCompare("mean", v("t", 800, 4200, 31000), v("c", 820, 4000, 29000)).significant).toBe(true);
    expect(frequentistCompare("mean", v("t", 800, 4200, 31000), v("c", 820, 4000, 29000), { alpha: 0.01 }).significant).toBe(false);
  });
  it("goal decrease inverts the chance to win", () => {
    const up = bayesianCompare("funnel", v("t", 1000, 120), v("c", 1000, 100));
    const down = bayesianCompare("funnel", v("t", 1000, 120), v("c", 1000, 100), { inverse: true });
    expect(up.chance_to_win + down.chance_to_win).toBeCloseTo(1, 12);
  });
});

describe("edge cases", () => {
  it("validation: under 50 exposures, a funnel under 5 conversions, a zero baseline", () => {
    expect(validationFailures("funnel", v("c", 49, 10), true)).toEqual(["not-enough-exposures"]);
    expect(validationFailures("funnel", v("c", 50, 0), true)).toEqual(["not-enough-metric-data", "baseline-mean-is-zero"]);
    expect(validationFailures("mean", v("t", 50, 2, 4), false)).toEqual([]);
  });
  it("zero conversions: counts without statistics, never a throw", () => {
    const out = experimentStatistics("funnel", v("control", 100, 0), [v("test", 100, 0)], { method: "bayesian" });
    expect(out.baseline.validation_failures).toContain("baseline-mean-is-zero");
    expect(out.variant_results[0]).toMatchObject({ key: "test", number_of_samples: 100, sum: 0, chance_to_win: null, credible_interval: null, significant: null });
    const freq = experimentStatistics("funnel", v("control", 100, 0), [v("test", 100, 0)], { method: "frequentist" });
    expect(freq.variant_results[0]).toMatchObject({ method: "frequentist", p_value: null, confidence_interval: null, significant: null });
  });
  it("all converted (no variance) and fewer than 5 failures give no statistics", () => {
    const out = experimentStatistics("funnel", v("control", 100, 100), [v("test", 100, 100)], { method: "frequentist" });
    expect(out.variant_results[0]!.p_value).toBeNull();
    const bayes = experimentStatistics("funnel", v("control", 100, 97), [v("test", 100, 50)], { method: "bayesian" });
    expect(bayes.variant_results[0]!.chance_to_win).toBeNull();
  });
  it("one variant (only the control): a baseline and no comparisons", () => {
    const out = experimentStatistics("funnel", v("control", 1000, 100), [], { method: "bayesian" });
    expect(out.variant_results).toEqual([]);
    expect(out.baseline.validation_failures).toEqual([]);
  });
  it("unequal splits and three variants: each compared with the control", () => {
    const out = experimentStatistics("funnel", v("control", 2000, 200), [v("test", 500, 40), v("test-2", 1000, 150)], { method: "bayesian" });
    expect(out.variant_results.map((r) => r.key)).toEqual(["test", "test-2"]);
    expect(out.variant_results[0]!.chance_to_win).toBeCloseTo(0.0658340080114071, 10);
    expect(out.variant_results[1]!.chance_to_win).toBeGreaterThan(0.99);
    expect(out.variant_results[1]!.significant).toBe(true);
  });
  it("a single exposure per group cannot have Welch degrees of freedom", () => {
    expect(() => frequentistCompare("mean", v("t", 1, 3, 9), v("c", 1, 2, 4))).toThrow();
  });
});

describe("planning", () => {
  it("sample ratio mismatch: scipy's chisquare", () => {
    const even = sampleRatioMismatch({ control: 5100, test: 4900 }, { control: 50, test: 50 })!;
    expect(even.chi_square).toBeCloseTo(4, 12);
    expect(even.p_value).toBeCloseTo(0.04550026389635857, 10);
    expect(even.mismatch).toBe(false);
    const three = sampleRatioMismatch({ a: 480, b: 1050, c: 470 }, { a: 25, b: 50, c: 25 })!;
    expect(three.chi_square).toBeCloseTo(5.1, 12);
    expect(three.p_value).toBeCloseTo(0.07808166600115318, 10);
    expect(sampleRatioMismatch({ control: 6000, test: 4000 }, { control: 50, test: 50 })!.mismatch).toBe(true);
    // a 90/10 split seen as 90/10 is no mismatch
    expect(sampleRatioMismatch({ control: 9000, test: 1000 }, { control: 90, test: 10 })!.p_value).toBeCloseTo(1, 12);
    expect(sampleRatioMismatch({ control: 0, test: 0 }, { control: 50, test: 50 })).toBeNull();
    expect(sampleRatioMismatch({ control: 10 }, { control: 100 })).toBeNull();
  });
  it("sample size: PostHog's 16σ²/δ² rule", () => {
    // 10 % baseline, 5 points: 1600·10·0.9/25
    expect(funnelSampleSizePerVariant(10, 5)).toBe(576);
    expect(funnelSampleSizePerVariant(10, 0)).toBe(0);
    // mean 20, variance 100, 10 %: 16·100/4
    expect(meanSampleSizePerVariant(20, 100, 10)).toBe(400);
    expect(experimentPlan(576, 3, 100)).toEqual({ sample_size: 1728, days: 18 });
    expect(experimentPlan(576, 2, null)).toEqual({ sample_size: 1152, days: null });
  });
});
