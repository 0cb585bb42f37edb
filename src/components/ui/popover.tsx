"use client";

import { useCallback, useEffect, useId, useRef, useState, type CSSProperties, type KeyboardEvent, type ReactNode } from "react";
import { cn } from "./cn";

export interface PopoverProps {
  /** The trigger's content; it is a <button> with aria-expanded. */
  button: ReactNode;
  /** Accessible name of the trigger when its content is not enough. */
  buttonLabel?: string;
  buttonClassName?: string;
  buttonTestId?: string;
  /** The panel's content; `close` hides it (and gives focus back to the trigger). */
  children: (close: () => void) => ReactNode;
  align?: "start" | "end";
  /** Where the panel opens: below the trigger, or above it (for triggers at the bottom of a clipped box). */
  side?: "below" | "above";
  panelClassName?: string;
  panelTestId?: string;
  className?: string;
  /**
   * "fixed": the panel is placed against the viewport (below the trigger, or above it when
   * there is no room), so a box that clips its overflow — a list card, a scrolling table —
   * cannot cut it off. It closes when a scroll moves its trigger.
   */
  strategy?: "absolute" | "fixed";
}

/**
 * A disclosure: a button that shows a panel of links and buttons below it. Escape, a click
 * outside or tabbing away closes it; arrow keys move between the panel's items.
 */
export function Popover({
  button,
  buttonLabel,
  buttonClassName,
  buttonTestId,
  children,
  align = "start",
  side = "below",
  panelClassName,
  panelTestId,
  className,
  strategy = "absolute",
}: PopoverProps) {
  const [open, setOpen] = useState(false);
  const [fixedAt, setFixedAt] = useState<CSSProperties | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  /** Where the trigger was when a fixed panel was placed against it. */
  const placedAt = useRef<{ top: number; left: number } | null>(null);
  const panelId = useId();

  const close = useCallback((returnFocus = true) => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  }, []);

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKeyDown = (event: globalThis.KeyboardEvent) => {
      if (event.key === "Escape") close();
    };
    const onScroll = (event: Event) => {
      if (rootRef.current?.contains(event.target as Node)) return;
      // A scroll's event comes at the next frame: one that ended before the panel was placed
      // (focusing the trigger scrolled it into view, then Enter opened it) moved nothing.
      const rect = buttonRef.current?.getBoundingClientRect();
      if (rect && placedAt.current && rect.top === placedAt.current.top && rect.left === placedAt.current.left) return;
      setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    document.addEventListener("keydown", onKeyDown);
    if (strategy === "fixed") window.addEventListener("scroll", onScroll, true);
    return () => {
      document.removeEventListener("pointerdown", onPointerDown);
      document.removeEventListener("keydown", onKeyDown);
      window.removeEventListener("scroll", onScroll, true);
    };
  }, [open, close, strategy]);

  /** Where a fixed panel goes: under the trigger, or over it when the viewport has no room below. */
  function place() {
    const rect = buttonRef.current?.getBoundingClientRect();
    if (!rect) return;
    placedAt.current = { top: rect.top, left: rect.left };
    const below = window.innerHeight - rect.bottom;
    const vertical = below >= 240 || below >= rect.top ? { top: rect.bottom + 8 } : { bottom: window.innerHeight - rect.top + 8 };
    const horizontal = align === "end" ? { right: Math.max(8, window.innerWidth - rect.right) } : { left: Math.max(8, rect.left) };
    setFixedAt({ position: "fixed", ...vertical, ...horizontal });
  }

  function moveFocus(event: KeyboardEvent<HTMLDivElement>) {
    if (!["ArrowDown", "ArrowUp", "Home", "End"].includes(event.key)) return;
    const panel = rootRef.current?.querySelector<HTMLElement>(`[id="${CSS.escape(panelId)}"]`);
    const items = Array.from(panel?.querySelectorAll<HTMLElement>("a[href], button:not([disabled])") ?? []);
    if (items.length === 0) return;
    event.preventDefault();
    const at = items.indexOf(document.activeElement as HTMLElement);
    const next =
      event.key === "Home" ? 0 : event.key === "End" ? items.length - 1 : event.key === "ArrowDown" ? (at + 1) % items.length : (at - 1 + items.length) % items.length;
    items[next]?.focus();
  }

  return (
    <div
      ref={rootRef}
      className={cn("relative", className)}
      onKeyDown={moveFocus}
      onBlur={(event) => {
        // Tabbing out of the trigger and panel closes it (a click outside is handled above).
        const next = event.relatedTarget as Node | null;
        if (open && next && !rootRef.current?.contains(next)) setOpen(false);
      }}
    >
      <button
        ref={buttonRef}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={buttonLabel}
        data-testid={buttonTestId}
        onClick={() => {
          if (!open && strategy === "fixed") place();
          setOpen((value) => !value);
        }}
        className={buttonClassName}
      >
        {button}
      </button>
      <div
        id={panelId}
        hidden={!open}
        data-testid={panelTestId}
        style={strategy === "fixed" ? (fixedAt ?? undefined) : undefined}
        className={cn(
          "z-40 min-w-56 rounded-card border border-gray-200 bg-white py-1.5 shadow-lg",
          strategy === "fixed" ? "fixed" : ["absolute", side === "above" ? "bottom-full mb-2" : "top-full mt-2", align === "end" ? "right-0" : "left-0"].join(" "),
          panelClassName,
        )}
      >
        {open && children(() => close())}
      </div>
    </div>
  );
}

/** An item of a Popover's panel: full-width, left-aligned. */
export const popoverItemClasses =
  "flex w-full items-center gap-2 px-3.5 py-2 text-left text-sm text-gray-800 hover:bg-gray-50 focus-visible:bg-gray-50 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-brand-600";
