/**
 * "Why this variant" for the test box: where a bucketing id's hashes fall against a condition
 * set's rollout, a multivariate flag's variant ranges and its holdout, with the same hashes
 * evaluation.ts decides by (PostHog's: the rollout hash, the variant hash salted "variant", the
 * holdout hash of `holdout-<id>`), over the id evaluation buckets by — the person's (or the one
 * experience continuity kept), or the group key of a flag or set aggregated by a group. Pure;
 * the test box's procedure (service.ts) calls explainEvaluation with the evaluation's context.
 */
import { bucketingOf, flagHash, type Bucketing, type EvaluationContext, type FlagDefinition, type FlagResult } from "./evaluation";

/** A variant's half-open range [from, to) of the variant hash, fractions of 1. */
export interface VariantRange {
  key: string;
  from: number;
  to: number;
}

export interface VariantExplanation {
  /** The variant hash of the bucketing id, 0–1. */
  hash: number;
  ranges: VariantRange[];
  /** The range the hash falls in, or null when the percentages leave it out. */
  variant: string | null;
  /** The matched condition set's own variant, which wins over the hash when the flag has it. */
  override: string | null;
  text: string;
}

export interface HoldoutExplanation {
  id: number;
  /** The holdout hash of the bucketing id, 0–1. */
  hash: number;
  /** The share held out, 0–1. */
  exclusion: number;
  held: boolean;
  text: string;
}

const fraction = (value: number) => value.toFixed(2);
/** Four decimals: a hash shown to two could look like it sits on a boundary it does not. */
const hashText = (value: number) => value.toFixed(4);

/** The variant ranges of a multivariate flag and where `bucketingId`'s hash falls; null for a boolean flag. */
export function explainVariant(flag: FlagDefinition, bucketingId: string, conditionVariant: string | null = null): VariantExplanation | null {
  const variants = flag.filters.multivariate?.variants ?? [];
  if (variants.length === 0) return null;
  const hash = flagHash(flag.key, bucketingId, "variant");
  let from = 0;
  const ranges = variants.map((variant) => {
    const range = { key: variant.key, from, to: from + variant.rollout_percentage / 100 };
    from = range.to;
    return range;
  });
  const hit = ranges.find((range) => hash >= range.from && hash < range.to) ?? null;
  const override = conditionVariant && variants.some((variant) => variant.key === conditionVariant) ? conditionVariant : null;
  const where = hit
    ? `variant hash ${hashText(hash)} falls in ${hit.key}'s range ${fraction(hit.from)}–${fraction(hit.to)}`
    : `variant hash ${hashText(hash)} falls in no variant's range (they cover 0.00–${fraction(from)})`;
  return { hash, ranges, variant: hit?.key ?? null, override, text: override ? `the condition set assigns ${override} (the ${where})` : where };
}

/** Whether `bucketingId` is in the flag's holdout, and by which hash; null without a holdout. */
export function explainHoldout(flag: FlagDefinition, bucketingId: string): HoldoutExplanation | null {
  const holdout = flag.filters.holdout;
  if (!holdout || holdout.id === null || holdout.id === undefined) return null;
  const percentage = Number(holdout.exclusion_percentage);
  if (!Number.isFinite(percentage)) return null;
  const exclusion = Math.min(Math.max(percentage, 0), 100) / 100;
  const hash = flagHash("holdout", bucketingId, "", "-");
  // As evaluation.ts: a hash on the boundary is held, and 100 % holds everyone.
  const held = exclusion === 1 || hash <= exclusion;
  const text = held ? `in holdout (hash ${hashText(hash)} ≤ ${fraction(exclusion)})` : `not in holdout (hash ${hashText(hash)} > ${fraction(exclusion)})`;
  return { id: holdout.id, hash, exclusion, held, text };
}

/** A condition set's rollout against the bucketing id's rollout hash. */
export interface RolloutExplanation {
  /** The rollout hash, 0–1. */
  hash: number;
  /** The set's rollout, 0–100. */
  rollout: number;
}

export interface EvaluationExplanation {
  /** Who the deciding condition set hashes (or, without one, the flag); null when nothing was hashed. */
  bucketedBy: Bucketing | null;
  rollout: RolloutExplanation | null;
  variant: VariantExplanation | null;
  holdout: HoldoutExplanation | null;
}

/** Answers decided before any hash: no holdout to show. */
const DECIDED_BEFORE_HOLDOUT = new Set(["flag_disabled", "super_condition_value", "no_group_type"]);

/**
 * Why evaluation gave `result` for `flag` in `ctx` (the context it was evaluated in): the
 * holdout hash of the flag's subject, and for the condition set that decided, its subject's
 * rollout hash and, when it matched, variant hash.
 */
export function explainEvaluation(flag: FlagDefinition, ctx: EvaluationContext, result: FlagResult): EvaluationExplanation {
  const flagBucketing = DECIDED_BEFORE_HOLDOUT.has(result.reason.code) ? null : bucketingOf(flag, ctx);
  const holdout = flagBucketing ? explainHoldout(flag, flagBucketing.id) : null;
  const index = result.reason.condition_index;
  const condition = index === null || !["condition_match", "out_of_rollout_bound"].includes(result.reason.code) ? undefined : flag.filters.groups?.[index];
  const conditionBucketing = condition ? bucketingOf(flag, ctx, condition) : null;
  if (!condition || !conditionBucketing) return { bucketedBy: flagBucketing, rollout: null, variant: null, holdout };
  return {
    bucketedBy: conditionBucketing,
    rollout: { hash: flagHash(flag.key, conditionBucketing.id), rollout: condition.rollout_percentage ?? 100 },
    variant: result.reason.code === "condition_match" && !holdout?.held ? explainVariant(flag, conditionBucketing.id, condition.variant ?? null) : null,
    holdout,
  };
}
