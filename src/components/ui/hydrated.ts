"use client";

import { useSyncExternalStore } from "react";

const subscribeNever = () => () => {};

/**
 * False while the server renders and while the browser hydrates its HTML, true after. Text
 * that depends on the browser (its zone, its origin, the time now) is drawn only once this is
 * true: hydration must see exactly what the server wrote, or React throws the server's HTML
 * away and draws the page again (a focused or found element is then gone).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeNever,
    () => true,
    () => false,
  );
}
