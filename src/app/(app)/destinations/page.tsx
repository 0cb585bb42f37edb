import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { DestinationsPage } from "@/components/destinations/destinations-list";
import { destinationsListInput } from "@/components/destinations/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Destinations" };

export default async function Page() {
  return (
    <PageHydration state={await prefetchPage((trpc, projectId) => [trpc.destinations.list.queryOptions(destinationsListInput(projectId))])}>
      <DestinationsPage />
    </PageHydration>
  );
}
