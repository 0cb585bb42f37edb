"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, buttonClasses, ListPage, ListSearch, LocalTime, PageButtons, PageHeader, useListFilters } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { EXPERIMENTS_PAGE_SIZE, experimentsListInput } from "./page-queries";
import type { ExperimentResource } from "@/server/experiments/contract";
import { SharedMetricsSection } from "./shared-metrics";
import { statusOf, STATUS_TONE } from "./status";

export function ExperimentsPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="experiments-page">
      <PageHeader
        title="Experiments"
        description="A/B tests on a multivariate flag: who saw which variant, whether it changed what they did, and how sure that is."
        actions={
          <Link href="/experiments/new" className={buttonClasses()} data-testid="new-experiment">
            New experiment
          </Link>
        }
      />
      <ProjectGate testId="experiments-project">
        {(project) => (
          <>
            <ExperimentsList projectId={project.id} />
            <SharedMetricsSection projectId={project.id} />
          </>
        )}
      </ProjectGate>
    </div>
  );
}

function ExperimentsList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const { filters, page, setPage, filtered, change, clear } = useListFilters<{ search: string }>({ search: "" });
  const list = useQuery({
    ...trpc.experiments.list.queryOptions(experimentsListInput(projectId, filters, page)),
    placeholderData: keepPreviousData,
  });
  const experiments = list.data?.results ?? [];
  return (
    <ListPage
      noun={["experiment", "experiments"]}
      label="Experiments"
      testId="experiments"
      query={list}
      filters={<ListSearch label="Filter experiments" placeholder="Name" value={filters.search} onChange={(value) => change({ search: value })} testId="experiments-search" />}
      empty={experiments.length === 0}
      filtered={filtered}
      nothingMatches={{ description: "Try another name." }}
      onClearFilters={clear}
      nothingYet={{
        description: "Split users between a control and one or more variants, then compare a conversion or an average between them.",
        action: (
          <Link href="/experiments/new" className={buttonClasses()} data-testid="experiments-empty-new">
            New experiment
          </Link>
        ),
      }}
      count={list.data?.count ?? 0}
      pager={<PageButtons page={page} pageSize={EXPERIMENTS_PAGE_SIZE} count={list.data?.count ?? 0} onPage={setPage} />}
    >
      <ul className="divide-y divide-gray-200">
        {experiments.map((experiment) => (
          <ExperimentRow key={experiment.id} experiment={experiment} />
        ))}
      </ul>
    </ListPage>
  );
}

function ExperimentRow({ experiment }: { experiment: ExperimentResource }) {
  const status = statusOf(experiment);
  return (
    <li className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-center sm:gap-4" data-testid="experiment-row" data-name={experiment.name}>
      <div className="min-w-0 flex-1">
        <Link href={`/experiments/${experiment.id}`} className="text-sm font-semibold break-words text-gray-900 hover:text-brand-700" data-testid="experiment-link">
          {experiment.name}
        </Link>
        <p className="mt-0.5 truncate text-sm text-gray-600">{experiment.description || `Flag ${experiment.feature_flag_key}`}</p>
      </div>
      <div className="flex flex-wrap items-center gap-3 text-sm text-gray-700">
        <Badge tone={STATUS_TONE[status]}>{status}</Badge>
        {experiment.archived && <Badge tone="neutral">archived</Badge>}
        <span className="text-xs text-gray-500">{experiment.start_date ? <>started <LocalTime value={experiment.start_date} /></> : <>created <LocalTime value={experiment.created_at} /></>}</span>
      </div>
    </li>
  );
}
