"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useDeferredValue, useState } from "react";
import { Button, buttonClasses, Dialog, FormAlert, formatDateTime, TextField } from "@/components/ui";
import { insightTitle } from "@/components/insights/insight-actions";
import { KIND_LABELS, stateFromNode } from "@/components/insights/editor/editor-state";
import { KindIcon } from "@/components/insights/kind-icon";
import { resultKindOf } from "@/components/insights/query-source";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

const PAGE = 20;

const kindName = (query: unknown) => {
  const state = stateFromNode(query);
  if (state) return KIND_LABELS[state.kind];
  return resultKindOf(query) === "hogql" ? "SQL" : "Insight";
};

/**
 * "Add insight" on a dashboard: the project's saved insights (searchable, newest change first,
 * with their kind) to put on it, a quick trend built here, or the full editor.
 */
export function SavedInsightPicker({
  projectId,
  dashboardId,
  onClose,
  onBuildNew,
}: {
  projectId: number;
  dashboardId: number;
  onClose: () => void;
  /** Switches the dialog to the quick trend form. */
  onBuildNew: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const deferred = useDeferredValue(search.trim());
  const list = useQuery({
    ...trpc.insights.list.queryOptions({ projectId, saved: "true", search: deferred || undefined, limit: PAGE }),
    placeholderData: keepPreviousData,
  });
  const add = useMutation(
    trpc.insights.update.mutationOptions({
      onSuccess: async () => {
        await Promise.all([queryClient.invalidateQueries(trpc.dashboards.pathFilter()), queryClient.invalidateQueries(trpc.insights.pathFilter())]);
        onClose();
      },
    }),
  );
  const insights = list.data?.results ?? [];

  return (
    <Dialog
      open
      onClose={onClose}
      title="Add insight"
      description="Put a saved insight on this dashboard, or build a new one."
      testId="add-insight-dialog"
      className="max-w-xl"
      footer={
        <>
          <Link href={`/insights/new?dashboard=${dashboardId}`} className={buttonClasses({ variant: "secondary" })} data-testid="add-insight-editor">
            Open the editor
          </Link>
          <Button variant="secondary" onClick={onBuildNew} data-testid="add-insight-new">
            Quick trend
          </Button>
        </>
      }
    >
      <div className="flex flex-col gap-3" data-testid="saved-insight-picker">
        {add.isError && <FormAlert testId="add-insight-error">{errorMessage(add.error)}</FormAlert>}
        <TextField
          label="Saved insights"
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          placeholder="Search by name or description"
          testId="saved-insight-search"
          autoFocus
        />
        {list.isPending ? (
          <p className="py-4 text-sm text-gray-600">Loading saved insights…</p>
        ) : list.isError ? (
          <FormAlert>{errorMessage(list.error)}</FormAlert>
        ) : insights.length === 0 ? (
          <p className="py-4 text-sm text-gray-600" data-testid="saved-insight-empty">
            {deferred ? "No saved insight matches." : "No saved insights yet: build one below or in the editor."}
          </p>
        ) : (
          <ul className="-mx-1 max-h-80 divide-y divide-gray-100 overflow-y-auto" aria-label="Saved insights" data-testid="saved-insight-list">
            {insights.map((insight) => {
              const already = insight.dashboards.includes(dashboardId);
              return (
                <li key={insight.id}>
                  <button
                    type="button"
                    disabled={already || add.isPending}
                    onClick={() => add.mutate({ projectId, insightId: insight.id, dashboards: [...insight.dashboards, dashboardId] })}
                    className="flex w-full items-center gap-3 rounded-control px-2 py-2 text-left hover:bg-gray-50 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:cursor-not-allowed disabled:opacity-60"
                    data-testid="saved-insight-option"
                  >
                    <KindIcon query={insight.query} />
                    <span className="min-w-0 flex-1">
                      <span className="block truncate text-sm font-medium text-gray-900">{insightTitle(insight)}</span>
                      <span className="block truncate text-xs text-gray-600">
                        {kindName(insight.query)} · {already ? "already on this dashboard" : `changed ${formatDateTime(insight.last_modified_at)}`}
                      </span>
                    </span>
                    {!already && <span className="text-sm font-medium text-brand-700">Add</span>}
                  </button>
                </li>
              );
            })}
          </ul>
        )}
        {(list.data?.count ?? 0) > insights.length && (
          <p className="text-xs text-gray-600">
            Showing the {insights.length} most recently changed of {list.data!.count}; search to find others.
          </p>
        )}
      </div>
    </Dialog>
  );
}
