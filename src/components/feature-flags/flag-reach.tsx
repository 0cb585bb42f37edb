"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/trpc/react";
import { flagReachInput } from "@/server/flags/contract";
import { reachGroups, reachPercent, type FlagDraft } from "./flag-draft";

const persons = new Intl.NumberFormat("en-US");

/** The reach of the form's condition sets, asked again 300 ms after the last edit; null while they are not valid. */
export function useFlagReach(projectId: number, draft: FlagDraft) {
  const trpc = useTRPC();
  const checked = flagReachInput.safeParse({ filters: { groups: reachGroups(draft) } });
  const text = checked.success ? JSON.stringify(checked.data.filters.groups) : null;
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(text), 300);
    return () => clearTimeout(timer);
  }, [text]);
  const query = useQuery({
    ...trpc.flags.reach.queryOptions({ projectId, filters: { groups: settled ? JSON.parse(settled) : [] } }),
    enabled: settled !== null,
    placeholderData: keepPreviousData,
  });
  return { reach: text === null ? null : (query.data ?? null), invalid: text === null, failed: query.isError };
}

export type FlagReachState = ReturnType<typeof useFlagReach>;

/** Under one condition set: "Will match ≈20% of users", and what that is made of. */
export function ConditionReach({ state, index }: { state: FlagReachState; index: number }) {
  const reach = state.reach;
  const set = reach?.conditions[index];
  if (!reach || !set) return null;
  const sampled = reach.sampled < reach.total ? ` (a sample of ${persons.format(reach.sampled)})` : "";
  return (
    <p className="mt-3 text-sm text-gray-700" data-testid="condition-reach" aria-live="polite">
      Will match <strong className="font-semibold text-gray-900">{reachPercent(set.share, reach.approximate)}</strong> of users
      <span className="text-gray-500">
        {" "}
        · {persons.format(set.matching)} of {persons.format(reach.sampled)} persons{sampled} match its filters, {set.rollout}% rolled out
      </span>
    </p>
  );
}

/** Below the condition sets: the whole flag's reach, and how it is estimated. */
export function FlagReachSummary({ state }: { state: FlagReachState }) {
  if (state.invalid) return <p className="text-sm text-gray-500" data-testid="flag-reach">Complete the condition sets to see how many users they match.</p>;
  if (state.failed && !state.reach) return <p className="text-sm text-gray-500" data-testid="flag-reach">The reach could not be estimated.</p>;
  const reach = state.reach;
  if (!reach) return <p className="text-sm text-gray-500" data-testid="flag-reach">Estimating who this flag matches…</p>;
  if (reach.total === 0) return <p className="text-sm text-gray-500" data-testid="flag-reach">No persons yet: the estimate appears once users are seen.</p>;
  return (
    <div className="rounded-control bg-brand-50 px-3 py-2 text-sm text-gray-800" data-testid="flag-reach" aria-live="polite">
      <p>
        This flag will match <strong className="font-semibold text-gray-900">{reachPercent(reach.share, reach.approximate)}</strong> of users
        {" "}({reach.approximate ? "about " : ""}
        {persons.format(Math.round(reach.persons))} of {persons.format(reach.total)} persons).
      </p>
      <p className="mt-1 text-xs text-gray-600">
        Estimated from {reach.sampled < reach.total ? `a sample of ${persons.format(reach.sampled)}` : "all"} of the project&apos;s persons: who matches each set&apos;s filters
        (cohorts as last computed), times its rollout; a person matching several sets counts once, at the largest rollout.
      </p>
    </div>
  );
}
