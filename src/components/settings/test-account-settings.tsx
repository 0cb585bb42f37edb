"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { isAdmin } from "@/components/account/levels";
import { FilterList } from "@/components/insights/editor/filter-panels";
import { isKept, itemsFromNode, itemsNode, type FilterItem } from "@/components/insights/editor/filter-groups";
import { sameJson } from "@/components/insights/editor/stored-node";
import { Button, Card, CardBody, CardHeader, FormAlert } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

interface TestAccountProject {
  id: number;
  membershipLevel: number;
  testAccountFilters: unknown[];
}

/** Where the insight editor's hint links to. */
export const TEST_ACCOUNT_SETTINGS_ANCHOR = "test-account-filters";

/** What keeps the list from saving: a row without its property or cohort. */
function problemsOf(filters: FilterItem[]): string[] {
  return filters.flatMap((filter, index) => {
    if (isKept(filter)) return [];
    if (filter.type === "cohort") return filter.value === "" ? [`Filter ${index + 1} needs a cohort.`] : [];
    return filter.key.trim() === "" ? [`Filter ${index + 1} needs a property.`] : [];
  });
}

/**
 * PostHog's test account filters: the property filters every query with "Filter out
 * internal and test users" on reads its events through (`test_account_filters`, saved with
 * the project). The insight editor's condition builder; admins change them.
 */
export function TestAccountSettings({ project }: { project: TestAccountProject }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const stored = project.testAccountFilters;
  const [draft, setDraft] = useState<FilterItem[]>(() => itemsFromNode(stored));
  const [saved, setSaved] = useState(false);
  const storedKey = JSON.stringify(stored);
  // Someone saved (this form, or elsewhere): the list shows what is stored now.
  useEffect(() => setDraft(itemsFromNode(JSON.parse(storedKey) as unknown[])), [storedKey]);
  const update = useMutation(
    trpc.account.updateProject.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.account.project.queryKey() }),
    }),
  );
  const admin = isAdmin(project.membershipLevel);
  const written = itemsNode(draft) ?? [];
  // Against the stored list as the builder writes it ("a" and ["a"] are one value)
  const changed = !sameJson(written, itemsNode(itemsFromNode(stored)) ?? []);
  const problems = problemsOf(draft);

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (problems.length > 0 || !changed) return;
    setSaved(false);
    update.mutate({ projectId: project.id, test_account_filters: written }, { onSuccess: () => setSaved(true) });
  }

  return (
    <Card aria-labelledby="test-accounts-title" data-testid="test-account-settings" id={TEST_ACCOUNT_SETTINGS_ANCHOR} className="scroll-mt-20">
      <CardHeader
        titleId="test-accounts-title"
        title="Test account filters"
        description={
          <>
            With <strong>Filter out internal and test users</strong> on (an insight&apos;s, web analytics&apos; or a dashboard&apos;s), only the events that pass all of
            these filters are read. Write them to leave out your team, test accounts and local development: for example <em>person property email does not contain
            @yourcompany.com</em>, or <em>event property $host is not localhost:3000</em>. A new project starts with the local hosts and, unless its creator signed up
            with a mail provider&apos;s address, their e-mail domain.
            {admin ? "" : " Only organization admins can change them."}
          </>
        }
      />
      <CardBody>
        <form onSubmit={save} className="flex flex-col gap-4" aria-label="Test account filters">
          <fieldset disabled={!admin || update.isPending} className="min-w-0">
            <legend className="sr-only">Filters every event must pass</legend>
            {draft.length === 0 ? (
              <p className="mb-2 text-sm text-gray-600" data-testid="test-accounts-empty">
                No filters yet: every event counts, whether the toggle is on or off.
              </p>
            ) : null}
            <FilterList
              projectId={project.id}
              label="Test account filter"
              filters={draft}
              onChange={(filters) => {
                setSaved(false);
                setDraft(filters);
              }}
              addLabel="Add filter"
              compact
            />
          </fieldset>
          {update.error ? <FormAlert testId="test-accounts-error">{errorMessage(update.error)}</FormAlert> : null}
          {problems.length > 0 ? (
            <ul className="list-disc pl-5 text-sm text-amber-800" data-testid="test-accounts-problems">
              {problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          ) : null}
          {admin ? (
            <div className="flex flex-wrap items-center gap-3">
              <Button type="submit" disabled={!changed || problems.length > 0} loading={update.isPending} data-testid="test-accounts-save">
                Save filters
              </Button>
              {changed ? (
                <Button variant="ghost" onClick={() => setDraft(itemsFromNode(stored))} disabled={update.isPending} data-testid="test-accounts-reset">
                  Discard changes
                </Button>
              ) : null}
              <span role="status" className="text-sm text-emerald-700" data-testid="test-accounts-status">
                {saved && !changed ? "Saved" : ""}
              </span>
            </div>
          ) : null}
        </form>
      </CardBody>
    </Card>
  );
}
