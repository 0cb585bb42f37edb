"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import type { ActorsResponse } from "./actors-query";

/** The answer to an ActorsQuery node (actors-query.ts `actorsQuery`) for the project, through tRPC `query.actors`; idle while `query` is null. */
export function useActors(projectId: number, query: Record<string, unknown> | null) {
  const trpc = useTRPC();
  const { kind: _kind, source, select, limit, offset } = (query ?? {}) as { kind?: string; source?: unknown; select?: string[]; limit?: number; offset?: number };
  const options = trpc.query.actors.queryOptions({ projectId, source, select, limit, offset });
  return useQuery({ ...options, enabled: query !== null, select: (answer) => answer as unknown as ActorsResponse });
}
