"use client";

import { useQuery, type UseQueryOptions } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import type { ActorsResponse } from "./actors-query";

/**
 * The persons behind a point, from the tRPC procedure `query.actors` that the query API's
 * branch (q-api) adds: input `{projectId, source, select, limit, offset}` (ActorsQuery's
 * fields), answer ActorsQuery's envelope ({columns, results, hasMore, limit, offset}).
 *
 * PLACEHOLDER until that branch is merged: this branch's router has no `query.actors`, so
 * the call goes through the typed proxy under a declared shape. At merge, drop
 * `PendingActorsRouter` and the cast (`trpc.query.actors.queryOptions(...)` then type-checks
 * against the real router); nothing else changes.
 */
interface ActorsInput {
  projectId: number;
  source: Record<string, unknown>;
  select?: string[];
  limit?: number;
  offset?: number;
}

interface PendingActorsRouter {
  query: {
    actors: {
      queryOptions(input: ActorsInput): UseQueryOptions<ActorsResponse, Error, ActorsResponse, readonly unknown[]>;
    };
  };
}

/** The answer to an ActorsQuery node (actors-query.ts `actorsQuery`) for the project; idle while `query` is null. */
export function useActors(projectId: number, query: Record<string, unknown> | null) {
  const trpc = useTRPC() as unknown as PendingActorsRouter;
  const { kind: _kind, ...fields } = query ?? {};
  const input = { projectId, ...fields } as ActorsInput;
  return useQuery({ ...trpc.query.actors.queryOptions(input), enabled: query !== null });
}
