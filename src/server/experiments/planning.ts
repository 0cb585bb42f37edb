/**
 * The planning figures an experiment shows: the sample-ratio-mismatch check on exposures
 * and the sample size needed to see a minimum detectable effect.
 */
import { chiSquareSf } from "./distributions";

/** Below this p-value the split is called a mismatch (PostHog's SRM health check, GrowthBook's default). */
export const SRM_P_THRESHOLD = 0.001;

export interface SampleRatioCheck {
  chi_square: number;
  degrees_of_freedom: number;
  p_value: number;
  mismatch: boolean;
  expected: Record<string, number>;
}

/**
 * Pearson's chi-square of the exposures against the configured split (percentages, any
 * total: they are normalised). Null when there is nothing to test: fewer than two variants
 * with a share, or no exposures.
 */
export function sampleRatioMismatch(exposures: Record<string, number>, split: Record<string, number>): SampleRatioCheck | null {
  const keys = Object.keys(split).filter((key) => (split[key] ?? 0) > 0);
  const shareTotal = keys.reduce((total, key) => total + split[key]!, 0);
  const observedTotal = keys.reduce((total, key) => total + (exposures[key] ?? 0), 0);
  if (keys.length < 2 || observedTotal <= 0 || shareTotal <= 0) return null;
  let chi = 0;
  const expected: Record<string, number> = {};
  for (const key of keys) {
    const want = (observedTotal * split[key]!) / shareTotal;
    expected[key] = want;
    chi += ((exposures[key] ?? 0) - want) ** 2 / want;
  }
  const df = keys.length - 1;
  const p = chiSquareSf(chi, df);
  return { chi_square: chi, degrees_of_freedom: df, p_value: p, mismatch: p < SRM_P_THRESHOLD, expected };
}

/**
 * Persons per variant for a funnel, by PostHog's rule of thumb n = 16·σ²/δ² (80 % power at
 * α = 0.05, as its calculator): `conversionRatePercent` the baseline rate, `mdePercent` the
 * smallest change to detect in percentage points. 0 when no effect is asked for.
 */
export function funnelSampleSizePerVariant(conversionRatePercent: number, mdePercent: number): number {
  if (!(mdePercent > 0)) return 0;
  const rate = Math.min(Math.max(conversionRatePercent, 0), 100);
  return Math.ceil((1600 * rate * (1 - rate / 100)) / (mdePercent * mdePercent));
}

/**
 * Persons per variant for a mean metric, by the same rule: the baseline's mean and variance
 * per person, and the smallest change to detect as a percentage of the mean.
 */
export function meanSampleSizePerVariant(mean: number, variance: number, mdePercent: number): number {
  const delta = (Math.abs(mean) * mdePercent) / 100;
  if (!(delta > 0) || !(variance >= 0)) return 0;
  return Math.ceil((16 * variance) / (delta * delta));
}

/** The whole experiment's sample and, given the exposures a day, the days it takes to reach it. */
export function experimentPlan(perVariant: number, variantCount: number, exposuresPerDay: number | null): { sample_size: number; days: number | null } {
  const sample = perVariant * Math.max(1, variantCount);
  return { sample_size: sample, days: exposuresPerDay && exposuresPerDay > 0 ? Math.ceil(sample / exposuresPerDay) : null };
}
