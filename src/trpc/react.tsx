"use client";

import { isServer, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpBatchStreamLink, splitLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import type { AppRouter } from "@/server/http/trpc/root";

/** `useTRPC()` gives typed query/mutation options: `useQuery(trpc.system.status.queryOptions())`. */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function isClientError(error: unknown): boolean {
  if (!(error instanceof TRPCClientError)) return false;
  const status = (error.data as { httpStatus?: number } | undefined)?.httpStatus;
  return status !== undefined && status >= 400 && status < 500;
}

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // Retry once on server or network failures; a 4xx will not change by retrying.
        retry: (failures, error) => failures < 1 && !isClientError(error),
      },
    },
  });
}

// One QueryClient for the whole browser session; a fresh one for every server render so
// that no data leaks between requests.
let browserQueryClient: QueryClient | undefined;

function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

/**
 * Procedures that answer a stream (an async generator: JSON lines, each item as soon as it is
 * ready). Only they go through httpBatchStreamLink, which cannot set response headers or
 * cookies once the stream has begun and answers 200 before any procedure has run; every
 * other call keeps httpBatchLink's plain JSON and status codes.
 */
const STREAMED_PROCEDURES = new Set(["dashboards.results"]);

function trpcUrl(): string {
  if (typeof window !== "undefined") return "/api/trpc";
  return `http://127.0.0.1:${process.env.PORT ?? 3000}/api/trpc`;
}

/** Both links' address and headers. */
const linkOptions = () => ({ url: trpcUrl(), headers: () => ({ "x-trpc-source": "burrow-react" }) });

export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          condition: (op) => STREAMED_PROCEDURES.has(op.path),
          true: httpBatchStreamLink(linkOptions()),
          false: httpBatchLink(linkOptions()),
        }),
      ],
    }),
  );

  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
