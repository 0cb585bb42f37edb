"use client";

import Link from "next/link";
import { useCurrentProject } from "@/components/account/use-current-project";
import { TEST_ACCOUNT_SETTINGS_ANCHOR } from "@/components/settings/test-account-settings";
import { Switch } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";

const LABEL = "Filter out internal and test users";
const SETTINGS = `/settings/project#${TEST_ACCOUNT_SETTINGS_ANCHOR}`;

/**
 * PostHog's "Filter out internal and test users": the query's `filterTestAccounts`, which
 * reads its events through the project's test account filters. Without any filters it can
 * only be turned off (a stored query may have it on), and says where to set them.
 */
export function TestAccountsToggle({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  const current = useCurrentProject();
  const filters = current.project.data?.testAccountFilters;
  const count = filters?.length ?? 0;
  const none = filters !== undefined && count === 0;
  const link = (text: string) => (
    <Link href={SETTINGS} className="font-medium text-brand-700 underline" data-testid="test-accounts-settings-link">
      {text}
    </Link>
  );
  return (
    <div className="flex flex-col gap-1" data-testid="test-accounts-toggle" data-filters={filters === undefined ? undefined : count}>
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
        <span className="text-sm text-gray-800" aria-hidden="true">
          {LABEL}
        </span>
        <Switch label={LABEL} checked={checked} text={["On", "Off"]} disabled={filters === undefined || (none && !checked)} onChange={onChange} testId="filter-test-accounts" />
      </div>
      <p className="text-xs text-gray-600" data-testid="test-accounts-hint">
        {current.error ? (
          <>Could not load the project&apos;s test account filters: {errorMessage(current.error)}</>
        ) : filters === undefined ? (
          "Loading the project's test account filters…"
        ) : none ? (
          <>This project has no test account filters yet. {link("Set them in project settings")}.</>
        ) : (
          <>
            {count} {count === 1 ? "filter" : "filters"} from the {link("project settings")}.
          </>
        )}
      </p>
    </div>
  );
}
