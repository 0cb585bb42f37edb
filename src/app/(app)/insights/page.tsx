import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { Suspense } from "react";
import { InsightsPage } from "@/components/insights/insights-page";
import { insightsListInput } from "@/components/insights/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Insights" };

export default async function Page() {
  return (
    <HydrationBoundary state={await prefetchPage((trpc, projectId) => [trpc.insights.list.queryOptions(insightsListInput(projectId))])}>
      <Suspense>
        <InsightsPage />
      </Suspense>
    </HydrationBoundary>
  );
}
