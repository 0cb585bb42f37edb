"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, buttonClasses, formatDateTime, ListPage, PageHeader } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import type { BatchExportResource } from "@/server/batch-exports/present";
import { destinationSummary, INTERVAL_LABELS, MODEL_LABELS, RUN_LABELS, RUN_TONES } from "./batch-export-shared";

export function BatchExportsPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="batch-exports-page">
      <PageHeader
        title="Batch exports"
        description="Copy events, persons or sessions to S3 (JSON Lines or Parquet), PostgreSQL or, for events, an HTTP endpoint, hourly or daily: late rows are not missed, re-runs never duplicate."
        actions={
          <Link href="/batch-exports/new" className={buttonClasses()} data-testid="new-batch-export">
            New batch export
          </Link>
        }
      />
      <ProjectGate testId="batch-exports-project">{(project) => <BatchExportsList projectId={project.id} />}</ProjectGate>
    </div>
  );
}

function BatchExportsList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.batchExports.list.queryOptions({ projectId }), refetchInterval: 10_000 });
  const exports = list.data?.results ?? [];
  return (
    <ListPage
      noun={["batch export", "batch exports"]}
      label="Batch exports"
      testId="batch-exports"
      query={list}
      empty={exports.length === 0}
      filtered={false}
      nothingMatches={{ description: "" }}
      nothingYet={{
        description: "Send your events, persons or sessions to a bucket, a database or an endpoint on a schedule, and backfill the past.",
        action: (
          <Link href="/batch-exports/new" className={buttonClasses()} data-testid="batch-exports-empty-new">
            New batch export
          </Link>
        ),
      }}
      count={list.data?.count ?? 0}
    >
      <ul className="divide-y divide-gray-200">
        {exports.map((batchExport) => (
          <BatchExportRow key={batchExport.id} batchExport={batchExport} />
        ))}
      </ul>
    </ListPage>
  );
}

function BatchExportRow({ batchExport }: { batchExport: BatchExportResource }) {
  const latest = batchExport.latest_runs[0];
  return (
    <li className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-center sm:gap-4" data-testid="batch-export-row" data-name={batchExport.name}>
      <div className="min-w-0 flex-1">
        <Link
          href={`/batch-exports/${batchExport.id}`}
          className="text-sm font-semibold break-words text-gray-900 hover:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
          data-testid="batch-export-link"
        >
          {batchExport.name}
        </Link>
        <p className="mt-0.5 truncate font-mono text-xs text-gray-600">
          {MODEL_LABELS[batchExport.model] ?? batchExport.model} → {batchExport.destination.type} · {destinationSummary(batchExport)}
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-3 text-sm text-gray-700">
        <span className="text-xs text-gray-600">{INTERVAL_LABELS[batchExport.interval]}</span>
        {batchExport.paused ? (
          <Badge tone="neutral" dot>
            Paused
          </Badge>
        ) : latest ? (
          <Badge tone={RUN_TONES[latest.status] ?? "neutral"} dot>
            Last run: {RUN_LABELS[latest.status] ?? latest.status}
          </Badge>
        ) : (
          <Badge tone="success" dot>
            Active
          </Badge>
        )}
        <span className="text-xs text-gray-500">created {formatDateTime(batchExport.created_at)}</span>
      </div>
    </li>
  );
}
