"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useRef, useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, Card, ConfirmDialog, EmptyState, ErrorState, formatDateTime, LoadingState, PageHeader, buttonClasses } from "@/components/ui";
import type { RecordingResource } from "@/server/recordings/contract";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { formatBytes, formatDuration } from "./format";
import { ReplayPlayer, type PlayerHandle } from "./player";

const REPLAY_CRUMB = (
  <Link href="/replay" className="hover:underline">
    Replay
  </Link>
);

export function RecordingPage({ id }: { id: string }) {
  return (
    <div className="flex flex-col gap-6" data-testid="recording-page">
      <ProjectGate testId="recording-project">{(project) => <RecordingView projectId={project.id} id={id} />}</ProjectGate>
    </div>
  );
}

type PlaybackEvent = Record<string, unknown> & { type: number; timestamp: number };

interface TimelineItem {
  offset: number;
  kind: "page" | "event" | "log" | "warn" | "error";
  label: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** posthog-js's own markers, left out of the list (the recorder's bookkeeping, not the visitor's doing). */
const QUIET_TAGS = new Set(["$posthog_config", "$remote_config_received", "$recording_started", "$url_changed"]);

/** What the list beside the player shows: pages visited, posthog-js's markers, console output. */
function timelineOf(events: PlaybackEvent[]): TimelineItem[] {
  const start = events[0]?.timestamp ?? 0;
  const items: TimelineItem[] = [];
  let lastPage: string | null = null;
  const page = (offset: number, href: string) => {
    // The page load's Meta event and posthog-js's `$pageview` marker name the same page: one entry.
    if (href !== lastPage) items.push({ offset, kind: "page", label: href });
    lastPage = href;
  };
  for (const event of events) {
    const data = isRecord(event.data) ? event.data : {};
    const offset = event.timestamp - start;
    if (event.type === 4 && typeof data.href === "string") page(offset, data.href);
    else if (event.type === 5 && typeof data.tag === "string") {
      const payload = isRecord(data.payload) ? data.payload : {};
      // posthog-js marks a client-side navigation with `$pageview` (capture_pageview: 'history_change') or `$url_changed`.
      if ((data.tag === "$url_changed" || data.tag === "$pageview") && typeof payload.href === "string") page(offset, payload.href);
      else if (!QUIET_TAGS.has(data.tag) && !data.tag.startsWith("$session")) items.push({ offset, kind: "event", label: data.tag });
    } else if (event.type === 6 && data.plugin === "rrweb/console@1" && isRecord(data.payload)) {
      const level = data.payload.level === "error" ? "error" : data.payload.level === "warn" ? "warn" : "log";
      const parts = Array.isArray(data.payload.payload) ? data.payload.payload.map(String) : [];
      items.push({ offset, kind: level, label: parts.join(" ").replace(/^"(.*)"$/, "$1").slice(0, 300) || "(empty)" });
    }
  }
  return items;
}

function RecordingView({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const playback = useQuery(trpc.recordings.playback.queryOptions({ projectId, id }, { retry: (count, error) => count < 2 && errorMessage(error) !== "Recording not found" }));
  const player = useRef<PlayerHandle>(null);
  const events = useMemo(() => (playback.data?.events ?? []) as PlaybackEvent[], [playback.data]);
  const timeline = useMemo(() => timelineOf(events), [events]);

  if (playback.isPending) {
    return (
      <>
        <PageHeader eyebrow={REPLAY_CRUMB} title="Recording" />
        <Card>
          <LoadingState label="Loading recording…" />
        </Card>
      </>
    );
  }
  if (playback.isError) {
    const missing = errorMessage(playback.error) === "Recording not found";
    return (
      <>
        <PageHeader eyebrow={REPLAY_CRUMB} title={missing ? "Recording not found" : "Recording"} />
        <Card className="p-4" data-testid="recording-error">
          {missing ? (
            <EmptyState
              title="No such recording"
              description="It may have been deleted, evicted past the storage budget, or not recorded (recording off, or the session was too short)."
              action={
                <Link href="/replay" className={buttonClasses()}>
                  Back to recordings
                </Link>
              }
            />
          ) : (
            <ErrorState title="Could not load the recording" message={errorMessage(playback.error)} onRetry={() => void playback.refetch()} />
          )}
        </Card>
      </>
    );
  }
  const { recording } = playback.data;
  return (
    <>
      <PageHeader eyebrow={REPLAY_CRUMB} title={recording.person.name ?? recording.distinct_id} description={recording.start_url ?? undefined} actions={<DeleteRecording projectId={projectId} recording={recording} />} />
      <Facts recording={recording} />
      {playback.data.truncated ? (
        <p role="status" className="rounded-control bg-amber-50 px-3.5 py-3 text-sm text-amber-800 ring-1 ring-amber-200 ring-inset" data-testid="recording-truncated">
          Parts of this recording are too large to play: the player shows the rest. Snapshot values that inflate past 32 MiB, and anything past 256 MiB in all, are left out.
        </p>
      ) : null}
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <Card className="overflow-hidden p-2 sm:p-3" data-testid="recording-player-card">
          {events.length < 2 ? (
            <EmptyState title="Nothing to play yet" description="The recording has no full page snapshot yet; posthog-js sends one within seconds of a page load." />
          ) : (
            <ReplayPlayer ref={player} events={events} />
          )}
        </Card>
        <Card className="flex max-h-[32rem] flex-col overflow-hidden" data-testid="recording-timeline">
          <h2 className="border-b border-gray-100 px-4 py-2.5 text-sm font-semibold text-gray-900">Events and console</h2>
          {timeline.length === 0 ? (
            <p className="px-4 py-3 text-sm text-gray-500">No pages, events or console output recorded.</p>
          ) : (
            <ol className="flex-1 divide-y divide-gray-50 overflow-y-auto text-sm">
              {timeline.map((item, index) => (
                <li key={index}>
                  <button
                    type="button"
                    className="flex w-full gap-3 px-4 py-2 text-left hover:bg-gray-50 focus-visible:bg-gray-50 focus-visible:outline-2 focus-visible:outline-brand-600"
                    onClick={() => player.current?.goto(item.offset)}
                    data-testid="recording-timeline-item"
                  >
                    <span className="w-10 shrink-0 font-mono text-xs text-gray-500 tabular-nums">{formatDuration(item.offset / 1000)}</span>
                    <span className="min-w-0 flex-1">
                      <Badge tone={item.kind === "error" ? "danger" : item.kind === "warn" ? "warning" : item.kind === "page" ? "brand" : "neutral"} className="mr-1.5">
                        {item.kind === "page" ? "page" : item.kind === "event" ? "event" : item.kind}
                      </Badge>
                      <span className="break-all text-gray-800">{item.label}</span>
                    </span>
                  </button>
                </li>
              ))}
            </ol>
          )}
        </Card>
      </div>
    </>
  );
}

function Facts({ recording }: { recording: RecordingResource }) {
  const facts: [string, string][] = [
    ["Started", formatDateTime(recording.start_time)],
    ["Duration", `${formatDuration(recording.recording_duration)} (${formatDuration(recording.active_seconds)} active)`],
    ["Clicks", String(recording.click_count)],
    ["Keypresses", String(recording.keypress_count)],
    ["Console errors", String(recording.console_error_count)],
    ["Stored", formatBytes(recording.storage_bytes)],
  ];
  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6" data-testid="recording-facts">
      {facts.map(([label, value]) => (
        <div key={label} className="rounded-card bg-white px-3 py-2 ring-1 ring-gray-200">
          <dt className="text-xs text-gray-500">{label}</dt>
          <dd className="text-sm font-medium text-gray-900">{value}</dd>
        </div>
      ))}
      {recording.person.uuid ? (
        <div className="col-span-2 sm:col-span-3 lg:col-span-6">
          <Link href={`/persons/${recording.person.uuid}`} className="text-sm text-brand-700 underline-offset-2 hover:underline">
            View person
          </Link>
        </div>
      ) : null}
    </dl>
  );
}

function DeleteRecording({ projectId, recording }: { projectId: number; recording: RecordingResource }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation(
    trpc.recordings.delete.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.recordings.list.queryKey() });
        router.push("/replay");
      },
    }),
  );
  return (
    <>
      <Button variant="secondary" onClick={() => setOpen(true)} data-testid="recording-delete">
        Delete
      </Button>
      <ConfirmDialog
        open={open}
        onCancel={() => setOpen(false)}
        title="Delete this recording?"
        description="Its snapshots are deleted at once and cannot be brought back."
        confirmLabel="Delete recording"
        testId="recording-delete-dialog"
        pending={remove.isPending}
        error={remove.error ? errorMessage(remove.error) : undefined}
        onConfirm={() => remove.mutate({ projectId, id: recording.id })}
      />
    </>
  );
}
