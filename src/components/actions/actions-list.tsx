"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, buttonClasses, ListPage, ListSearch, LocalTime, PageButtons, PageHeader, useListFilters } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { ACTIONS_PAGE_SIZE, actionsListInput } from "./page-queries";
import type { ActionResource } from "@/server/actions/present";
import { stepSummary } from "./action-draft";

export function ActionsPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="actions-page">
      <PageHeader
        title="Actions"
        description="Named events: a pageview of a URL, a click on a button, an event with certain properties — to chart, target surveys and build funnels with."
        actions={
          <Link href="/actions/new" className={buttonClasses()} data-testid="new-action">
            New action
          </Link>
        }
      />
      <ProjectGate testId="actions-project">{(project) => <ActionsList projectId={project.id} />}</ProjectGate>
    </div>
  );
}

function ActionsList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const { filters, page, setPage, filtered, change, clear } = useListFilters<{ search: string }>({ search: "" });
  const list = useQuery({
    ...trpc.actions.list.queryOptions(actionsListInput(projectId, filters, page)),
    placeholderData: keepPreviousData,
  });
  const actions = list.data?.results ?? [];
  return (
    <ListPage
      noun={["action", "actions"]}
      label="Actions"
      testId="actions"
      query={list}
      filters={<ListSearch label="Filter actions" placeholder="Name" value={filters.search} onChange={(value) => change({ search: value })} testId="actions-search" />}
      empty={actions.length === 0}
      filtered={filtered}
      nothingMatches={{ description: "Try another name." }}
      onClearFilters={clear}
      nothingYet={{
        description: "Define one from an event, a page's URL or a clicked element — or open an event in the events explorer and make an action of it.",
        action: (
          <Link href="/actions/new" className={buttonClasses()} data-testid="actions-empty-new">
            New action
          </Link>
        ),
      }}
      count={list.data?.count ?? 0}
      pager={<PageButtons page={page} pageSize={ACTIONS_PAGE_SIZE} count={list.data?.count ?? 0} onPage={setPage} />}
    >
      <ul className="divide-y divide-gray-200">
        {actions.map((action) => (
          <ActionRow key={action.id} action={action} />
        ))}
      </ul>
    </ListPage>
  );
}

function ActionRow({ action }: { action: ActionResource }) {
  return (
    <li className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-center sm:gap-4" data-testid="action-row" data-name={action.name}>
      <div className="min-w-0 flex-1">
        <Link
          href={`/actions/${action.id}`}
          className="text-sm font-semibold break-words text-gray-900 hover:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
          data-testid="action-link"
        >
          {action.name}
        </Link>
        <p className="mt-0.5 truncate text-sm text-gray-600">{action.steps.map(stepSummary).join(" · or · ") || "No steps: matches nothing"}</p>
      </div>
      <div className="flex flex-wrap items-center gap-3 text-sm text-gray-700">
        <Badge tone="neutral">{action.steps.length === 1 ? "1 step" : `${action.steps.length} steps`}</Badge>
        {action.tags.map((tag) => (
          <Badge key={tag} tone="brand">
            {tag}
          </Badge>
        ))}
        <span className="text-xs text-gray-500">created <LocalTime value={action.created_at} /></span>
      </div>
    </li>
  );
}
