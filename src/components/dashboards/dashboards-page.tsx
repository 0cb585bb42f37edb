"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useDeferredValue, useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Button, cn, ListPage, ListSearch, PageButtons, PageHeader, Popover, popoverItemClasses, SelectField, useListFilters } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { DashboardBadges, DashboardCreated, dashboardTitle } from "./dashboard-badges";
import { DashboardFormDialog } from "./dashboard-form-dialog";
import { DeleteDashboardDialog } from "./delete-dashboard-dialog";
import { DASHBOARDS_PAGE_SIZE, dashboardsListInput, type DashboardsView } from "./page-queries";
import type { DashboardListItemData } from "./types";

export function DashboardsPage() {
  const router = useRouter();
  const [creating, setCreating] = useState(false);
  return (
    <div className="flex flex-col gap-6" data-testid="dashboards-page">
      <PageHeader
        title="Dashboards"
        description="Collections of insights for your team. Pinned dashboards come first."
        actions={
          <Button onClick={() => setCreating(true)} data-testid="new-dashboard">
            New dashboard
          </Button>
        }
      />
      <ProjectGate testId="dashboards-project">
        {(project) => (
          <>
            <DashboardList projectId={project.id} onCreate={() => setCreating(true)} />
            <DashboardFormDialog projectId={project.id} open={creating} onClose={() => setCreating(false)} onSaved={(saved) => router.push(`/dashboards/${saved.id}`)} />
          </>
        )}
      </ProjectGate>
    </div>
  );
}

function DashboardList({ projectId, onCreate }: { projectId: number; onCreate: () => void }) {
  const trpc = useTRPC();
  const [view, setView] = useState<DashboardsView>("active");
  const { filters, page, setPage, change, clear } = useListFilters({ search: "", tag: "" });
  const { search, tag } = filters;
  const deferredSearch = useDeferredValue(search.trim());
  const tags = useQuery(trpc.dashboards.tags.queryOptions({ projectId }));
  const list = useQuery({
    ...trpc.dashboards.list.queryOptions(dashboardsListInput(projectId, view, { search: deferredSearch, tag }, page)),
    placeholderData: keepPreviousData,
  });
  const dashboards = list.data?.results ?? [];
  const filtered = Boolean(deferredSearch || tag);

  const choose = (next: DashboardsView) => {
    setView(next);
    setPage(0);
  };

  const filterBar = (
    <>
      <div role="tablist" aria-label="Which dashboards" className="flex gap-1 border-b border-gray-200">
        {(
          [
            ["active", "All dashboards"],
            ["deleted", "Recently deleted"],
          ] as const
        ).map(([value, label]) => (
          <button
            key={value}
            type="button"
            role="tab"
            aria-selected={view === value}
            onClick={() => choose(value)}
            onKeyDown={(event) => {
              if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
                event.preventDefault();
                const next = value === "active" ? "deleted" : "active";
                choose(next);
                (event.currentTarget.parentElement?.querySelector(`[data-view="${next}"]`) as HTMLElement | null)?.focus();
              }
            }}
            tabIndex={view === value ? 0 : -1}
            data-view={value}
            data-testid={`dashboards-tab-${value}`}
            className={cn(
              "-mb-px border-b-2 px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600",
              view === value ? "border-brand-600 text-gray-900" : "border-transparent text-gray-600 hover:text-gray-900",
            )}
          >
            {label}
          </button>
        ))}
      </div>

      <ListSearch
        label="Filter dashboards"
        placeholder="Name or description"
        value={search}
        onChange={(value) => change({ search: value })}
        testId="dashboards-search"
      >
        <SelectField
          label="Tag"
          value={tag}
          onChange={(event) => change({ tag: event.target.value })}
          testId="dashboards-tag-filter"
        >
          <option value="">Any tag</option>
          {(tags.data ?? []).map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </SelectField>
      </ListSearch>
    </>
  );

  return (
    <ListPage
      noun={view === "active" ? ["dashboard", "dashboards"] : ["deleted dashboard", "deleted dashboards"]}
      label={view === "active" ? "Dashboards" : "Recently deleted dashboards"}
      testId="dashboards"
      data-view={view}
      query={list}
      filters={filterBar}
      empty={dashboards.length === 0}
      filtered={filtered}
      nothingMatches={{ description: "Try other words or another tag." }}
      onClearFilters={clear}
      nothingYet={
        view === "deleted"
          ? { description: "Dashboards you delete appear here, and can be restored." }
          : {
              description: "Create one to collect the insights your team looks at.",
              action: (
                <Button onClick={onCreate} data-testid="dashboards-empty-new">
                  New dashboard
                </Button>
              ),
            }
      }
      count={list.data?.count ?? 0}
      pager={<PageButtons page={page} pageSize={DASHBOARDS_PAGE_SIZE} count={list.data?.count ?? 0} onPage={setPage} />}
    >
      <ul className="divide-y divide-gray-200" data-testid="dashboard-rows">
        {dashboards.map((dashboard) =>
          view === "active" ? <DashboardRow key={dashboard.id} dashboard={dashboard} projectId={projectId} /> : <DeletedRow key={dashboard.id} dashboard={dashboard} projectId={projectId} />,
        )}
      </ul>
    </ListPage>
  );
}

function useDashboardUpdate() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.dashboards.update.mutationOptions({
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.dashboards.pathKey() }),
    }),
  );
}

function DashboardRow({ dashboard, projectId }: { dashboard: DashboardListItemData; projectId: number }) {
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const update = useDashboardUpdate();
  const canEdit = dashboard.user_access_level === "editor";
  const title = dashboardTitle(dashboard.name);
  const pinned = update.isPending && typeof update.variables.pinned === "boolean" ? update.variables.pinned : dashboard.pinned;

  return (
    <li className="flex items-start gap-3 px-4 py-3" data-testid="dashboard-row" data-id={dashboard.id}>
      <button
        type="button"
        aria-pressed={pinned}
        aria-label={pinned ? `Unpin ${title}` : `Pin ${title}`}
        title={canEdit ? (pinned ? "Unpin" : "Pin to the top") : "You can view this dashboard but not edit it"}
        disabled={!canEdit || update.isPending}
        onClick={() => update.mutate({ projectId, dashboardId: dashboard.id, pinned: !pinned })}
        data-testid="dashboard-pin"
        className={cn(
          "mt-0.5 inline-flex size-8 shrink-0 items-center justify-center rounded-control focus-visible:outline-2 focus-visible:outline-brand-600 disabled:cursor-not-allowed",
          pinned ? "text-amber-500 hover:bg-amber-50" : "text-gray-400 hover:bg-gray-100 hover:text-gray-600",
        )}
      >
        <svg aria-hidden="true" viewBox="0 0 20 20" className="size-5" fill={pinned ? "currentColor" : "none"} stroke="currentColor" strokeWidth={pinned ? 0 : 1.5}>
          <path d="M10.868 2.884c-.321-.772-1.415-.772-1.736 0l-1.83 4.401-4.753.381c-.833.067-1.171 1.107-.536 1.651l3.62 3.102-1.106 4.637c-.194.813.691 1.456 1.405 1.02L10 15.591l4.069 2.485c.713.436 1.598-.207 1.404-1.02l-1.106-4.637 3.62-3.102c.635-.544.297-1.584-.536-1.65l-4.752-.382-1.831-4.401Z" />
        </svg>
      </button>
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <Link
            href={`/dashboards/${dashboard.id}`}
            className="text-sm font-semibold break-words text-gray-900 hover:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
            data-testid="dashboard-link"
          >
            {title}
          </Link>
          <DashboardBadges dashboard={dashboard} showPinned={false} />
        </div>
        {dashboard.description && <p className="mt-0.5 line-clamp-2 text-sm text-gray-600">{dashboard.description}</p>}
        <p className="mt-1 text-xs text-gray-500">
          <DashboardCreated dashboard={dashboard} />
        </p>
        {update.isError && (
          <p role="alert" className="mt-1 text-xs text-red-700">
            {errorMessage(update.error)}
          </p>
        )}
      </div>
      {canEdit && (
        <Popover
          align="end"
          buttonLabel={`Actions for ${title}`}
          buttonTestId="dashboard-actions"
          buttonClassName="inline-flex size-8 items-center justify-center rounded-control text-gray-500 hover:bg-gray-100 hover:text-gray-800 focus-visible:outline-2 focus-visible:outline-brand-600"
          button={
            <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-5">
              <path d="M10 3a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Zm0 5.5a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Zm1.5 7a1.5 1.5 0 1 0-3 0 1.5 1.5 0 0 0 3 0Z" />
            </svg>
          }
        >
          {(close) => (
            <>
              <button
                type="button"
                className={popoverItemClasses}
                onClick={() => {
                  close();
                  setEditing(true);
                }}
                data-testid="dashboard-edit"
              >
                Rename, describe, tag…
              </button>
              <button
                type="button"
                className={cn(popoverItemClasses, "text-red-700")}
                onClick={() => {
                  close();
                  setDeleting(true);
                }}
                data-testid="dashboard-delete"
              >
                Delete…
              </button>
            </>
          )}
        </Popover>
      )}
      <DashboardFormDialog projectId={projectId} dashboard={{ ...dashboard }} open={editing} onClose={() => setEditing(false)} />
      <DeleteDashboardDialog projectId={projectId} dashboard={dashboard} open={deleting} onClose={() => setDeleting(false)} onDeleted={() => setDeleting(false)} />
    </li>
  );
}

function DeletedRow({ dashboard, projectId }: { dashboard: DashboardListItemData; projectId: number }) {
  const restore = useDashboardUpdate();
  const title = dashboardTitle(dashboard.name);
  return (
    <li className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:items-center sm:gap-4" data-testid="deleted-dashboard-row" data-id={dashboard.id}>
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <span className="text-sm font-semibold break-words text-gray-900">{title}</span>
          <DashboardBadges dashboard={{ ...dashboard, is_shared: false }} />
        </div>
        {dashboard.description && <p className="mt-0.5 line-clamp-2 text-sm text-gray-600">{dashboard.description}</p>}
        {restore.isError && (
          <p role="alert" className="mt-1 text-xs text-red-700">
            {errorMessage(restore.error)}
          </p>
        )}
      </div>
      <Button
        variant="secondary"
        size="sm"
        loading={restore.isPending}
        disabled={dashboard.user_access_level !== "editor"}
        onClick={() => restore.mutate({ projectId, dashboardId: dashboard.id, deleted: false })}
        aria-label={`Restore ${title}`}
        data-testid="dashboard-restore"
      >
        Restore
      </Button>
    </li>
  );
}
