"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/trpc/react";

/** Suggestions wait this long after the last keystroke. */
export const SUGGESTION_DEBOUNCE_MS = 200;

/** `value`, once it has stopped changing for `ms`. */
export function useDebouncedValue<T>(value: T, ms = SUGGESTION_DEBOUNCE_MS): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The project to suggest from: the one given, else the signed-in user's current one. */
export function useSuggestionProject(explicit: number | undefined): number | null {
  const trpc = useTRPC();
  const me = useQuery({ ...trpc.account.me.queryOptions(), enabled: explicit === undefined });
  return explicit ?? me.data?.current_project_id ?? null;
}

/** Fetching starts when the input is first focused, so a page of filters costs nothing until used. */
export function useWanted(): [boolean, () => void] {
  const [wanted, setWanted] = useState(false);
  return [wanted, () => setWanted(true)];
}

export { skipToken };
