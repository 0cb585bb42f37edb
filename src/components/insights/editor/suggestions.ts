"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";

/**
 * Suggestions from the project's data, most used first: event names from the query API
 * (HogQL, counted), property keys from the newest events and their persons, a property's
 * values from the events `values` API.
 */

const STALE = 60_000;
const KEY_SAMPLE = 300;

export function useEventNames(projectId: number): { names: string[]; loading: boolean } {
  const trpc = useTRPC();
  const result = useQuery({
    ...trpc.query.run.queryOptions({
      projectId,
      request: { query: { kind: "HogQLQuery", query: "select event, count() as total from events group by event order by total desc limit 500" } },
    }),
    staleTime: STALE,
    retry: false,
  });
  const rows = (result.data as { results?: unknown } | undefined)?.results;
  const names = Array.isArray(rows) ? rows.map((row) => (Array.isArray(row) ? row[0] : null)).filter((name): name is string => typeof name === "string") : [];
  return { names, loading: result.isPending };
}

/** Keys of `type`'s properties seen on the newest events, most frequent first. */
export function usePropertyKeys(projectId: number, type: "event" | "person"): string[] {
  const trpc = useTRPC();
  const result = useQuery({ ...trpc.events.list.queryOptions({ projectId, limit: KEY_SAMPLE }), staleTime: STALE, retry: false });
  const counts = new Map<string, number>();
  for (const event of result.data?.results ?? []) {
    const properties = type === "event" ? event.properties : (event.person?.properties ?? {});
    for (const key of Object.keys(properties ?? {})) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([key]) => key);
}

/** An event property's values (the events `values` API; person properties have none there). */
export function usePropertyValues(projectId: number, type: "event" | "person", key: string): string[] {
  const enabled = type === "event" && key.trim() !== "";
  const result = useQuery({
    queryKey: ["event-property-values", projectId, key],
    enabled,
    staleTime: STALE,
    retry: false,
    queryFn: async ({ signal }) => {
      const response = await fetch(`/api/projects/${projectId}/events/values/?${new URLSearchParams({ key })}`, { signal, credentials: "same-origin" });
      if (!response.ok) return [];
      const body = (await response.json()) as unknown;
      return Array.isArray(body) ? body.map((item) => (item && typeof item === "object" ? (item as { name?: unknown }).name : null)) : [];
    },
  });
  return (result.data ?? []).filter((value) => value !== null && value !== undefined && value !== "").map(String);
}
