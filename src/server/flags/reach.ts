/**
 * "Will match about X% of users": a flag's reach estimated from the project's persons.
 *
 * For each condition set, the share of persons whose properties (and cohort memberships)
 * satisfy its filters — asked of the flag engine itself, so the estimate reads filters
 * exactly as /decide does — times its rollout. For the whole flag: every set buckets a
 * person by the same hash h (uniform on [0, 1]), and the person is served when some set
 * they match has rollout ≥ h, so their chance is the largest rollout among the sets they
 * match; the flag's share is the mean of that over persons.
 *
 * It is an estimate: the hash is taken as uniform (true on average, not per person), and a
 * project with more persons than the sample is read through a sample of them.
 */
import { evaluateFlag, type FlagConditionGroup } from "./evaluation";

/** One person as the estimate reads them. */
export interface ReachPerson {
  properties: Readonly<Record<string, unknown>>;
  /** Cohorts the person is a member of (as last computed). */
  cohorts: ReadonlySet<number>;
}

export interface ReachSample {
  /** Persons in the project. */
  total: number;
  /** Those read (all of them, or a sample). */
  persons: readonly ReachPerson[];
}

export interface ConditionReach {
  /** Persons of the sample whose properties satisfy the set. */
  matching: number;
  /** The set's rollout, 0–100 (none given: 100). */
  rollout: number;
  /** Share of persons the set serves, 0–1: matching share × rollout. */
  share: number;
}

export interface FlagReach {
  total: number;
  sampled: number;
  conditions: ConditionReach[];
  /** Share of persons the flag serves, 0–1. */
  share: number;
  /** Persons the flag is expected to serve (share × total). */
  persons: number;
  /** True when the figures are not exact counts: a sample was read, or some rollout is neither 0 nor 100. */
  approximate: boolean;
}

const rolloutOf = (group: FlagConditionGroup) => Math.min(100, Math.max(0, group.rollout_percentage ?? 100));

/** The reach of condition sets over a sample of persons (see the file's comment for the maths). */
export function estimateReach(groups: readonly FlagConditionGroup[], sample: ReachSample, now = new Date()): FlagReach {
  const rollouts = groups.map(rolloutOf);
  // The engine answers "do the filters hold" when the rollout is left out.
  const probes = groups.map((group, index) => ({
    id: 0,
    key: `reach-${index}`,
    active: true,
    filters: { groups: [{ properties: group.properties ?? [], rollout_percentage: null }] },
  }));
  const matching = groups.map(() => 0);
  let served = 0;
  for (const person of sample.persons) {
    let best = 0;
    probes.forEach((probe, index) => {
      const holds = evaluateFlag(probe, { distinctId: "", personProperties: person.properties, inCohort: (id) => person.cohorts.has(id), now }).enabled;
      if (!holds) return;
      matching[index]! += 1;
      best = Math.max(best, rollouts[index]!);
    });
    served += best / 100;
  }
  const sampled = sample.persons.length;
  const share = sampled === 0 ? 0 : served / sampled;
  return {
    total: sample.total,
    sampled,
    conditions: groups.map((_, index) => ({
      matching: matching[index]!,
      rollout: rollouts[index]!,
      share: sampled === 0 ? 0 : (matching[index]! / sampled) * (rollouts[index]! / 100),
    })),
    share,
    persons: share * sample.total,
    approximate: sampled < sample.total || rollouts.some((rollout) => rollout > 0 && rollout < 100),
  };
}
