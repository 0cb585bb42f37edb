"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import { webQueryInput } from "./page-queries";

/**
 * One query node through the query API (`query.run`), answered from the server's short
 * result cache when fresh. The previous answer stays on screen while the next loads.
 */
export function useWebQuery(projectId: number, query: object) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.query.run.queryOptions(webQueryInput(projectId, query)),
    placeholderData: keepPreviousData,
    select: (response) => response as unknown as Record<string, unknown>,
  });
}
