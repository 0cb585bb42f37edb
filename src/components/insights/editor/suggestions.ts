"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useDeferredValue } from "react";
import { useTRPC } from "@/trpc/react";

/**
 * Suggestions from the project's data, most used first: tRPC `definitions` (the event and
 * property definitions kept at ingestion, and a property's values), searched by what is
 * being typed.
 */

const STALE = 60_000;
const common = { staleTime: STALE, retry: false, placeholderData: keepPreviousData } as const;

export function useEventNames(projectId: number, search: string): { names: string[]; loading: boolean } {
  const trpc = useTRPC();
  const deferred = useDeferredValue(search.trim());
  const result = useQuery({ ...trpc.definitions.events.queryOptions({ projectId, search: deferred || undefined }), ...common });
  return { names: (result.data ?? []).map((definition) => definition.name), loading: result.isPending };
}

/** Property keys of `type`; for event properties, those seen on `eventNames` first. */
export function usePropertyKeys(projectId: number, type: "event" | "person", search: string, eventNames?: string[]): { names: string[]; loading: boolean } {
  const trpc = useTRPC();
  const deferred = useDeferredValue(search.trim());
  const result = useQuery({
    ...trpc.definitions.properties.queryOptions({ projectId, type, search: deferred || undefined, eventNames: type === "event" && eventNames?.length ? eventNames : undefined }),
    ...common,
  });
  return { names: (result.data ?? []).map((definition) => definition.name), loading: result.isPending };
}

/** A property's values, most frequent first. */
export function usePropertyValues(projectId: number, type: "event" | "person", key: string, search: string): { names: string[]; loading: boolean } {
  const trpc = useTRPC();
  const deferred = useDeferredValue(search.trim());
  const result = useQuery({
    ...trpc.definitions.values.queryOptions({ projectId, type, key: key.trim() || "-", search: deferred || undefined }),
    ...common,
    enabled: key.trim() !== "",
  });
  const names = (result.data ?? []).map((value) => value.name).filter((name) => name !== null && name !== undefined && name !== "");
  return { names: [...new Set(names.map(String))], loading: result.isPending && key.trim() !== "" };
}
