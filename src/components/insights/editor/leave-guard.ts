"use client";

import { useEffect, useRef } from "react";

export const LEAVE_MESSAGE = "Leave this insight? Your unsaved changes will be lost.";

/**
 * While `dirty`, asks before the page is left: closing or reloading the tab (the browser's own
 * prompt) and following a link inside the app (a confirm; Next's router has no hook to block a
 * client-side navigation, so same-origin link clicks are caught before it sees them). Links
 * that open elsewhere (new tab, download, modifier keys) and the editor's own URL (`?q=`)
 * pass. `release()` stands the guard down, for a save that navigates on success.
 */
export function useLeaveGuard(dirty: boolean): { release: () => void } {
  const released = useRef(false);
  const active = useRef(dirty);
  active.current = dirty;

  useEffect(() => {
    if (!dirty) return;
    released.current = false;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!active.current || released.current) return;
      event.preventDefault();
      event.returnValue = "";
    };
    const onClick = (event: MouseEvent) => {
      if (!active.current || released.current || event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const link = (event.target as Element | null)?.closest?.("a[href]");
      if (!(link instanceof HTMLAnchorElement) || link.target === "_blank" || link.hasAttribute("download")) return;
      const to = new URL(link.href, window.location.href);
      if (to.origin !== window.location.origin || to.pathname === window.location.pathname) return;
      if (window.confirm(LEAVE_MESSAGE)) {
        released.current = true;
        return;
      }
      event.preventDefault();
      event.stopPropagation();
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    document.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      document.removeEventListener("click", onClick, true);
    };
  }, [dirty]);

  return {
    release: () => {
      released.current = true;
    },
  };
}
