import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { CohortsPage } from "@/components/cohorts/cohorts-list";
import { cohortsListInput } from "@/components/cohorts/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Cohorts" };

export default async function CohortsRoute() {
  return (
    <PageHydration state={await prefetchPage((trpc, projectId) => [trpc.cohorts.list.queryOptions(cohortsListInput(projectId))])}>
      <CohortsPage />
    </PageHydration>
  );
}
