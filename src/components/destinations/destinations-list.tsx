"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, buttonClasses, ListPage, ListSearch, LocalTime, PageButtons, PageHeader, useListFilters } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { DESTINATIONS_PAGE_SIZE, destinationsListInput } from "./page-queries";
import type { HogFunctionResource } from "@/server/destinations/present";
import { stateBadge, urlOf } from "./destination-shared";

export function DestinationsPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="destinations-page">
      <PageHeader
        title="Destinations"
        description="Send matching events to a webhook as they arrive: retried until the receiver takes them, even across a restart."
        actions={
          <Link href="/destinations/new" className={buttonClasses()} data-testid="new-destination">
            New destination
          </Link>
        }
      />
      <ProjectGate testId="destinations-project">{(project) => <DestinationsList projectId={project.id} />}</ProjectGate>
    </div>
  );
}

function DestinationsList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const { filters, page, setPage, filtered, change, clear } = useListFilters<{ search: string }>({ search: "" });
  const list = useQuery({
    ...trpc.destinations.list.queryOptions(destinationsListInput(projectId, filters, page)),
    placeholderData: keepPreviousData,
  });
  const destinations = list.data?.results ?? [];
  return (
    <ListPage
      noun={["destination", "destinations"]}
      label="Destinations"
      testId="destinations"
      query={list}
      filters={<ListSearch label="Filter destinations" placeholder="Name" value={filters.search} onChange={(value) => change({ search: value })} testId="destinations-search" />}
      empty={destinations.length === 0}
      filtered={filtered}
      nothingMatches={{ description: "Try another name." }}
      onClearFilters={clear}
      nothingYet={{
        description: "Send events to a webhook: a URL, the events it wants, and the JSON to send.",
        action: (
          <Link href="/destinations/new" className={buttonClasses()} data-testid="destinations-empty-new">
            New destination
          </Link>
        ),
      }}
      count={list.data?.count ?? 0}
      pager={<PageButtons page={page} pageSize={DESTINATIONS_PAGE_SIZE} count={list.data?.count ?? 0} onPage={setPage} />}
    >
      <ul className="divide-y divide-gray-200">
        {destinations.map((destination) => (
          <DestinationRow key={destination.id} destination={destination} />
        ))}
      </ul>
    </ListPage>
  );
}

function DestinationRow({ destination }: { destination: HogFunctionResource }) {
  const state = stateBadge(destination);
  return (
    <li className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-center sm:gap-4" data-testid="destination-row" data-name={destination.name}>
      <div className="min-w-0 flex-1">
        <Link
          href={`/destinations/${destination.id}`}
          className="text-sm font-semibold break-words text-gray-900 hover:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
          data-testid="destination-link"
        >
          {destination.name}
        </Link>
        <p className="mt-0.5 truncate font-mono text-xs text-gray-600">{urlOf(destination)}</p>
      </div>
      <div className="flex flex-wrap items-center gap-3 text-sm text-gray-700">
        <Badge tone={state.tone} dot>
          {state.label}
        </Badge>
        <span className="text-xs text-gray-500">created <LocalTime value={destination.created_at} /></span>
      </div>
    </li>
  );
}
