"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useDeferredValue, useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { buttonClasses, ListPage, ListSearch, LocalTime, PageButtons, PageHeader, useListFilters } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { KIND_LABELS, stateFromNode } from "./editor/editor-state";
import { sourceOf } from "./query-source";
import { DeletedNotice, InsightActions, insightTitle } from "./insight-actions";
import { KindIcon } from "./kind-icon";
import { INSIGHTS_PAGE_SIZE, insightsListInput } from "./page-queries";

/** `/insights`: the saved insights, newest change first, searchable by name and description. */
export function InsightsPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="insights-page">
      <PageHeader
        title="Insights"
        description="Trends, funnels, retention, paths, stickiness and lifecycles you have saved."
        actions={
          <>
            <Link href="/sql" className={buttonClasses({ variant: "secondary" })} data-testid="new-sql">
              SQL query
            </Link>
            <Link href="/insights/new" className={buttonClasses()} data-testid="new-insight">
              New insight
            </Link>
          </>
        }
      />
      <ProjectGate testId="insights-project">{(project) => <InsightList projectId={project.id} />}</ProjectGate>
    </div>
  );
}

/** The kind's name of a stored query (HogQL and others by their node kind). */
function kindLabel(query: unknown): string {
  const state = stateFromNode(query);
  if (state) return KIND_LABELS[state.kind];
  const kind = sourceOf(query).kind;
  return kind === "HogQLQuery" ? "SQL" : typeof kind === "string" ? kind : "Unknown";
}

/** `?deleted=<id>&title=…`: the insight its page just deleted, offered back. */
function deletedFromUrl(params: URLSearchParams): { id: number; title: string | null } | null {
  const id = params.get("deleted");
  return id && /^\d{1,9}$/.test(id) ? { id: Number(id), title: params.get("title")?.slice(0, 400) || null } : null;
}

function InsightList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const searchParams = useSearchParams();
  const [deleted, setDeleted] = useState(() => deletedFromUrl(searchParams));
  const dismiss = () => {
    setDeleted(null);
    if (searchParams.has("deleted")) router.replace("/insights");
  };
  const { filters, page, setPage, change, clear } = useListFilters({ search: "" });
  const deferred = useDeferredValue(filters.search.trim());
  const list = useQuery({
    ...trpc.insights.list.queryOptions(insightsListInput(projectId, deferred, page)),
    placeholderData: keepPreviousData,
  });
  const insights = list.data?.results ?? [];
  return (
    <>
    {deleted && <DeletedNotice key={deleted.id} projectId={projectId} deleted={deleted} onDone={dismiss} />}
    <ListPage
      noun={["insight", "insights"]}
      label="Insights"
      testId="insights"
      query={list}
      filters={
        <ListSearch
          label="Filter insights"
          placeholder="Name or description"
          value={filters.search}
          onChange={(value) => change({ search: value })}
          testId="insights-search"
        />
      }
      empty={insights.length === 0}
      filtered={Boolean(deferred)}
      nothingMatches={{ description: "Try other words." }}
      onClearFilters={clear}
      nothingYet={{
        description: "Build a trend, funnel or retention table from your events and save it.",
        action: (
          <Link href="/insights/new" className={buttonClasses()}>
            New insight
          </Link>
        ),
      }}
      count={list.data?.count ?? 0}
      pager={<PageButtons page={page} pageSize={INSIGHTS_PAGE_SIZE} count={list.data?.count ?? 0} onPage={setPage} />}
    >
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm">
          <thead className="border-b border-gray-200 bg-gray-50 text-xs font-medium text-gray-600 uppercase">
            <tr>
              <th scope="col" className="px-4 py-2">
                Name
              </th>
              <th scope="col" className="px-4 py-2">
                Type
              </th>
              <th scope="col" className="hidden px-4 py-2 sm:table-cell">
                Last modified
              </th>
              <th scope="col" className="px-4 py-2">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-200">
            {insights.map((insight) => (
              <tr key={insight.id} data-testid="insight-row">
                <td className="px-4 py-3">
                  <div className="flex items-start gap-3">
                  <KindIcon query={insight.query} className="mt-0.5" />
                  <div className="min-w-0">
                  <Link
                    href={sourceOf(insight.query).kind === "HogQLQuery" ? `/sql?insight=${insight.short_id}` : `/insights/${insight.short_id}`}
                    className="font-semibold break-words text-gray-900 hover:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
                    data-testid="insight-link"
                  >
                    {insightTitle(insight)}
                  </Link>
                  {insight.description && <p className="mt-0.5 line-clamp-2 text-gray-600">{insight.description}</p>}
                  </div>
                  </div>
                </td>
                <td className="px-4 py-3 text-gray-700" data-testid="insight-kind">
                  {kindLabel(insight.query)}
                </td>
                <td className="hidden px-4 py-3 whitespace-nowrap text-gray-600 sm:table-cell">
                  <LocalTime value={insight.last_modified_at} />
                  {insight.last_modified_by ? ` by ${insight.last_modified_by.first_name || insight.last_modified_by.email}` : ""}
                </td>
                <td className="px-4 py-3 text-right">
                  <div className="flex justify-end">
                    <InsightActions
                      projectId={projectId}
                      insight={insight}
                      onDeleted={(one) => setDeleted({ id: one.id, title: insightTitle(one) })}
                      testId="insight-row-actions"
                    />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </ListPage>
    </>
  );
}
