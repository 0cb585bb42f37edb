"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, buttonClasses, ListPage, ListSearch, PageButtons, PageHeader, SelectField, useListFilters } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { FLAGS_PAGE_SIZE, flagsListInput, type FlagActiveFilter } from "./page-queries";
import type { FlagResource } from "@/server/flags/present";
import { rolloutSummary } from "./flag-draft";
import { ActiveSwitch } from "./active-switch";

export function FlagsPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="flags-page">
      <PageHeader
        title="Feature flags"
        description="Turn features on for some users, roll them out gradually, or serve variants."
        actions={
          <Link href="/feature-flags/new" className={buttonClasses()} data-testid="new-flag">
            New flag
          </Link>
        }
      />
      <ProjectGate testId="flags-project">{(project) => <FlagsList projectId={project.id} />}</ProjectGate>
    </div>
  );
}

function FlagsList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const { filters, page, setPage, filtered, change, clear } = useListFilters<{ search: string; active: FlagActiveFilter }>({ search: "", active: "" });
  const { search, active } = filters;
  const list = useQuery({
    ...trpc.flags.list.queryOptions(flagsListInput(projectId, filters, page)),
    placeholderData: keepPreviousData,
  });
  const flags = list.data?.results ?? [];
  return (
    <ListPage
      noun={["feature flag", "feature flags"]}
      label="Feature flags"
      testId="flags"
      query={list}
      filters={
        <ListSearch
          label="Filter feature flags"
          placeholder="Key or description"
          value={search}
          onChange={(value) => change({ search: value })}
          testId="flags-search"
        >
          <SelectField
            label="Status"
            value={active}
            onChange={(event) => change({ active: event.target.value as FlagActiveFilter })}
            testId="flags-status-filter"
          >
            <option value="">All flags</option>
            <option value="true">Enabled</option>
            <option value="false">Disabled</option>
          </SelectField>
        </ListSearch>
      }
      empty={flags.length === 0}
      filtered={filtered}
      nothingMatches={{ description: "Try another search or status." }}
      onClearFilters={clear}
      nothingYet={{
        description: "Create one to turn a feature on for some users and roll it out step by step.",
        action: (
          <Link href="/feature-flags/new" className={buttonClasses()} data-testid="flags-empty-new">
            New flag
          </Link>
        ),
      }}
      count={list.data?.count ?? 0}
      pager={<PageButtons page={page} pageSize={FLAGS_PAGE_SIZE} count={list.data?.count ?? 0} onPage={setPage} />}
    >
      <ul className="divide-y divide-gray-200" data-testid="flags-rows">
        {flags.map((flag) => (
          <FlagRow key={flag.id} flag={flag} projectId={projectId} />
        ))}
      </ul>
    </ListPage>
  );
}

function FlagRow({ flag, projectId }: { flag: FlagResource; projectId: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toggle = useMutation(
    trpc.flags.update.mutationOptions({
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.flags.pathKey() }),
    }),
  );
  return (
    <li className="flex flex-col gap-3 px-4 py-3 sm:flex-row sm:items-center sm:gap-4" data-testid="flag-row" data-key={flag.key}>
      <div className="min-w-0 flex-1">
        <Link
          href={`/feature-flags/${flag.id}`}
          className="font-mono text-sm font-semibold break-all text-gray-900 hover:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
          data-testid="flag-link"
        >
          {flag.key}
        </Link>
        {flag.name && <p className="mt-0.5 truncate text-sm text-gray-600">{flag.name}</p>}
        <p className="mt-1 flex flex-wrap items-center gap-1.5 text-xs text-gray-500">
          <span data-testid="flag-rollout">{rolloutSummary(flag)}</span>
          {flag.tags.map((tag) => (
            <Badge key={tag}>{tag}</Badge>
          ))}
        </p>
      </div>
      <div className="flex items-center gap-3">
        {toggle.isError && (
          <span role="alert" className="text-xs text-red-700">
            {errorMessage(toggle.error)}
          </span>
        )}
        <ActiveSwitch
          flagKey={flag.key}
          active={toggle.isPending ? toggle.variables.patch.active === true : flag.active}
          pending={toggle.isPending}
          onChange={(active) => toggle.mutate({ projectId, id: flag.id, patch: { active } })}
        />
      </div>
    </li>
  );
}
