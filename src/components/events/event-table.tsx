"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { cn, LocalTime } from "@/components/ui";
import type { EventResource } from "@/server/events/present";

function shown(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The events as a table. Narrower than its columns (a phone), it scrolls sideways inside its
 * card with the event name held at the left, a "scroll →" hint above it and a shadow on the
 * edge that has more; `dimmed` marks rows of earlier filters while the new ones load.
 */
export function EventTable({ events, onOpen, dimmed = false }: { events: EventResource[]; onOpen: (event: EventResource) => void; dimmed?: boolean }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState({ left: false, right: false });
  const measure = useCallback(() => {
    const box = scroller.current;
    if (!box) return;
    const right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    const left = box.scrollLeft > 0;
    setMore((current) => (current.left === left && current.right === right ? current : { left, right }));
  }, []);
  useEffect(() => {
    measure();
    const box = scroller.current;
    if (!box || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    return () => observer.disconnect();
  }, [measure, events.length]);
  const sticky = "sticky left-0 z-[1] max-w-36 truncate sm:max-w-56";
  return (
    <div className="relative">
      {more.right && (
        <p className="flex items-center justify-end gap-1 border-b border-gray-100 px-4 py-1.5 text-xs text-gray-500" data-testid="events-scroll-hint">
          <span>Scroll for time, person, URL and browser</span>
          <span aria-hidden="true">→</span>
        </p>
      )}
      <div ref={scroller} onScroll={measure} className="overflow-x-auto" data-testid="events-table-scroll" tabIndex={more.right || more.left ? 0 : undefined} aria-label={more.right || more.left ? "Events table, scrolls sideways" : undefined}>
        <table className={cn("w-full min-w-[44rem] text-sm transition-opacity", dimmed && "opacity-50")} data-testid="events-table" aria-busy={dimmed || undefined}>
          <thead className="bg-gray-50 text-xs font-medium tracking-wide whitespace-nowrap text-gray-500 uppercase">
            <tr>
              <th scope="col" className={cn(sticky, "bg-gray-50 px-4 py-2 text-left font-medium", more.left && "shadow-[4px_0_6px_-4px_rgba(0,0,0,0.25)]")}>Event</th>
              <th scope="col" className="px-4 py-2 text-left font-medium">Time</th>
              <th scope="col" className="px-4 py-2 text-left font-medium">Distinct ID</th>
              <th scope="col" className="px-4 py-2 text-left font-medium">URL</th>
              <th scope="col" className="px-4 py-2 text-left font-medium">Browser</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-200">
            {events.map((event) => (
              <tr
                key={event.id}
                tabIndex={0}
                aria-label={`${event.event} by ${event.distinct_id}: show details`}
                className="group cursor-pointer hover:bg-gray-50 focus-visible:bg-brand-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-600"
                data-testid="event-row"
                data-event={event.event}
                onClick={() => onOpen(event)}
                onKeyDown={(key) => {
                  if (key.key === "Enter" || key.key === " ") {
                    key.preventDefault();
                    onOpen(event);
                  }
                }}
              >
                <td
                  className={cn(sticky, "bg-white px-4 py-2.5 font-medium text-gray-900 group-hover:bg-gray-50 group-focus-visible:bg-brand-50", more.left && "shadow-[4px_0_6px_-4px_rgba(0,0,0,0.25)]")}
                  data-testid="event-name"
                >
                  {event.event}
                </td>
                <td className="px-4 py-2.5 whitespace-nowrap text-gray-600 tabular-nums">
                  <LocalTime value={event.timestamp} format="dateTimeSeconds" />
                </td>
                <td className="max-w-48 truncate px-4 py-2.5 font-mono text-xs text-gray-700" data-testid="event-distinct-id">
                  {event.distinct_id}
                </td>
                <td className={cn("max-w-64 truncate px-4 py-2.5 text-gray-600")}>{shown(event.properties.$current_url) || <span className="text-gray-400">—</span>}</td>
                <td className="px-4 py-2.5 whitespace-nowrap text-gray-600">{shown(event.properties.$browser) || <span className="text-gray-400">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {more.right && <div aria-hidden="true" className="pointer-events-none absolute top-0 right-0 bottom-0 w-6 bg-gradient-to-l from-white/90 to-transparent" />}
    </div>
  );
}
