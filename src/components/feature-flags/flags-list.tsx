"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, buttonClasses, Card, EmptyState, ErrorState, inputClasses, PageHeader, Spinner } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { FlagResource } from "@/server/flags/present";
import { rolloutSummary } from "./flag-draft";
import { ActiveSwitch } from "./active-switch";

const PAGE_SIZE = 50;

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

type ActiveFilter = "" | "true" | "false";

function FlagsList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const [active, setActive] = useState<ActiveFilter>("");
  const [page, setPage] = useState(0);
  const list = useQuery({
    ...trpc.flags.list.queryOptions({ projectId, search: search.trim() || undefined, active: active || undefined, limit: PAGE_SIZE, offset: page * PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const flags = list.data?.results ?? [];
  const filtered = Boolean(search.trim() || active);

  return (
    <div className="flex flex-col gap-4">
      <Card className="p-4">
        <div className="grid gap-3 sm:grid-cols-[1fr_12rem]" role="search" aria-label="Filter flags">
          <label className="flex min-w-0 flex-col gap-1.5 text-sm font-medium text-gray-800">
            Search
            <input
              type="search"
              className={inputClasses()}
              placeholder="Key or description"
              value={search}
              onChange={(event) => {
                setSearch(event.target.value);
                setPage(0);
              }}
              data-testid="flags-search"
            />
          </label>
          <label className="flex min-w-0 flex-col gap-1.5 text-sm font-medium text-gray-800">
            Status
            <select
              className={inputClasses({ className: "pr-8" })}
              value={active}
              onChange={(event) => {
                setActive(event.target.value as ActiveFilter);
                setPage(0);
              }}
              data-testid="flags-status-filter"
            >
              <option value="">All flags</option>
              <option value="true">Enabled</option>
              <option value="false">Disabled</option>
            </select>
          </label>
        </div>
      </Card>

      <Card className="overflow-hidden" aria-label="Feature flags" data-testid="flags-list" data-state={list.isPending ? "loading" : list.isError ? "error" : flags.length === 0 ? "empty" : "ready"}>
        {list.isPending ? (
          <div className="flex items-center gap-3 px-5 py-8 text-sm text-gray-600">
            <Spinner label={null} className="text-brand-600" />
            <span role="status">Loading flags…</span>
          </div>
        ) : list.isError ? (
          <div className="p-4">
            <ErrorState title="Could not load feature flags" message={errorMessage(list.error)} onRetry={() => void list.refetch()} retrying={list.isRefetching} />
          </div>
        ) : flags.length === 0 ? (
          filtered ? (
            <EmptyState title="No flags match" description="Try another search or status." />
          ) : (
            <EmptyState
              title="No feature flags yet"
              description="Create one to turn a feature on for some users and roll it out step by step."
              action={
                <Link href="/feature-flags/new" className={buttonClasses()} data-testid="flags-empty-new">
                  New flag
                </Link>
              }
            />
          )
        ) : (
          <>
            <ul className="divide-y divide-gray-200" data-testid="flags-rows">
              {flags.map((flag) => (
                <FlagRow key={flag.id} flag={flag} projectId={projectId} />
              ))}
            </ul>
            <div className="flex flex-wrap items-center justify-between gap-3 border-t border-gray-200 px-4 py-3 text-sm text-gray-600">
              <span data-testid="flags-count">
                {list.data.count} {list.data.count === 1 ? "flag" : "flags"}
                {list.isFetching ? " · refreshing…" : ""}
              </span>
              {list.data.count > PAGE_SIZE && (
                <div className="flex gap-2">
                  <Button variant="secondary" size="sm" disabled={page === 0} onClick={() => setPage(page - 1)}>
                    Previous
                  </Button>
                  <Button variant="secondary" size="sm" disabled={(page + 1) * PAGE_SIZE >= list.data.count} onClick={() => setPage(page + 1)}>
                    Next
                  </Button>
                </div>
              )}
            </div>
          </>
        )}
      </Card>
    </div>
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
