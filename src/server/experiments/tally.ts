/**
 * The per-variant tally of an experiment (PostHog's exposure_query_logic.py and its metric
 * queries, POSTHOG-QUERY-NOTES §10), over each person's events as the event store reads them
 * (actor-events): bit 0 of an event's mask is the exposure, the next bits the metric's
 * steps (funnel) or its source (mean); value 0 is the exposure's variant, value 1 the mean's
 * property. One pure pass, so every store gives the same answer.
 *
 * - Exposure: events whose variant is one of the flag's variants (a holdout's `holdout-<id>`
 *   is not, so holdout members are left out). A person exposed to several variants is
 *   `$multiple` and left out (`exclude`, PostHog's default) or kept in the first one
 *   (`first_seen`).
 * - Metric events count from the person's first exposure (same instant included) to the end
 *   of the experiment, or to the conversion window after the exposure when one is set.
 * - Funnel: the steps in order (greedy, which reaches the furthest step) or in any order;
 *   `sum` = persons who completed every step. Mean: per person the count of events (`total`)
 *   or the sum of a numeric property (`sum`); `sum_squares` of those per-person values.
 */
import type { ActorEvents } from "@/server/db/events";
import type { VariantStats } from "./statistics";

export const MULTIPLE_VARIANT_KEY = "$multiple";

export type TallyMetric =
  | { type: "funnel"; steps: number; ordered: boolean; windowMs: number | null }
  | { type: "mean"; math: "total" | "sum"; windowMs: number | null };

export interface TallyPlan {
  /** The flag's variants, control first. */
  variants: readonly string[];
  handling: "exclude" | "first_seen";
  metric: TallyMetric;
}

export type VariantTally = VariantStats & { step_counts?: number[] };

export interface Tally {
  variants: VariantTally[];
  /** Persons left out for having seen several variants (with `exclude`). */
  multiple: number;
}

export function tallyExperiment(actors: readonly ActorEvents[], plan: TallyPlan): Tally {
  const known = new Set(plan.variants);
  const metric = plan.metric;
  const stepCount = metric.type === "funnel" ? metric.steps : 0;
  const byKey = new Map<string, VariantTally>(
    plan.variants.map((key) => [key, { key, number_of_samples: 0, sum: 0, sum_squares: 0, ...(metric.type === "funnel" ? { step_counts: new Array<number>(stepCount + 1).fill(0) } : {}) }]),
  );
  let multiple = 0;
  for (const actor of actors) {
    const { times, masks } = actor;
    const variantOf = actor.values[0]!;
    let first = -1;
    let variant: string | null = null;
    let several = false;
    for (let i = 0; i < times.length; i++) {
      if ((masks[i]! & 1) === 0) continue;
      const seen = variantOf[i];
      if (seen === null || seen === undefined || !known.has(seen)) continue;
      if (first < 0) {
        first = i;
        variant = seen;
      } else if (seen !== variant) several = true;
    }
    if (first < 0 || variant === null) continue;
    if (several && plan.handling === "exclude") {
      multiple++;
      continue;
    }
    const tally = byKey.get(variant)!;
    const start = times[first]!;
    const end = metric.windowMs === null ? Infinity : start + metric.windowMs;
    tally.number_of_samples++;
    let value = 0;
    if (metric.type === "funnel") {
      let reached = 0;
      if (metric.ordered) {
        for (let i = first; i < times.length && reached < metric.steps && times[i]! <= end; i++) {
          if (masks[i]! & (1 << (reached + 1))) reached++;
        }
      } else {
        let seenSteps = 0;
        for (let i = first; i < times.length && times[i]! <= end; i++) seenSteps |= masks[i]! >> 1;
        for (let s = 0; s < metric.steps; s++) if (seenSteps & (1 << s)) reached++;
      }
      for (let s = 0; s <= reached; s++) tally.step_counts![s]!++;
      value = reached === metric.steps ? 1 : 0;
    } else {
      const amounts = actor.values[1];
      for (let i = first; i < times.length && times[i]! <= end; i++) {
        if ((masks[i]! & 2) === 0) continue;
        if (metric.math === "total") value += 1;
        else {
          const amount = Number(amounts?.[i]);
          if (amounts?.[i] !== null && Number.isFinite(amount)) value += amount;
        }
      }
    }
    tally.sum += value;
    tally.sum_squares += value * value;
  }
  return { variants: plan.variants.map((key) => byKey.get(key)!), multiple };
}
