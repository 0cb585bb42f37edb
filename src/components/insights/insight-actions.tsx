"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useEffect, useId, useState } from "react";
import { Button, buttonClasses, Dialog, FormAlert, Popover, popoverItemClasses, SelectField } from "@/components/ui";
import type { AppRouter } from "@/server/http/trpc/root";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { csvFileName, resultCsv } from "./result-csv";

export type SavedInsight = inferRouterOutputs<AppRouter>["insights"]["list"]["results"][number];

export const insightTitle = (insight: Pick<SavedInsight, "name" | "derived_name">) => insight.name || insight.derived_name || "Untitled insight";

/** Saves `text` as a file through a temporary link. */
function download(text: string, fileName: string, type: string) {
  downloadBlob(new Blob([text], { type }), fileName);
}

function downloadBlob(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** The mutations a saved insight's menu runs: soft delete and restore, duplicate. */
export function useInsightMutations(projectId: number) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => Promise.all([queryClient.invalidateQueries(trpc.insights.pathFilter()), queryClient.invalidateQueries(trpc.dashboards.pathFilter())]);
  const update = useMutation(trpc.insights.update.mutationOptions({ onSuccess: refresh }));
  const create = useMutation(trpc.insights.create.mutationOptions({ onSuccess: refresh }));
  return {
    remove: (insight: SavedInsight) => update.mutateAsync({ projectId, insightId: insight.id, deleted: true }),
    restore: (insightId: number) => update.mutateAsync({ projectId, insightId, deleted: false }),
    duplicate: (insight: SavedInsight) =>
      create.mutateAsync({ projectId, name: `${insightTitle(insight)} (copy)`, description: insight.description, query: insight.query, saved: true, tags: insight.tags }),
    pending: update.isPending || create.isPending,
  };
}

export interface InsightActionsProps {
  projectId: number;
  insight: SavedInsight;
  /** After a soft delete (the caller offers Undo). */
  onDeleted: (insight: SavedInsight) => void;
  /** After a duplicate is made (by default nothing: the list shows it). */
  onDuplicated?: (copy: { short_id: string }) => void;
  /** A result already on screen to export (the editor's chart); else the saved result is fetched. */
  shown?: { results: unknown; columns?: unknown } | null;
  testId?: string;
}

/**
 * "More" on a saved insight (its page and its row in the list): duplicate, add to a dashboard,
 * copy its link, export its result as CSV or its chart as PNG (drawn on the server), delete
 * (soft: the caller offers Undo).
 */
export function InsightActions({ projectId, insight, onDeleted, onDuplicated, shown, testId = "insight-actions" }: InsightActionsProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mutations = useInsightMutations(projectId);
  const [addingTo, setAddingTo] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const title = insightTitle(insight);
  useEffect(() => {
    if (!note) return;
    const timer = setTimeout(() => setNote(null), 4000);
    return () => clearTimeout(timer);
  }, [note]);

  const run = async (action: () => Promise<string | null>) => {
    try {
      setNote(await action());
    } catch (error) {
      setNote(errorMessage(error));
    }
  };

  const chartPng = useMutation(trpc.insights.chartPng.mutationOptions());
  const exportPng = async () => {
    const { fileName, base64 } = await chartPng.mutateAsync({ projectId, insightId: insight.id });
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    downloadBlob(new Blob([bytes], { type: "image/png" }), fileName);
    return "PNG downloaded.";
  };

  const exportCsv = async () => {
    const answer = shown ?? (await queryClient.fetchQuery(trpc.insights.compute.queryOptions({ projectId, insightId: insight.id }))).result;
    const results = shown ? shown.results : answer;
    const columns = shown ? shown.columns : null;
    const csv = resultCsv(results, columns);
    if (!csv) return "Nothing to export: the result is empty.";
    download(csv, csvFileName(title), "text/csv;charset=utf-8");
    return "CSV downloaded.";
  };

  return (
    <div className="flex items-center gap-2">
      <span role="status" aria-live="polite" className="text-xs text-gray-600" data-testid={`${testId}-note`}>
        {note}
      </span>
      <Popover
        button={<span aria-hidden="true">•••</span>}
        buttonLabel={`More actions for ${title}`}
        buttonClassName={buttonClasses({ variant: "secondary", size: "sm" })}
        buttonTestId={testId}
        panelTestId={`${testId}-menu`}
        align="end"
        strategy="fixed"
      >
        {(close) => (
          <>
            <button
              type="button"
              className={popoverItemClasses}
              data-testid="insight-duplicate"
              onClick={() => {
                close();
                void run(async () => {
                  const copy = await mutations.duplicate(insight);
                  onDuplicated?.(copy);
                  return `Duplicated as “${title} (copy)”.`;
                });
              }}
            >
              Duplicate
            </button>
            <button
              type="button"
              className={popoverItemClasses}
              data-testid="insight-add-to-dashboard"
              onClick={() => {
                close();
                setAddingTo(true);
              }}
            >
              Add to dashboard…
            </button>
            <button
              type="button"
              className={popoverItemClasses}
              data-testid="insight-copy-link"
              onClick={() => {
                close();
                void run(async () => ((await copy(`${window.location.origin}/insights/${insight.short_id}`)) ? "Link copied." : "Could not copy the link."));
              }}
            >
              Copy link
            </button>
            <button
              type="button"
              className={popoverItemClasses}
              data-testid="insight-export-csv"
              onClick={() => {
                close();
                void run(exportCsv);
              }}
            >
              Export CSV
            </button>
            <button
              type="button"
              className={popoverItemClasses}
              data-testid="insight-export-png"
              onClick={() => {
                close();
                void run(exportPng);
              }}
            >
              Export PNG
            </button>
            <button
              type="button"
              className={`${popoverItemClasses} text-red-700`}
              data-testid="insight-delete"
              onClick={() => {
                close();
                void run(async () => {
                  await mutations.remove(insight);
                  onDeleted(insight);
                  return null;
                });
              }}
            >
              Delete
            </button>
          </>
        )}
      </Popover>
      <AddToDashboardDialog projectId={projectId} insight={insight} open={addingTo} onClose={() => setAddingTo(false)} onAdded={(name) => setNote(`Added to ${name}.`)} />
    </div>
  );
}

/** Picks a dashboard the user may edit that the insight is not on yet, and puts it there. */
function AddToDashboardDialog({
  projectId,
  insight,
  open,
  onClose,
  onAdded,
}: {
  projectId: number;
  insight: SavedInsight;
  open: boolean;
  onClose: () => void;
  onAdded: (dashboardName: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formId = useId();
  const [chosen, setChosen] = useState("");
  const dashboards = useQuery({ ...trpc.dashboards.list.queryOptions({ projectId, limit: 200 }), enabled: open });
  const add = useMutation(
    trpc.insights.update.mutationOptions({
      onSuccess: async () => {
        await Promise.all([queryClient.invalidateQueries(trpc.insights.pathFilter()), queryClient.invalidateQueries(trpc.dashboards.pathFilter())]);
        const dashboard = dashboards.data?.results.find((one) => one.id === Number(chosen));
        onAdded(dashboard?.name || "the dashboard");
        setChosen("");
        onClose();
      },
    }),
  );
  const choices = dashboards.data?.results ?? [];
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Add to dashboard"
      description={`Puts “${insightTitle(insight)}” on a dashboard as a tile.`}
      testId="add-to-dashboard-dialog"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form={formId} disabled={!chosen} loading={add.isPending} data-testid="add-to-dashboard-confirm">
            Add
          </Button>
        </>
      }
    >
      <form
        id={formId}
        className="flex flex-col gap-3"
        onSubmit={(event) => {
          event.preventDefault();
          if (chosen) add.mutate({ projectId, insightId: insight.id, dashboards: [...insight.dashboards, Number(chosen)] });
        }}
      >
        {add.isError && <FormAlert testId="add-to-dashboard-error">{errorMessage(add.error)}</FormAlert>}
        {dashboards.isSuccess && choices.length === 0 ? (
          <p className="text-sm text-gray-700">
            There is no dashboard yet.{" "}
            <Link href="/dashboards" className="text-brand-700 underline">
              Create one
            </Link>
            .
          </p>
        ) : (
          <SelectField label="Dashboard" value={chosen} onChange={(event) => setChosen(event.target.value)} testId="add-to-dashboard-select">
            <option value="">{dashboards.isPending ? "Loading dashboards…" : "Choose a dashboard"}</option>
            {choices.map((one) => (
              <option key={one.id} value={String(one.id)} disabled={one.user_access_level !== "editor" || insight.dashboards.includes(one.id)}>
                {one.name || "Untitled dashboard"}
                {insight.dashboards.includes(one.id) ? " (already on it)" : ""}
              </option>
            ))}
          </SelectField>
        )}
      </form>
    </Dialog>
  );
}

/** "… was deleted. Undo": restores the insight (and its tiles). */
export function DeletedNotice({ projectId, deleted, onDone }: { projectId: number; deleted: { id: number; title: string | null }; onDone: () => void }) {
  const { restore, pending } = useInsightMutations(projectId);
  const [error, setError] = useState<string | null>(null);
  return (
    <div role="status" className="flex flex-wrap items-center gap-3 rounded-control bg-gray-900 px-4 py-2.5 text-sm text-white" data-testid="insight-deleted-notice">
      <span>{deleted.title ? `“${deleted.title}” was deleted.` : "The insight was deleted."}</span>
      {error && <span className="text-red-200">{error}</span>}
      <button
        type="button"
        className="rounded-sm font-semibold underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white disabled:opacity-60"
        disabled={pending}
        onClick={() =>
          void restore(deleted.id).then(
            () => onDone(),
            (reason: unknown) => setError(errorMessage(reason)),
          )
        }
        data-testid="insight-undo-delete"
      >
        Undo
      </button>
      <button type="button" className="ml-auto rounded-sm px-1 text-gray-300 hover:text-white focus-visible:outline-2 focus-visible:outline-white" onClick={onDone} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}
