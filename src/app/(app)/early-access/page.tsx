import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { EarlyAccessPage } from "@/components/early-access/early-access-page";
import { earlyAccessListInput } from "@/components/early-access/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Early access" };

export default async function EarlyAccessRoute() {
  return (
    <HydrationBoundary state={await prefetchPage((trpc, projectId) => [trpc.earlyAccess.list.queryOptions(earlyAccessListInput(projectId))])}>
      <EarlyAccessPage />
    </HydrationBoundary>
  );
}
