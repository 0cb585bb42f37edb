/**
 * An experiment's statistics as PostHog's new engine computes them (products/experiments/stats,
 * POSTHOG-QUERY-NOTES §10): per variant against the control, the relative difference of
 * means with its delta-method variance; Bayesian = Gaussian posterior under the improper
 * (flat) prior, chance to win P(effect > 0) and the central credible interval; frequentist =
 * Welch's two-sided t-test with Welch–Satterthwaite degrees of freedom. Funnels are
 * proportions (n exposed, sum converted), means are sample means (n, sum, sum of squares).
 */
import { normalPpf, normalSf, normalCdf, studentTPpf, studentTTwoSidedP } from "./distributions";

export type MetricType = "funnel" | "mean";
export type StatsMethod = "bayesian" | "frequentist";
export type ValidationFailure = "not-enough-exposures" | "not-enough-metric-data" | "baseline-mean-is-zero";

/** One variant's sufficient statistics (PostHog's ExperimentStatsBase). */
export interface VariantStats {
  key: string;
  number_of_samples: number;
  sum: number;
  sum_squares: number;
}

/** PostHog's minimum of exposed persons per variant before any statistics are shown. */
export const MIN_EXPOSURES = 50;
/** A funnel needs this many conversions per variant (PostHog's NOT_ENOUGH_METRIC_DATA). */
export const MIN_CONVERSIONS = 5;

/** PostHog's `get_experiment_stats_method`: bayesian unless frequentist is asked for (anything else reads bayesian). */
export function statsMethod(value: unknown): StatsMethod {
  return value === "frequentist" ? "frequentist" : "bayesian";
}

/** What makes a statistic unusable; the variant is then shown without stats. */
export class StatisticError extends Error {}

/** Mean of a variant: the conversion rate for a funnel. */
export function variantMean(stats: VariantStats): number {
  return stats.sum / stats.number_of_samples;
}

/** Per-unit variance: p(1−p) for a proportion, the sample variance (n−1) for a mean. */
export function variantVariance(type: MetricType, stats: VariantStats): number {
  const n = stats.number_of_samples;
  if (type === "funnel") {
    const p = stats.sum / n;
    return p * (1 - p);
  }
  if (n === 1) return 0;
  // Rounding of large sums may make this a hair negative: a variance is never below 0
  return Math.max(0, (stats.sum_squares - (stats.sum * stats.sum) / n) / (n - 1));
}

function checkStatistic(type: MetricType, stats: VariantStats): void {
  const { number_of_samples: n, sum } = stats;
  if (!(n > 0)) throw new StatisticError("Sample size must be positive");
  if (type === "funnel" && (sum < 0 || sum > n)) throw new StatisticError("Number of successes must be between 0 and the sample size");
}

/** The relative difference (treatment − control)/control and its delta-method variance. */
export function relativeEffect(type: MetricType, treatment: VariantStats, control: VariantStats): { effect: number; variance: number } {
  checkStatistic(type, treatment);
  checkStatistic(type, control);
  const mt = variantMean(treatment);
  const mc = variantMean(control);
  if (Math.abs(mc) < 1e-10) throw new StatisticError("Control mean cannot be zero for relative difference calculation");
  const vt = variantVariance(type, treatment) / treatment.number_of_samples;
  const vc = variantVariance(type, control) / control.number_of_samples;
  // Var(T/C) ≈ Var(T)/C² + T²·Var(C)/C⁴ (treatment and control independent)
  return { effect: (mt - mc) / mc, variance: vt / (mc * mc) + (mt * mt * vc) / mc ** 4 };
}

export interface BayesianComparison {
  chance_to_win: number;
  credible_interval: [number, number];
  significant: boolean;
  effect_size: number;
}

/**
 * PostHog's BayesianProportionTest / BayesianMeanTest with the default improper prior:
 * posterior = likelihood, so the effect is N(relative difference, delta-method variance).
 * `inverse` (goal "decrease") makes a lower value the win.
 */
export function bayesianCompare(type: MetricType, treatment: VariantStats, control: VariantStats, options: { ciLevel?: number; inverse?: boolean } = {}): BayesianComparison {
  const ciLevel = options.ciLevel ?? 0.95;
  if (!(ciLevel > 0 && ciLevel < 1)) throw new StatisticError("ci_level must be between 0 and 1");
  if (type === "funnel") {
    // The normal approximation to the binomial needs ≥5 successes and ≥5 failures in each group
    for (const stats of [treatment, control]) {
      if (stats.sum < 5 || stats.number_of_samples - stats.sum < 5) throw new StatisticError("Normal approximation invalid: need at least 5 successes and 5 failures");
    }
  } else if (variantMean(control) <= 0) {
    throw new StatisticError("Control mean must be positive for relative difference calculation");
  }
  const { effect, variance } = relativeEffect(type, treatment, control);
  if (!(variance > 0)) throw new StatisticError("Effect variance must be positive");
  const sd = Math.sqrt(variance);
  const chance = options.inverse ? normalCdf(0, effect, sd) : normalSf(0, effect, sd);
  const alpha = 1 - ciLevel;
  return {
    chance_to_win: chance,
    credible_interval: [normalPpf(alpha / 2, effect, sd), normalPpf(1 - alpha / 2, effect, sd)],
    // PostHog's is_decisive: clearly better or clearly worse
    significant: chance > ciLevel || chance < 1 - ciLevel,
    effect_size: effect,
  };
}

export interface FrequentistComparison {
  p_value: number;
  confidence_interval: [number, number];
  significant: boolean;
  point_estimate: number;
  degrees_of_freedom: number;
}

/** Welch–Satterthwaite degrees of freedom of the two groups' per-unit variances. */
export function welchDegreesOfFreedom(type: MetricType, treatment: VariantStats, control: VariantStats): number {
  const nt = treatment.number_of_samples;
  const nc = control.number_of_samples;
  if (Math.min(nt, nc) < 2) throw new StatisticError("Welch-Satterthwaite requires n ≥ 2 per group.");
  const a = variantVariance(type, treatment) / nt;
  const b = variantVariance(type, control) / nc;
  return (a + b) ** 2 / (a ** 2 / (nt - 1) + b ** 2 / (nc - 1));
}

/** PostHog's TwoSidedTTest on the relative difference; significant when p < α. */
export function frequentistCompare(type: MetricType, treatment: VariantStats, control: VariantStats, options: { alpha?: number } = {}): FrequentistComparison {
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new StatisticError("Alpha must be between 0 and 1");
  if (treatment.number_of_samples < 5 || control.number_of_samples < 5) throw new StatisticError("Sample size below minimum (5)");
  const { effect, variance } = relativeEffect(type, treatment, control);
  const df = welchDegreesOfFreedom(type, treatment, control);
  if (!(variance > 0) || !Number.isFinite(df)) throw new StatisticError("Pooled variance must be positive");
  const se = Math.sqrt(variance);
  const t = effect / se;
  const pValue = studentTTwoSidedP(t, df);
  const margin = studentTPpf(1 - alpha / 2, df) * se;
  return { p_value: pValue, confidence_interval: [effect - margin, effect + margin], significant: pValue < alpha, point_estimate: effect, degrees_of_freedom: df };
}

/** PostHog's validate_variant_result: fewer than 50 exposures, a funnel under 5 conversions, a zero baseline. */
export function validationFailures(type: MetricType, stats: VariantStats, isBaseline: boolean): ValidationFailure[] {
  const failures: ValidationFailure[] = [];
  if (stats.number_of_samples < MIN_EXPOSURES) failures.push("not-enough-exposures");
  if (type === "funnel" && stats.sum < MIN_CONVERSIONS) failures.push("not-enough-metric-data");
  if (isBaseline && stats.sum === 0) failures.push("baseline-mean-is-zero");
  return failures;
}

export interface StatsConfig {
  method: StatsMethod;
  /** Bayesian credible level (0.95). */
  ciLevel?: number;
  /** Frequentist significance level (0.05). */
  alpha?: number;
}

export type BaselineResult = VariantStats & { validation_failures: ValidationFailure[] };

export type VariantResult = VariantStats & {
  validation_failures: ValidationFailure[];
  method: StatsMethod;
  significant: boolean | null;
  chance_to_win?: number | null;
  credible_interval?: [number, number] | null;
  p_value?: number | null;
  confidence_interval?: [number, number] | null;
};

/**
 * The new results shape: the control as `baseline`, each other variant compared with it.
 * A variant (or baseline) with a validation failure, or whose numbers the test cannot use
 * (no variance, too few failures), gets its counts and null statistics.
 */
export function experimentStatistics(type: MetricType, baseline: VariantStats, variants: readonly VariantStats[], config: StatsConfig & { inverse?: boolean }): { baseline: BaselineResult; variant_results: VariantResult[] } {
  const baselineFailures = validationFailures(type, baseline, true);
  const variant_results = variants.map((variant): VariantResult => {
    const failures = validationFailures(type, variant, false);
    const usable = failures.length === 0 && baselineFailures.length === 0;
    const base = { ...variant, validation_failures: failures, method: config.method };
    if (config.method === "frequentist") {
      const result = usable ? attempt(() => frequentistCompare(type, variant, baseline, { alpha: config.alpha })) : null;
      return { ...base, p_value: result?.p_value ?? null, confidence_interval: result?.confidence_interval ?? null, significant: result?.significant ?? null };
    }
    const result = usable ? attempt(() => bayesianCompare(type, variant, baseline, { ciLevel: config.ciLevel, inverse: config.inverse })) : null;
    return { ...base, chance_to_win: result?.chance_to_win ?? null, credible_interval: result?.credible_interval ?? null, significant: result?.significant ?? null };
  });
  return { baseline: { ...baseline, validation_failures: baselineFailures }, variant_results };
}

function attempt<T>(compute: () => T): T | null {
  try {
    return compute();
  } catch (error) {
    if (error instanceof StatisticError) return null;
    throw error;
  }
}
