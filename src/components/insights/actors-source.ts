"use client";

import { useQuery, type UseQueryOptions } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import type { ActorsResponse } from "./actors-query";

/**
 * The persons behind a point, from the tRPC procedure `query.actors` ({projectId, query:
 * ActorsQuery} → ActorsQuery's answer) that the query API's branch adds.
 *
 * PLACEHOLDER until that branch is merged: this branch's router has no `query.actors`, so
 * the call goes through the typed proxy under a declared shape. At merge, drop
 * `PendingActorsRouter` and the cast (`trpc.query.actors.queryOptions(...)` then type-checks
 * against the real router); nothing else changes.
 */
interface PendingActorsRouter {
  query: {
    actors: {
      queryOptions(input: { projectId: number; query: Record<string, unknown> }): UseQueryOptions<ActorsResponse, Error, ActorsResponse, readonly unknown[]>;
    };
  };
}

export function useActors(projectId: number, query: Record<string, unknown> | null) {
  const trpc = useTRPC() as unknown as PendingActorsRouter;
  return useQuery({ ...trpc.query.actors.queryOptions({ projectId, query: query ?? {} }), enabled: query !== null });
}
