"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { formatBytes } from "@/components/replay/format";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, Card, ErrorState, FormAlert, formatDateTime, LoadingState, PageButtons, PageHeader, Switch, TextField } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { BatchExportResource } from "@/server/batch-exports/present";
import { destinationSummary, formatSummary, INTERVAL_LABELS, MODEL_LABELS, MODEL_TIMES, RUN_LABELS, RUN_TONES } from "./batch-export-shared";

const RUNS_PAGE = 50;

const backLink = (
  <Link href="/batch-exports" className="hover:underline">
    Batch exports
  </Link>
);

/** `/batch-exports/:id`: its destination, a backfill form and its runs (refreshed while open). */
export function BatchExportPage({ id }: { id: string }) {
  return (
    <div className="flex flex-col gap-6" data-testid="batch-export-page">
      <ProjectGate testId="batch-export-project">{(project) => <BatchExportDetail projectId={project.id} id={id} />}</ProjectGate>
    </div>
  );
}

function BatchExportDetail({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const batchExport = useQuery({ ...trpc.batchExports.get.queryOptions({ projectId, id }), refetchInterval: 5_000 });
  const update = useMutation(trpc.batchExports.update.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.batchExports.pathKey() }) }));
  if (batchExport.isPending) {
    return (
      <Card data-state="loading">
        <LoadingState label="Loading batch export…" />
      </Card>
    );
  }
  if (batchExport.isError) {
    return (
      <>
        <PageHeader eyebrow={backLink} title="Batch export" />
        <Card className="p-4" data-state="error">
          <ErrorState title="Could not load this batch export" message={errorMessage(batchExport.error)} onRetry={() => void batchExport.refetch()} retrying={batchExport.isRefetching} />
        </Card>
      </>
    );
  }
  const current = batchExport.data;
  return (
    <>
      <PageHeader
        eyebrow={backLink}
        title={<span className="break-words">{current.name}</span>}
        description={<span className="font-mono text-xs break-all">{`${current.destination.type} · ${destinationSummary(current)}`}</span>}
        actions={
          <Switch
            checked={!current.paused}
            disabled={update.isPending}
            onChange={(running) => update.mutate({ projectId, id, patch: { paused: !running } })}
            label="Scheduled"
            text={["Exports each interval", "Paused"]}
            testId="batch-export-toggle"
          />
        }
      />
      {update.error && <FormAlert>{errorMessage(update.error)}</FormAlert>}
      <Summary batchExport={current} />
      <BackfillForm projectId={projectId} id={id} />
      <Runs projectId={projectId} id={id} />
    </>
  );
}

function Summary({ batchExport }: { batchExport: BatchExportResource }) {
  return (
    <Card className="grid gap-4 p-4 text-sm sm:grid-cols-3" data-testid="batch-export-summary">
      <div>
        <h2 className="font-semibold text-gray-900">Exports</h2>
        <p className="mt-1 text-gray-700">
          {MODEL_LABELS[batchExport.model] ?? batchExport.model}, {INTERVAL_LABELS[batchExport.interval]?.toLowerCase()}, {MODEL_TIMES[batchExport.model]}
        </p>
      </div>
      <div>
        <h2 className="font-semibold text-gray-900">Format</h2>
        <p className="mt-1 text-gray-700">
          {formatSummary(batchExport)}
        </p>
      </div>
      <div>
        <h2 className="font-semibold text-gray-900">Created</h2>
        <p className="mt-1 text-gray-700">{formatDateTime(batchExport.created_at)}</p>
      </div>
    </Card>
  );
}

/** A datetime-local value ("2026-01-10T01:00") read as UTC, as the runs' intervals are. */
const utc = (local: string) => (local ? new Date(`${local}:00Z`).toISOString() : null);

function BackfillForm({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const [made, setMade] = useState<number | null>(null);
  const backfill = useMutation(
    trpc.batchExports.backfill.mutationOptions({
      onSuccess: (result) => {
        setMade(result.total_expected_runs);
        void queryClient.invalidateQueries({ queryKey: trpc.batchExports.pathKey() });
      },
    }),
  );
  return (
    <Card className="p-4" data-testid="backfill-card">
      <form
        className="flex flex-col gap-3"
        onSubmit={(event) => {
          event.preventDefault();
          setMade(null);
          const startAt = utc(start);
          if (startAt) backfill.mutate({ projectId, id, backfill: { start_at: startAt, end_at: utc(end) } });
        }}
      >
        <div>
          <h2 className="text-sm font-semibold text-gray-900">Backfill</h2>
          <p className="text-xs text-gray-600">Export a past range again: one run per completed interval (times in UTC). Files are rewritten under the same keys and rows upserted, so nothing is duplicated.</p>
        </div>
        <div className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
          <TextField label="From (UTC)" type="datetime-local" required value={start} onChange={(e) => setStart(e.target.value)} testId="backfill-start" />
          <TextField label="To (UTC)" type="datetime-local" value={end} hint="Empty: up to now." onChange={(e) => setEnd(e.target.value)} testId="backfill-end" />
          <Button type="submit" variant="secondary" loading={backfill.isPending} data-testid="backfill-submit">
            Start backfill
          </Button>
        </div>
        {backfill.error && <FormAlert testId="backfill-error">{errorMessage(backfill.error)}</FormAlert>}
        {made !== null && (
          <p className="text-sm text-gray-700" role="status" data-testid="backfill-made">
            {made === 0 ? "No completed interval in that range." : `${made} run${made === 1 ? "" : "s"} queued.`}
          </p>
        )}
      </form>
    </Card>
  );
}

function Runs({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(0);
  const runs = useQuery({ ...trpc.batchExports.runs.queryOptions({ projectId, id, query: { limit: RUNS_PAGE, offset: page * RUNS_PAGE } }), refetchInterval: 3_000 });
  const retry = useMutation(trpc.batchExports.retryRun.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.batchExports.pathKey() }) }));
  const rows = runs.data?.results ?? [];
  return (
    <Card className="overflow-hidden" data-testid="batch-export-runs">
      <div className="border-b border-gray-200 px-4 py-3">
        <h2 className="text-sm font-semibold text-gray-900">Runs</h2>
        <p className="text-xs text-gray-600">One per interval, newest first. A failed run is retried with growing pauses, resuming where it stopped.</p>
      </div>
      {runs.isPending ? (
        <LoadingState label="Loading runs…" />
      ) : runs.isError ? (
        <div className="p-4">
          <ErrorState title="Could not load the runs" message={errorMessage(runs.error)} onRetry={() => void runs.refetch()} retrying={runs.isRefetching} />
        </div>
      ) : rows.length === 0 ? (
        <p className="px-4 py-6 text-sm text-gray-600" data-testid="runs-empty">
          No runs yet: the first starts when the current interval ends, or backfill a past range above.
        </p>
      ) : (
        <>
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="bg-gray-50 text-xs text-gray-600">
                <tr>
                  <th className="px-4 py-2 font-medium">Interval (UTC)</th>
                  <th className="px-4 py-2 font-medium">Status</th>
                  <th className="px-4 py-2 text-right font-medium">Rows</th>
                  <th className="px-4 py-2 text-right font-medium">Bytes</th>
                  <th className="px-4 py-2 font-medium">Finished</th>
                  <th className="px-4 py-2 font-medium">Error</th>
                  <th className="px-4 py-2 font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-gray-100">
                {rows.map((run) => (
                  <tr key={run.id} data-testid="run-row" data-status={run.status}>
                    <td className="px-4 py-2 font-mono text-xs whitespace-nowrap text-gray-700">
                      {run.data_interval_start.slice(0, 16).replace("T", " ")} → {run.data_interval_end.slice(0, 16).replace("T", " ")}
                    </td>
                    <td className="px-4 py-2 whitespace-nowrap">
                      <Badge tone={RUN_TONES[run.status] ?? "neutral"}>{RUN_LABELS[run.status] ?? run.status}</Badge>
                      {run.backfill && <span className="ml-2 text-xs text-gray-500">backfill</span>}
                    </td>
                    <td className="px-4 py-2 text-right tabular-nums" data-testid="run-rows">
                      {run.records_completed.toLocaleString()}
                    </td>
                    <td className="px-4 py-2 text-right tabular-nums whitespace-nowrap" data-testid="run-bytes">
                      {formatBytes(run.bytes_exported)}
                    </td>
                    <td className="px-4 py-2 whitespace-nowrap text-gray-700">{run.finished_at ? formatDateTime(run.finished_at) : "—"}</td>
                    <td className="max-w-xs truncate px-4 py-2 text-xs text-gray-700" title={run.latest_error ?? undefined}>
                      {run.latest_error ?? ""}
                    </td>
                    <td className="px-4 py-2 text-right">
                      {run.status !== "Running" && (
                        <Button size="sm" variant="ghost" disabled={retry.isPending} onClick={() => retry.mutate({ projectId, id, runId: run.id })} aria-label={`Run the interval from ${run.data_interval_start} again`}>
                          Re-run
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {retry.error && (
            <div className="p-4">
              <FormAlert>{errorMessage(retry.error)}</FormAlert>
            </div>
          )}
          <div className="border-t border-gray-200 px-4 py-2">
            <PageButtons page={page} pageSize={RUNS_PAGE} count={runs.data?.count ?? 0} onPage={setPage} />
          </div>
        </>
      )}
    </Card>
  );
}
