"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, buttonClasses, ListPage, ListSearch, LocalTime, PageButtons, PageHeader, SelectField, useListFilters } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { COHORTS_PAGE_SIZE, cohortsListInput, type CohortTypeFilter } from "./page-queries";
import type { CohortResource } from "@/server/cohorts/present";
import { cohortKindLabel } from "./cohort-draft";

export function CohortsPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="cohorts-page">
      <PageHeader
        title="Cohorts"
        description="Groups of people — by their properties, what they did, or a list you upload — to target flags and filter analytics."
        actions={
          <Link href="/cohorts/new" className={buttonClasses()} data-testid="new-cohort">
            New cohort
          </Link>
        }
      />
      <ProjectGate testId="cohorts-project">{(project) => <CohortsList projectId={project.id} />}</ProjectGate>
    </div>
  );
}

function CohortsList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const { filters, page, setPage, filtered, change, clear } = useListFilters<{ search: string; type: CohortTypeFilter }>({ search: "", type: "" });
  const { search, type } = filters;
  const list = useQuery({
    ...trpc.cohorts.list.queryOptions(cohortsListInput(projectId, filters, page)),
    placeholderData: keepPreviousData,
    // Counts arrive when computations finish.
    refetchInterval: (query) => (query.state.data?.results.some((cohort) => cohort.is_calculating) ? 2000 : false),
  });
  const cohorts = list.data?.results ?? [];
  return (
    <ListPage
      noun={["cohort", "cohorts"]}
      label="Cohorts"
      testId="cohorts"
      query={list}
      filters={
        <ListSearch
          label="Filter cohorts"
          placeholder="Name"
          value={search}
          onChange={(value) => change({ search: value })}
          testId="cohorts-search"
        >
          <SelectField
            label="Type"
            value={type}
            onChange={(event) => change({ type: event.target.value as CohortTypeFilter })}
            testId="cohorts-type-filter"
          >
            <option value="">All cohorts</option>
            <option value="dynamic">Dynamic</option>
            <option value="static">Static</option>
          </SelectField>
        </ListSearch>
      }
      empty={cohorts.length === 0}
      filtered={filtered}
      nothingMatches={{ description: "Try another search or type." }}
      onClearFilters={clear}
      nothingYet={{
        description: "Make one from person properties or events, or upload a list of people.",
        action: (
          <Link href="/cohorts/new" className={buttonClasses()} data-testid="cohorts-empty-new">
            New cohort
          </Link>
        ),
      }}
      count={list.data?.count ?? 0}
      pager={<PageButtons page={page} pageSize={COHORTS_PAGE_SIZE} count={list.data?.count ?? 0} onPage={setPage} />}
    >
      <ul className="divide-y divide-gray-200">
        {cohorts.map((cohort) => (
          <CohortRow key={cohort.id} cohort={cohort} />
        ))}
      </ul>
    </ListPage>
  );
}

/** "1,234 persons", "Calculating…", or the error. */
export function CohortCount({ cohort }: { cohort: CohortResource }) {
  if (cohort.is_calculating) {
    return (
      <span className="text-gray-600" data-testid="cohort-count" data-state="calculating">
        Calculating…
      </span>
    );
  }
  if (cohort.errors_calculating > 0 && cohort.last_error) {
    return (
      <span className="text-red-700" data-testid="cohort-count" data-state="error" title={cohort.last_error}>
        Could not compute
      </span>
    );
  }
  return (
    <span className="tabular-nums" data-testid="cohort-count" data-state="ready">
      {cohort.count === null ? "—" : `${cohort.count.toLocaleString("en")} ${cohort.count === 1 ? "person" : "persons"}`}
    </span>
  );
}

function CohortRow({ cohort }: { cohort: CohortResource }) {
  return (
    <li className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-center sm:gap-4" data-testid="cohort-row" data-name={cohort.name}>
      <div className="min-w-0 flex-1">
        <Link
          href={`/cohorts/${cohort.id}`}
          className="text-sm font-semibold break-words text-gray-900 hover:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
          data-testid="cohort-link"
        >
          {cohort.name || `Cohort ${cohort.id}`}
        </Link>
        {cohort.description && <p className="mt-0.5 truncate text-sm text-gray-600">{cohort.description}</p>}
      </div>
      <div className="flex flex-wrap items-center gap-3 text-sm text-gray-700">
        <Badge tone={cohort.is_static ? "neutral" : "brand"}>{cohortKindLabel(cohort)}</Badge>
        <CohortCount cohort={cohort} />
        {cohort.last_calculation && <span className="text-xs text-gray-500">updated <LocalTime value={cohort.last_calculation} /></span>}
      </div>
    </li>
  );
}
