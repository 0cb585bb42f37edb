import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { CohortsPage } from "@/components/cohorts/cohorts-list";
import { cohortsListInput } from "@/components/cohorts/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Cohorts" };

export default async function CohortsRoute() {
  return (
    <HydrationBoundary state={await prefetchPage((trpc, projectId) => [trpc.cohorts.list.queryOptions(cohortsListInput(projectId))])}>
      <CohortsPage />
    </HydrationBoundary>
  );
}
