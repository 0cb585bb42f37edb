import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { DestinationsPage } from "@/components/destinations/destinations-list";
import { destinationsListInput } from "@/components/destinations/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Destinations" };

export default async function Page() {
  return (
    <HydrationBoundary state={await prefetchPage((trpc, projectId) => [trpc.destinations.list.queryOptions(destinationsListInput(projectId))])}>
      <DestinationsPage />
    </HydrationBoundary>
  );
}
