"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useId, useRef, useState } from "react";
import { newActionHref } from "@/components/actions/action-draft";
import { Badge, Button, buttonClasses, CopyButton, ErrorState, Spinner } from "@/components/ui";
import type { EventResource } from "@/server/events/present";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

const timeFormat = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "medium" });

/**
 * One event in a drawer on the right (a native modal <dialog>: focus is trapped, Escape
 * closes it and focus returns to the row). Loads the event again with `events.get` for its
 * person as it is now; the row's data shows meanwhile.
 */
export function EventDrawer({ projectId, event, onClose }: { projectId: number; event: EventResource | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const trpc = useTRPC();
  const detail = useQuery({
    ...trpc.events.get.queryOptions(event ? { projectId, id: event.id } : skipToken),
    placeholderData: event ?? undefined,
  });
  const open = event !== null;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  const shown = detail.data ?? event;

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid="event-drawer"
      onClose={onClose}
      onClick={(click) => {
        if (click.target === click.currentTarget) onClose();
      }}
      className="fixed inset-y-0 right-0 left-auto m-0 h-dvh max-h-none w-full max-w-2xl border-l border-gray-200 bg-white p-0 text-gray-900 shadow-xl backdrop:bg-gray-950/40"
    >
      {open && shown && (
        <div className="flex h-full flex-col">
          <div className="flex items-start gap-3 border-b border-gray-200 px-5 py-4">
            <div className="min-w-0 flex-1">
              <h2 id={titleId} className="truncate text-base font-semibold text-gray-900" data-testid="event-drawer-title">
                {shown.event}
              </h2>
              <p className="mt-1 text-sm text-gray-600">
                <time dateTime={shown.timestamp}>{timeFormat.format(new Date(shown.timestamp))}</time> ·{" "}
                <span className="font-mono text-xs">{shown.distinct_id}</span>
              </p>
            </div>
            <Link href={newActionHref(shown)} className={buttonClasses({ variant: "secondary", size: "sm" })} data-testid="event-create-action">
              Create action
            </Link>
            <Button variant="ghost" size="sm" onClick={onClose} aria-label="Close" data-testid="event-drawer-close" autoFocus>
              <svg aria-hidden="true" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" className="size-4">
                <path d="M5 5l10 10M15 5 5 15" />
              </svg>
            </Button>
          </div>
          <div className="flex-1 overflow-y-auto px-5 py-4">
            <dl className="grid grid-cols-[7rem_1fr] gap-x-3 gap-y-1.5 text-sm">
              <dt className="text-gray-500">Event ID</dt>
              <dd className="min-w-0 font-mono text-xs break-all text-gray-800" data-testid="event-drawer-id">
                {shown.id}
              </dd>
            </dl>
            {typeof shown.properties.$session_id === "string" && /^[A-Za-z0-9-]{1,70}$/.test(shown.properties.$session_id) ? (
              <Link
                href={`/replay/${shown.properties.$session_id}`}
                className={buttonClasses({ variant: "secondary", size: "sm", className: "mt-3" })}
                data-testid="event-watch-recording"
              >
                Watch recording
              </Link>
            ) : null}
            <PropertiesSection title="Properties" properties={shown.properties} testId="event-properties" />
            <section className="mt-6" aria-label="Person" data-testid="event-person">
              <h3 className="text-sm font-semibold text-gray-900">Person</h3>
              {detail.isError ? (
                <ErrorState className="mt-2" title="Could not load the person" message={errorMessage(detail.error)} onRetry={() => void detail.refetch()} />
              ) : detail.isPlaceholderData ? (
                <p className="mt-2 flex items-center gap-2 text-sm text-gray-600">
                  <Spinner size="sm" label={null} /> <span role="status">Loading person…</span>
                </p>
              ) : shown.person ? (
                <>
                  <div className="mt-2 flex flex-wrap items-center gap-1.5" data-testid="person-distinct-ids">
                    {shown.person.is_identified ? <Badge tone="success">Identified</Badge> : <Badge>Anonymous</Badge>}
                    {shown.person.distinct_ids.map((id) => (
                      <Badge key={id} tone="brand" className="font-mono">
                        {id}
                      </Badge>
                    ))}
                  </div>
                  <PropertiesSection title="Person properties" properties={shown.person.properties} testId="person-properties" />
                </>
              ) : (
                <p className="mt-2 text-sm text-gray-600">No person: this event was captured without person processing.</p>
              )}
            </section>
          </div>
        </div>
      )}
    </dialog>
  );
}

function PropertiesSection({ title, properties, testId }: { title: string; properties: Record<string, unknown>; testId: string }) {
  const [view, setView] = useState<"list" | "json">("list");
  const [descending, setDescending] = useState(false);
  const keys = Object.keys(properties).sort((a, b) => (descending ? b.localeCompare(a) : a.localeCompare(b)));
  const json = JSON.stringify(properties, null, 2);
  return (
    <section className="mt-5" aria-label={title} data-testid={testId}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-gray-900">
          {title} <span className="font-normal text-gray-500">({keys.length})</span>
        </h3>
        <div className="flex items-center gap-1" role="group" aria-label={`${title} view`}>
          <Button variant={view === "list" ? "secondary" : "ghost"} size="sm" aria-pressed={view === "list"} onClick={() => setView("list")}>
            List
          </Button>
          <Button variant={view === "json" ? "secondary" : "ghost"} size="sm" aria-pressed={view === "json"} onClick={() => setView("json")} data-testid={`${testId}-json-toggle`}>
            JSON
          </Button>
        </div>
      </div>
      {keys.length === 0 ? (
        <p className="mt-2 text-sm text-gray-500">None.</p>
      ) : view === "json" ? (
        <div className="relative mt-2">
          <pre className="max-h-96 overflow-auto rounded-control bg-gray-950 p-3 font-mono text-xs text-gray-100" data-testid={`${testId}-json`}>
            {json}
          </pre>
          <CopyButton value={json} variant="inverse" size="sm" className="absolute top-2 right-2" />
        </div>
      ) : (
        <div className="mt-2 overflow-hidden rounded-control border border-gray-200">
          <table className="w-full table-fixed text-sm">
            <thead className="bg-gray-50 text-xs font-medium tracking-wide text-gray-500 uppercase">
              <tr>
                <th scope="col" className="w-2/5 px-3 py-2 text-left font-medium" aria-sort={descending ? "descending" : "ascending"}>
                  <button type="button" className="inline-flex items-center gap-1 uppercase hover:text-gray-800" onClick={() => setDescending(!descending)} data-testid={`${testId}-sort`}>
                    Key <span aria-hidden="true">{descending ? "↓" : "↑"}</span>
                  </button>
                </th>
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  Value
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-gray-200">
              {keys.map((key) => (
                <tr key={key} data-testid={`${testId}-row`}>
                  <th scope="row" className="px-3 py-1.5 text-left align-top font-mono text-xs font-normal break-all text-gray-700">
                    {key}
                  </th>
                  <td className="px-3 py-1.5 font-mono text-xs break-all whitespace-pre-wrap text-gray-900">{valueText(properties[key])}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, value !== null && typeof value === "object" ? 2 : undefined) ?? "undefined";
}
