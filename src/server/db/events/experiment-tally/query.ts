/**
 * The per-variant tally of an experiment's metric (PostHog's exposure_query_logic.py and its
 * metric queries, POSTHOG-QUERY-NOTES §10), aggregated in the store in one statement: a row
 * per variant, never one per person or event, so that a million exposures come back as a
 * handful of numbers. Both stores write the same rules (postgres.ts, clickhouse.ts):
 *
 * - Exposure: events satisfying `exposure` whose `variantKey` property is one of `variants`
 *   (a holdout's `holdout-<id>` is not, so holdout members are left out). An actor's
 *   exposure starts at its first such event. An actor exposed to several variants is
 *   `$multiple` (`exclude`, PostHog's default) or kept in the variant of its first exposure
 *   (`first_seen`; two variants at the same first instant: the one first in text order).
 * - Metric events count from the first exposure (the same microsecond included) to the end
 *   of the range, or to `windowMs` after the exposure (included) when one is set.
 * - Funnel, ordered: step 1 is the first step-1 event from the exposure on, each next step
 *   the first of its events strictly later than the previous step's (so one event, or two at
 *   the same instant, never complete two steps); unordered: the steps with any event.
 *   `sum` = actors who completed every step; `step_counts[k]` = actors who reached step k
 *   (`[0]` every exposed actor).
 * - Mean: per actor the count of the source's events (`total`) or the sum of its numeric
 *   property (`sum`: JSON numbers and numeric strings as the dialect's propertyNumber reads
 *   them; anything else adds nothing); `sum_squares` of those per-actor values.
 *
 * An actor is a person, or for events stored without one, its distinct id (as actorEvents).
 */
import type { PropertyGroup } from "@/server/properties/contract";
import type { EventMatcher } from "../actor-events/query";

export const MULTIPLE_VARIANT_KEY = "$multiple";

export type ExperimentTallyMetric =
  | { type: "funnel"; steps: EventMatcher[]; ordered: boolean; windowMs: number | null }
  | { type: "mean"; source: EventMatcher; math: "total" | "sum"; property: string | null; windowMs: number | null };

export interface ExperimentTallyQuery {
  /** Events count when `from` ≤ timestamp ≤ `to`. */
  from: Date;
  to: Date;
  /** The time relative filter dates count back from. */
  now: Date;
  /** Every group must hold for an event to be read at all (test accounts). */
  filters: PropertyGroup[];
  exposure: EventMatcher;
  /** The exposure event's property holding the variant. */
  variantKey: string;
  /** The flag's variants, control first. */
  variants: readonly string[];
  handling: "exclude" | "first_seen";
  metric: ExperimentTallyMetric;
}

export interface VariantTallyRow {
  key: string;
  number_of_samples: number;
  sum: number;
  sum_squares: number;
  /** Funnels only. */
  step_counts?: number[];
}

export interface ExperimentTally {
  /** In `variants`' order, every variant present (zeros when nobody saw it). */
  variants: VariantTallyRow[];
  /** Actors left out for having seen several variants (with `exclude`). */
  multiple: number;
}

/** The metric's matchers after the exposure's, in the order the statements number them. */
export function tallyMatchers(query: ExperimentTallyQuery): EventMatcher[] {
  return [query.exposure, ...(query.metric.type === "funnel" ? query.metric.steps : [query.metric.source])];
}

/** Every filter group a tally reads. */
export function tallyGroups(query: ExperimentTallyQuery): PropertyGroup[] {
  return [...query.filters, ...tallyMatchers(query).flatMap((matcher) => matcher.filters)];
}

/**
 * The variants as the statements number them (1, 2, …; none is 0 or NULL; an actor's key 0 is
 * `$multiple`), in the byte order
 * of their UTF-8 text: the smallest number among the variants an actor was first shown at one
 * instant is then the first of them in text order (`first_seen`), alike on both stores.
 */
export function numberedVariants(query: ExperimentTallyQuery): string[] {
  return [...new Set(query.variants)].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** The window in microseconds (the stores compare integer microseconds, exactly alike), or null. */
export const windowMicros = (metric: ExperimentTallyMetric): number | null => (metric.windowMs === null ? null : Math.round(metric.windowMs * 1000));

/** The stores' rows (per variant number, numberedVariants' 1, 2, …, and 0 for `$multiple`) as the answer. */
export function tallyFromRows(query: ExperimentTallyQuery, rows: readonly { k: number; n: number; s: number; q: number; c: readonly number[] }[]): ExperimentTally {
  const funnel = query.metric.type === "funnel";
  const steps = funnel ? (query.metric as { steps: EventMatcher[] }).steps.length : 0;
  const numbered = numberedVariants(query);
  const byKey = new Map(rows.map((row) => [row.k === 0 ? MULTIPLE_VARIANT_KEY : numbered[row.k - 1], row]));
  const variants = query.variants.map((key): VariantTallyRow => {
    const row = byKey.get(key);
    const n = Number(row?.n ?? 0);
    return {
      key,
      number_of_samples: n,
      sum: Number(row?.s ?? 0),
      sum_squares: Number(row?.q ?? 0),
      ...(funnel ? { step_counts: [n, ...Array.from({ length: steps }, (_, s) => Number(row?.c[s] ?? 0))] } : {}),
    };
  });
  return { variants, multiple: Number(byKey.get(MULTIPLE_VARIANT_KEY)?.n ?? 0) };
}
