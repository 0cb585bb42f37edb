"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useEffect, useState, type FormEvent } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, Card, inputClasses, ListPage, LocalTime, PageButtons, PageHeader, SelectField } from "@/components/ui";
import type { RecordingResource } from "@/server/recordings/contract";
import { useTRPC } from "@/trpc/react";
import { formatBytes, formatDuration } from "./format";
import { DURATIONS, RANGES, RECORDINGS_PAGE_SIZE, recordingListInput, recordingListParams } from "./page-queries";

export function ReplayPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="replay-page">
      <PageHeader title="Replay" description="Session recordings: what visitors saw and did, played back from their browsers' snapshots." />
      <ProjectGate testId="replay-project">
        {(project) => (
          <Suspense>
            <Usage projectId={project.id} />
            <RecordingList projectId={project.id} />
          </Suspense>
        )}
      </ProjectGate>
    </div>
  );
}

/** Bytes used against the budget and per recorded minute. */
function Usage({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const usage = useQuery(trpc.recordings.usage.queryOptions({ projectId }));
  if (!usage.data) return null;
  const { bytes, budgetBytes, bytesPerMinute, recordings, retentionPeriod } = usage.data;
  const share = budgetBytes > 0 ? Math.min(100, (bytes / budgetBytes) * 100) : 100;
  return (
    <Card className="mb-6 flex flex-wrap items-center gap-x-8 gap-y-3 p-4 text-sm" data-testid="replay-usage">
      <div className="min-w-48 flex-1">
        <div className="flex justify-between gap-2 text-gray-700">
          <span>
            Storage: <strong data-testid="replay-bytes-used">{formatBytes(bytes)}</strong> of {formatBytes(budgetBytes)}
          </span>
          <span className="text-gray-500">{share.toFixed(share < 10 ? 1 : 0)}%</span>
        </div>
        <div className="mt-1.5 h-2 overflow-hidden rounded-full bg-gray-100" role="progressbar" aria-label="Recording storage used" aria-valuenow={Math.round(share)} aria-valuemin={0} aria-valuemax={100}>
          <div className="h-full rounded-full bg-brand-600" style={{ width: `${share}%` }} />
        </div>
      </div>
      <div className="text-gray-700">
        <strong>{recordings}</strong> {recordings === 1 ? "recording" : "recordings"}
      </div>
      <div className="text-gray-700">{bytesPerMinute === null ? "No recorded minutes yet" : `${formatBytes(bytesPerMinute)} per recorded minute`}</div>
      <div className="text-gray-500">
        Kept {retentionPeriod.replace("d", " days").replace("1y", "1 year").replace("5y", "5 years")}; the oldest go first past the budget.{" "}
        <Link href="/settings/project#replay" className="text-brand-700 underline-offset-2 hover:underline">
          Settings
        </Link>
      </div>
    </Card>
  );
}

/** The filters and page live in the URL, so a view can be linked to and Back returns to it. */
function RecordingList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const view = recordingListParams(params);
  const { range, minDuration, person, distinctId, errors, performed, path, page } = view;
  const [draft, setDraft] = useState(distinctId);
  useEffect(() => setDraft(distinctId), [distinctId]);
  const [eventDraft, setEventDraft] = useState(performed);
  useEffect(() => setEventDraft(performed), [performed]);

  const list = useQuery({
    ...trpc.recordings.list.queryOptions(recordingListInput(projectId, view)),
    placeholderData: keepPreviousData,
    refetchInterval: 15_000,
  });
  const recordings = list.data?.results ?? [];

  function go(next: Record<string, string | number | boolean | undefined>) {
    const current: Record<string, string> = { range, min: minDuration, person, distinct_id: distinctId, errors: errors ? "1" : "", event: performed, path };
    const merged = { ...current, page: "0", ...Object.fromEntries(Object.entries(next).map(([k, v]) => [k, v === true ? "1" : v === false || v === undefined ? "" : String(v)])) };
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(merged)) {
      if (!value || (key === "range" && value === "-7d") || (key === "min" && value === "0") || (key === "page" && value === "0")) continue;
      query.set(key, value);
    }
    router.replace(query.size ? `${pathname}?${query}` : pathname);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const nextEvent = eventDraft.trim();
    go({ distinct_id: draft.trim(), person: "", event: nextEvent, path: nextEvent === performed ? path : "" });
  }

  const filtered = Boolean(person || distinctId || errors || performed || minDuration !== "0");
  return (
    <ListPage
      noun={["recording", "recordings"]}
      label="Recordings"
      testId="recordings"
      query={list}
      filters={
        <Card className="flex flex-wrap items-end gap-3 p-4">
          <SelectField label="When" value={range} onChange={(event) => go({ range: event.target.value })} testId="recordings-range" className="w-44">
            {RANGES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </SelectField>
          <SelectField label="Duration" value={minDuration} onChange={(event) => go({ min: event.target.value })} testId="recordings-duration" className="w-44">
            {DURATIONS.map((d) => (
              <option key={d.value} value={d.value}>
                {d.label}
              </option>
            ))}
          </SelectField>
          <form role="search" onSubmit={submit} className="flex min-w-0 basis-full flex-wrap items-end gap-2 lg:basis-0 lg:flex-1" aria-label="Filter by distinct ID and event performed">
            <div className="min-w-40 flex-1">
              <label htmlFor="recordings-distinct-id" className="text-sm font-medium text-gray-800">
                Distinct ID
              </label>
              <input
                id="recordings-distinct-id"
                type="search"
                className={inputClasses({ className: "mt-1.5" })}
                placeholder="Whose recordings"
                value={draft}
                maxLength={400}
                onChange={(event) => setDraft(event.target.value)}
                data-testid="recordings-distinct-id"
              />
            </div>
            <div className="min-w-40 flex-1">
              <label htmlFor="recordings-event" className="text-sm font-medium text-gray-800">
                Event performed
              </label>
              <input
                id="recordings-event"
                type="search"
                className={inputClasses({ className: "mt-1.5" })}
                placeholder="e.g. $pageview, purchase"
                value={eventDraft}
                maxLength={400}
                onChange={(event) => setEventDraft(event.target.value)}
                data-testid="recordings-event"
              />
            </div>
            <Button type="submit" variant="secondary">
              Filter
            </Button>
          </form>
          <label className="flex items-center gap-2 pb-2 text-sm text-gray-800">
            <input type="checkbox" className="size-4 rounded border-gray-300" checked={errors} onChange={(event) => go({ errors: event.target.checked })} data-testid="recordings-errors" />
            With console errors
          </label>
          {performed && path ? (
            <Badge tone="brand" className="mb-2" data-testid="recordings-path">
              Viewed {path}
            </Badge>
          ) : null}
          {person ? (
            <Badge tone="brand" className="mb-2">
              One person&apos;s recordings
            </Badge>
          ) : null}
        </Card>
      }
      empty={recordings.length === 0}
      filtered={filtered}
      nothingMatches={{ description: "No recording in this period matches these filters." }}
      onClearFilters={() => go({ person: "", distinct_id: "", errors: false, min: "0", event: "", path: "" })}
      nothingYet={
        page > 0
          ? { title: "No more recordings", action: <Button onClick={() => go({ page: 0 })}>Back to the first page</Button> }
          : {
              description: (
                <>
                  Turn recording on in{" "}
                  <Link href="/settings/project#replay" className="text-brand-700 underline">
                    the project&apos;s settings
                  </Link>
                  ; posthog-js then sends snapshots and recordings appear here within seconds.
                </>
              ),
            }
      }
      count={recordings.length}
      summary={`${recordings.length} ${recordings.length === 1 ? "recording" : "recordings"} on this page`}
      pager={<PageButtons page={page} hasNext={Boolean(list.data?.has_next)} onPage={(next) => go({ page: next })} testId="recordings" />}
    >
      <RecordingTable recordings={recordings} />
    </ListPage>
  );
}

function RecordingTable({ recordings }: { recordings: RecordingResource[] }) {
  return (
    <ul className="divide-y divide-gray-100" data-testid="recordings-table">
      {recordings.map((recording) => (
        <li key={recording.id}>
          <Link
            href={`/replay/${encodeURIComponent(recording.id)}`}
            className="flex flex-col gap-1 px-4 py-3 hover:bg-gray-50 focus-visible:bg-gray-50 focus-visible:outline-2 focus-visible:outline-brand-600 sm:flex-row sm:items-center sm:gap-4"
            data-testid="recording-row"
          >
            <span className="flex min-w-0 flex-1 flex-col">
              <span className="truncate font-medium text-gray-900">{recording.person.name ?? recording.distinct_id}</span>
              <span className="truncate text-xs text-gray-500">{recording.start_url ?? "No URL recorded"}</span>
            </span>
            <span className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-gray-600 sm:text-sm">
              <LocalTime value={recording.start_time} />
              <span data-testid="recording-duration" title="Duration (active)">
                {formatDuration(recording.recording_duration)} ({formatDuration(recording.active_seconds)} active)
              </span>
              <span data-testid="recording-clicks">
                {recording.click_count} {recording.click_count === 1 ? "click" : "clicks"}
              </span>
              {recording.console_error_count > 0 ? (
                <Badge tone="danger">
                  {recording.console_error_count} {recording.console_error_count === 1 ? "error" : "errors"}
                </Badge>
              ) : null}
              {recording.ongoing ? <Badge tone="success">Live</Badge> : null}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
