/**
 * Feature flag evaluation, identical to PostHog's: a pure, synchronous function of a flag
 * definition (PostHog's JSON) and what is known of the person or group.
 *
 * - Rollout: SHA-1 of `<flag key>.<bucketing id><salt>`, first 15 hex digits over
 *   0xFFFFFFFFFFFFFFF; a condition's rollout holds when that hash <= percentage/100.
 * - Variant: the same hash with the salt "variant", into the half-open buckets the variants'
 *   percentages make in order.
 * - Condition groups in the order given, first match wins (as current SDKs do); a group's
 *   `variant` overrides the hashed variant when the flag has that variant.
 * - Holdout (`filters.holdout`) before the groups, super groups (early-access enrolment)
 *   before that; group flags bucket on the group's key and read its properties.
 */
import { hash } from "node:crypto";
import { matchesFlagPropertyFilter, type FlagPropertyFilter } from "@/server/properties/flag-filters";

export type { FlagPropertyFilter };

export interface FlagVariant {
  key: string;
  name?: string | null;
  rollout_percentage: number;
}

export interface FlagConditionGroup {
  properties?: FlagPropertyFilter[] | null;
  rollout_percentage?: number | null;
  variant?: string | null;
  /** Mixed targeting: this group aggregates by another group type than the flag. */
  aggregation_group_type_index?: number | null;
}

/** A flag's `filters` as PostHog stores and serves them. */
export interface FlagFilters {
  groups?: FlagConditionGroup[] | null;
  multivariate?: { variants: FlagVariant[] } | null;
  /** Keyed by "true" or the variant key; values are JSON (often JSON text). */
  payloads?: Record<string, unknown> | null;
  aggregation_group_type_index?: number | null;
  holdout?: { id: number; exclusion_percentage: number } | null;
  super_groups?: FlagConditionGroup[] | null;
  /** Stop at the first group whose filters match but whose rollout excludes the user. */
  early_exit?: boolean | null;
}

export interface FlagDefinition {
  id: number;
  key: string;
  active: boolean;
  deleted?: boolean;
  ensure_experience_continuity?: boolean;
  filters: FlagFilters;
  /** Bumped on every change (metadata.version in /flags). */
  version?: number;
}

export type FlagReasonCode =
  | "super_condition_value"
  | "holdout_condition_value"
  | "condition_match"
  | "out_of_rollout_bound"
  | "no_condition_match"
  | "no_group_type"
  | "flag_disabled";

export interface FlagResult {
  key: string;
  enabled: boolean;
  variant: string | null;
  reason: { code: string; condition_index: number | null; description: string };
  /** The payload for the flag's value (parsed JSON), or null. */
  payload: unknown;
}

export interface EvaluationContext {
  distinctId: string;
  /** The person's properties: stored ones overridden by the request's, plus GeoIP. */
  personProperties: Readonly<Record<string, unknown>>;
  /** Group type name → group key (the request's `groups`). */
  groups?: Readonly<Record<string, string>>;
  /** Group type name → properties. */
  groupProperties?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Group type index (as a string) → name, from group_type_mappings. */
  groupTypeMapping?: Readonly<Record<string, string>>;
  /** Experience continuity: the id a person was first bucketed with, per flag key. */
  hashKeyOverrides?: Readonly<Record<string, string>>;
  /** The project's other flags, for `flag` (dependency) filters. */
  flagsByKey?: ReadonlyMap<string, FlagDefinition>;
  /** The time relative date filters count back from. */
  now?: Date;
  /** Whether the person is in cohort `id` (cohorts.ts); without it a cohort condition matches nobody. */
  inCohort?: (id: number) => boolean;
}

// 15 hex digits: more than a double holds exactly, as in PostHog's SDKs (same rounding).
// eslint-disable-next-line no-loss-of-precision
const LONG_SCALE = 0xfffffffffffffff;

/** PostHog's rollout hash of `<key><separator><bucketing id><salt>`, in [0, 1]. */
export function flagHash(key: string, bucketingId: string, salt = "", separator = "."): number {
  const hex = hash("sha1", `${key}${separator}${bucketingId}${salt}`, "hex");
  return parseInt(hex.slice(0, 15), 16) / LONG_SCALE;
}

/** The variant a bucketing id falls into, or null when the percentages leave it out. */
export function matchingVariant(flag: FlagDefinition, bucketingId: string): string | null {
  const variants = flag.filters.multivariate?.variants ?? [];
  if (variants.length === 0) return null;
  const hash = flagHash(flag.key, bucketingId, "variant");
  let min = 0;
  for (const variant of variants) {
    const max = min + variant.rollout_percentage / 100;
    if (hash >= min && hash < max) return variant.key;
    min = max;
  }
  return null;
}

/** Parsed payloads per loaded definition: parsing them again for every request costs more than the rest. */
const parsedPayloads = new WeakMap<object, Map<string, unknown>>();

/** The payload stored for a value ("true" or the variant key); JSON text is parsed. */
export function payloadFor(flag: FlagDefinition, enabled: boolean, variant: string | null): unknown {
  const payloads = flag.filters.payloads;
  if (!enabled || !payloads) return null;
  const key = variant ?? "true";
  let parsed = parsedPayloads.get(payloads);
  if (!parsed) {
    parsed = new Map();
    parsedPayloads.set(payloads, parsed);
  }
  if (parsed.has(key)) return parsed.get(key);
  const stored = payloads[key];
  let value: unknown = stored;
  if (stored === undefined || stored === null || stored === "") value = null;
  else if (typeof stored === "string") {
    try {
      value = JSON.parse(stored);
    } catch {
      value = stored;
    }
  }
  parsed.set(key, value);
  return value;
}

const DESCRIPTIONS: Record<FlagReasonCode, string> = {
  super_condition_value: "Super condition value",
  holdout_condition_value: "Holdout condition value",
  condition_match: "Matched condition set",
  out_of_rollout_bound: "Out of rollout bound",
  no_condition_match: "No matching condition set",
  no_group_type: "No group type",
  flag_disabled: "Flag is disabled",
};

/**
 * A flag's answers, one object per distinct answer: a flag has only a handful (each condition
 * matched, out of bounds, each variant), so a request with many flags allocates none of them,
 * and the SDK edge caches each answer's JSON text beside it (http/sdk/flags.ts). Frozen:
 * every request shares them. Found by a number (code, condition, enabled), then the variant.
 */
const answersOf = new WeakMap<FlagDefinition, Map<number, Map<string, FlagResult>>>();
const CODE_NUMBER = Object.fromEntries(Object.keys(DESCRIPTIONS).map((code, index) => [code, index])) as Record<FlagReasonCode, number>;
/** Condition indexes up to this are interned; a flag with more conditions answers with new objects past it. */
const MAX_INTERNED_CONDITION = 1022;

function newAnswer(flag: FlagDefinition, enabled: boolean, variant: string | null, code: FlagReasonCode, conditionIndex: number | null): FlagResult {
  const description = code === "condition_match" && conditionIndex !== null ? `Matched condition set ${conditionIndex + 1}` : DESCRIPTIONS[code];
  return Object.freeze({
    key: flag.key,
    enabled,
    variant,
    reason: Object.freeze({ code, condition_index: conditionIndex, description }),
    payload: payloadFor(flag, enabled, variant),
  });
}

function result(flag: FlagDefinition, value: { enabled: boolean; variant: string | null }, code: FlagReasonCode, conditionIndex: number | null): FlagResult {
  const { enabled, variant } = value;
  if (conditionIndex !== null && conditionIndex > MAX_INTERNED_CONDITION) return newAnswer(flag, enabled, variant, code, conditionIndex);
  let answers = answersOf.get(flag);
  if (!answers) {
    answers = new Map();
    answersOf.set(flag, answers);
  }
  const slot = (CODE_NUMBER[code] * 1024 + (conditionIndex ?? 1023)) * 2 + (enabled ? 1 : 0);
  let byVariant = answers.get(slot);
  if (!byVariant) {
    byVariant = new Map();
    answers.set(slot, byVariant);
  }
  // Variant keys are never empty: "" stands for no variant.
  let answer = byVariant.get(variant ?? "");
  if (!answer) {
    answer = newAnswer(flag, enabled, variant, code, conditionIndex);
    byVariant.set(variant ?? "", answer);
  }
  return answer;
}

type ConditionOutcome = "match" | "no_match" | "out_of_rollout_bound";

interface Subject {
  bucketingId: string;
  properties: Readonly<Record<string, unknown>>;
}

/** Evaluates flags a flag depends on at most once per evaluation. */
class DependencyResolver {
  private readonly values = new Map<string, boolean | string>();
  private readonly resolving = new Set<string>();
  constructor(private readonly ctx: EvaluationContext) {}

  valueOf(key: string): boolean | string {
    const known = this.values.get(key);
    if (known !== undefined) return known;
    const flag = this.ctx.flagsByKey?.get(key);
    if (!flag || flag.deleted || this.resolving.has(key)) return false; // missing or circular
    this.resolving.add(key);
    try {
      const outcome = evaluateWith(flag, this.ctx, this);
      const value = outcome.enabled ? (outcome.variant ?? true) : false;
      this.values.set(key, value);
      return value;
    } finally {
      this.resolving.delete(key);
    }
  }
}

/** `flag_evaluates_to`: true ⇒ on (any variant); false ⇒ off; a string ⇒ that variant. */
function dependencyHolds(filter: FlagPropertyFilter, value: boolean | string): boolean {
  const expected = filter.value;
  if (typeof expected === "boolean") return expected === value || (expected === true && typeof value === "string" && value !== "");
  if (typeof expected === "string") return value === expected;
  return false;
}

function filterHolds(filter: FlagPropertyFilter, subject: Subject, ctx: EvaluationContext, dependencies: DependencyResolver): boolean {
  switch (filter.type) {
    case "flag": {
      const holds = dependencyHolds(filter, dependencies.valueOf(filter.key));
      return filter.negation ? !holds : holds;
    }
    case "cohort": {
      // As PostHog's flags service and SDKs: `not_in` inverts membership; a flag-level `negation` is not read.
      const id = Number(filter.value);
      const member = Number.isInteger(id) && ctx.inCohort ? ctx.inCohort(id) : false;
      return filter.operator === "not_in" ? !member : member;
    }
    default:
      return matchesFlagPropertyFilter(filter, subject.properties, ctx.now);
  }
}

function conditionOutcome(
  flag: FlagDefinition,
  condition: FlagConditionGroup,
  subject: Subject,
  ctx: EvaluationContext,
  dependencies: DependencyResolver,
): ConditionOutcome {
  for (const filter of condition.properties ?? []) {
    if (!filterHolds(filter, subject, ctx, dependencies)) return "no_match";
  }
  const rollout = condition.rollout_percentage;
  // The hash is at most 1, so 100 % holds without it (most survey, early-access and experiment flags).
  if (rollout !== null && rollout !== undefined && rollout < 100 && flagHash(flag.key, subject.bucketingId) > rollout / 100) return "out_of_rollout_bound";
  return "match";
}

/** The person or group a condition aggregates by, or null when the request lacks that group. */
function subjectFor(
  aggregation: number | null | undefined,
  personBucketingId: string,
  ctx: EvaluationContext,
): Subject | null {
  if (aggregation === null || aggregation === undefined) return { bucketingId: personBucketingId, properties: ctx.personProperties };
  const groupType = ctx.groupTypeMapping?.[String(aggregation)];
  if (!groupType) return null;
  const groupKey = ctx.groups?.[groupType];
  if (groupKey === undefined || groupKey === null) return null;
  return { bucketingId: String(groupKey), properties: ctx.groupProperties?.[groupType] ?? {} };
}

// Every flag behind a holdout hashes the same text for a person: once per request, not per flag.
let lastHoldout: { bucketingId: string; hash: number } | null = null;

function holdoutHash(bucketingId: string): number {
  if (lastHoldout?.bucketingId !== bucketingId) lastHoldout = { bucketingId, hash: flagHash("holdout", bucketingId, "", "-") };
  return lastHoldout.hash;
}

function holdoutVariant(flag: FlagDefinition, bucketingId: string): string | null {
  const holdout = flag.filters.holdout;
  if (!holdout || holdout.id === null || holdout.id === undefined) return null;
  const percentage = Number(holdout.exclusion_percentage);
  if (!Number.isFinite(percentage)) return null;
  const clamped = Math.min(Math.max(percentage, 0), 100);
  if (clamped !== 100 && holdoutHash(bucketingId) > clamped / 100) return null;
  return `holdout-${holdout.id}`;
}

function evaluateWith(flag: FlagDefinition, ctx: EvaluationContext, dependencies: DependencyResolver): FlagResult {
  if (!flag.active || flag.deleted) return result(flag, { enabled: false, variant: null }, "flag_disabled", null);
  const filters = flag.filters ?? {};
  const personBucketingId = (flag.ensure_experience_continuity && ctx.hashKeyOverrides?.[flag.key]) || ctx.distinctId;
  const flagAggregation = filters.aggregation_group_type_index;
  const flagSubject = subjectFor(flagAggregation, personBucketingId, ctx);
  if (flagAggregation !== null && flagAggregation !== undefined && !flagSubject) {
    return result(flag, { enabled: false, variant: null }, "no_group_type", null);
  }

  // Early-access enrolment: a person who opted in or out (the property exists) gets that answer.
  const superGroup = filters.super_groups?.[0];
  if (superGroup && flagSubject) {
    const enrolment = superGroup.properties ?? [];
    if (enrolment.length > 0 && enrolment.every((filter) => Object.prototype.hasOwnProperty.call(flagSubject.properties, filter.key))) {
      const matched = conditionOutcome(flag, superGroup, flagSubject, ctx, dependencies) === "match";
      return result(flag, { enabled: matched, variant: null }, "super_condition_value", 0);
    }
  }

  if (flagSubject) {
    const held = holdoutVariant(flag, flagSubject.bucketingId);
    if (held) return result(flag, { enabled: true, variant: held }, "holdout_condition_value", null);
  }

  const variants = filters.multivariate?.variants ?? [];
  let best: FlagReasonCode = "no_condition_match";
  let bestIndex: number | null = null;
  let skippedForGroup = false;
  const groups = filters.groups ?? [];
  for (let index = 0; index < groups.length; index++) {
    const condition = groups[index]!;
    const aggregation = condition.aggregation_group_type_index !== undefined ? condition.aggregation_group_type_index : flagAggregation;
    const subject = aggregation === flagAggregation ? flagSubject : subjectFor(aggregation, personBucketingId, ctx);
    if (!subject) {
      skippedForGroup = true;
      continue;
    }
    const outcome = conditionOutcome(flag, condition, subject, ctx, dependencies);
    if (outcome === "match") {
      const override = condition.variant;
      const variant = override && variants.some((candidate) => candidate.key === override) ? override : matchingVariant(flag, subject.bucketingId);
      return result(flag, { enabled: true, variant }, "condition_match", index);
    }
    if (outcome === "out_of_rollout_bound") {
      if (best === "no_condition_match") {
        best = "out_of_rollout_bound";
        bestIndex = index;
      }
      if (filters.early_exit) break;
    }
  }
  if (best === "no_condition_match" && skippedForGroup && groups.every((condition) => condition.aggregation_group_type_index !== undefined && condition.aggregation_group_type_index !== null)) {
    best = "no_group_type";
  }
  return result(flag, { enabled: false, variant: null }, best, best === "out_of_rollout_bound" ? bestIndex : null);
}

/** One flag's value for one person (or group), with the reason and the payload. */
export function evaluateFlag(flag: FlagDefinition, ctx: EvaluationContext): FlagResult {
  const fixed = withNow(ctx);
  return evaluateWith(flag, fixed, new DependencyResolver(fixed));
}

/** One clock reading per request: every date filter compares with it (and a Date is not free under Next's patched global). */
const withNow = (ctx: EvaluationContext): EvaluationContext => (ctx.now ? ctx : { ...ctx, now: new Date() });

/** Every flag of a list, sharing one dependency cache (a flag others depend on is evaluated once). */
export function evaluateFlags(flags: readonly FlagDefinition[], context: EvaluationContext): Record<string, FlagResult> {
  const ctx = withNow(context);
  const dependencies = new DependencyResolver(ctx);
  // No prototype: a flag keyed `__proto__` (the key pattern allows it) is an entry like any other.
  const results: Record<string, FlagResult> = Object.create(null);
  for (const flag of flags) results[flag.key] = evaluateWith(flag, ctx, dependencies);
  return results;
}
