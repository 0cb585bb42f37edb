"use client";

import "rrweb-player/dist/style.css";
import { forwardRef, useEffect, useImperativeHandle, useRef, useState } from "react";
import { LoadingState } from "@/components/ui";

export interface PlayerHandle {
  /** Jumps to `offset` ms from the recording's start and plays from there. */
  goto(offset: number): void;
}

interface RrwebPlayer {
  goto(timeOffset: number, play?: boolean): void;
  triggerResize(): void;
  $set(props: Record<string, unknown>): void;
  $destroy(): void;
}

/** The recorded page's size from its first Meta event (16:9 when unknown). */
function aspectOf(events: Record<string, unknown>[]): number {
  const meta = events.find((event) => event.type === 4) as { data?: { width?: unknown; height?: unknown } } | undefined;
  const width = Number(meta?.data?.width);
  const height = Number(meta?.data?.height);
  return width > 0 && height > 0 ? height / width : 9 / 16;
}

/**
 * rrweb's own player (rrweb-player: timeline, play/pause, speeds 1–8×, skip inactivity) sized
 * to its container; loaded in the browser only (it needs the DOM).
 */
export const ReplayPlayer = forwardRef<PlayerHandle, { events: Record<string, unknown>[] }>(function ReplayPlayer({ events }, ref) {
  const container = useRef<HTMLDivElement>(null);
  const player = useRef<RrwebPlayer | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);

  useImperativeHandle(ref, () => ({ goto: (offset) => player.current?.goto(offset, true) }), []);

  useEffect(() => {
    const target = container.current;
    if (!target) return;
    let cancelled = false;
    const aspect = aspectOf(events);
    const size = () => {
      const width = Math.max(240, target.clientWidth);
      const height = Math.round(Math.min(width * aspect, window.innerHeight * 0.65));
      return { width, height };
    };
    import("rrweb-player")
      .then(({ default: Player }) => {
        if (cancelled) return;
        target.replaceChildren();
        player.current = new Player({
          target,
          props: { events: events as never, ...size(), autoPlay: false, skipInactive: true, speedOption: [1, 2, 4, 8], showController: true, mouseTail: false },
        }) as unknown as RrwebPlayer;
        setLoading(false);
      })
      .catch((error: unknown) => {
        if (!cancelled) setFailed(error instanceof Error ? error.message : String(error));
      });
    const observer = new ResizeObserver(() => {
      if (!player.current) return;
      player.current.$set(size());
      player.current.triggerResize();
    });
    observer.observe(target);
    return () => {
      cancelled = true;
      observer.disconnect();
      player.current?.$destroy();
      player.current = null;
    };
  }, [events]);

  return (
    <div data-testid="recording-player">
      {failed ? <p className="p-4 text-sm text-red-700">The player could not start: {failed}</p> : null}
      {loading && !failed ? <LoadingState label="Starting the player…" /> : null}
      <div ref={container} className="replay-player w-full" />
    </div>
  );
});
