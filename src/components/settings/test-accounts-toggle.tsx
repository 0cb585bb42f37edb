"use client";

import Link from "next/link";
import { useCurrentProject } from "@/components/account/use-current-project";
import { TEST_ACCOUNT_SETTINGS_ANCHOR } from "@/components/settings/test-account-settings";
import { cn, Switch } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";

export const TEST_ACCOUNTS_LABEL = "Filter out internal and test users";
const SETTINGS = `/settings/project#${TEST_ACCOUNT_SETTINGS_ANCHOR}`;

/** The current project's test account filters: undefined while loading (or failed, with `error`). */
export function useTestAccountFilters(): { filters: unknown[] | undefined; error: unknown } {
  const current = useCurrentProject();
  return { filters: current.project.data?.testAccountFilters, error: current.error };
}

/**
 * What the filters are and where to set them: a count with a link to the settings, or, while
 * the project has none, that it has none (PostHog disables its switch with that tooltip).
 */
export function TestAccountsHint({ filters, error }: { filters: unknown[] | undefined; error: unknown }) {
  const count = filters?.length ?? 0;
  const link = (text: string) => (
    <Link href={SETTINGS} className="font-medium text-brand-700 underline" data-testid="test-accounts-settings-link">
      {text}
    </Link>
  );
  return (
    <p className="text-xs text-gray-600" data-testid="test-accounts-hint">
      {error ? (
        <>Could not load the project&apos;s test account filters: {errorMessage(error)}</>
      ) : filters === undefined ? (
        "Loading the project's test account filters…"
      ) : count === 0 ? (
        <>This project has no test account filters yet. {link("Set them in project settings")}.</>
      ) : (
        <>
          {count} {count === 1 ? "filter" : "filters"} from the {link("project settings")}.
        </>
      )}
    </p>
  );
}

/**
 * PostHog's "Filter out internal and test users": a query's `filterTestAccounts`, which
 * reads its events through the project's test account filters. Without any filters it can
 * only be turned off (a stored query may have it on), and says where to set them.
 */
export function TestAccountsToggle({
  checked,
  onChange,
  inline = false,
  className,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** Label, switch and hint in one wrapping row (a page's filter bar) rather than a panel's spread row with the hint below. */
  inline?: boolean;
  className?: string;
}) {
  const { filters, error } = useTestAccountFilters();
  const none = filters !== undefined && filters.length === 0;
  return (
    <div
      className={cn(inline ? "flex flex-wrap items-center gap-x-3 gap-y-1" : "flex flex-col gap-1", className)}
      data-testid="test-accounts-toggle"
      data-filters={filters === undefined ? undefined : filters.length}
    >
      <div className={cn("flex flex-wrap items-center gap-x-4 gap-y-1", inline ? "gap-x-3" : "justify-between")}>
        <span className="text-sm text-gray-800" aria-hidden="true">
          {TEST_ACCOUNTS_LABEL}
        </span>
        <Switch label={TEST_ACCOUNTS_LABEL} checked={checked} text={["On", "Off"]} disabled={filters === undefined || (none && !checked)} onChange={onChange} testId="filter-test-accounts" />
      </div>
      <TestAccountsHint filters={filters} error={error} />
    </div>
  );
}
