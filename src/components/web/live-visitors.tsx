"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import { formatCount } from "./web-format";

/** How often the live count is taken again. */
const REFRESH_MS = 30_000;

/** "N visitors in the last 30 minutes", taken again every 30 seconds while the page is open. */
export function LiveVisitors({ projectId, host }: { projectId: number; host: string | null }) {
  const trpc = useTRPC();
  const live = useQuery({
    ...trpc.web.liveVisitors.queryOptions({ projectId, host: host ?? undefined }),
    refetchInterval: REFRESH_MS,
    staleTime: 0,
  });
  const visitors = live.data?.visitors;
  const text = live.isError
    ? "Live count unavailable"
    : visitors === undefined
      ? "Counting live visitors…"
      : `${formatCount(visitors)} ${visitors === 1 ? "visitor" : "visitors"} in the last ${live.data!.windowMinutes} minutes`;
  const active = (visitors ?? 0) > 0;
  return (
    <p
      className="inline-flex items-center gap-2 rounded-full border border-gray-200 bg-white px-3 py-1.5 text-sm text-gray-700 shadow-sm"
      data-testid="live-visitors"
      data-state={live.isError ? "error" : visitors === undefined ? "loading" : "ready"}
      data-visitors={visitors}
    >
      <span aria-hidden="true" className="relative flex size-2.5">
        {active && <span className="absolute inline-flex size-full animate-ping rounded-full bg-emerald-400 opacity-60 motion-reduce:hidden" />}
        <span className={`relative inline-flex size-2.5 rounded-full ${active ? "bg-emerald-500" : "bg-gray-300"}`} />
      </span>
      <span className="tabular-nums">{text}</span>
    </p>
  );
}
