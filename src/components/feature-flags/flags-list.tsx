"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, buttonClasses, Card, EmptyState, ListCard, ListFooter, PageButtons, PageHeader, SelectField, TextField } from "@/components/ui";
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
          <TextField
            type="search"
            label="Search"
            placeholder="Key or description"
            value={search}
            onChange={(event) => {
              setSearch(event.target.value);
              setPage(0);
            }}
            testId="flags-search"
          />
          <SelectField
            label="Status"
            value={active}
            onChange={(event) => {
              setActive(event.target.value as ActiveFilter);
              setPage(0);
            }}
            testId="flags-status-filter"
          >
            <option value="">All flags</option>
            <option value="true">Enabled</option>
            <option value="false">Disabled</option>
          </SelectField>
        </div>
      </Card>

      <ListCard
        aria-label="Feature flags"
        data-testid="flags-list"
        query={list}
        empty={flags.length === 0}
        loadingLabel="Loading flags…"
        errorTitle="Could not load feature flags"
        errorMessage={list.isError ? errorMessage(list.error) : undefined}
        emptyState={
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
        }
      >
        <ul className="divide-y divide-gray-200" data-testid="flags-rows">
          {flags.map((flag) => (
            <FlagRow key={flag.id} flag={flag} projectId={projectId} />
          ))}
        </ul>
        <ListFooter count={list.data?.count ?? 0} noun={["flag", "flags"]} refreshing={list.isFetching} testId="flags-count">
          <PageButtons page={page} pageSize={PAGE_SIZE} count={list.data?.count ?? 0} onPage={setPage} />
        </ListFooter>
      </ListCard>
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
