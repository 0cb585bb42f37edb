import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { Suspense } from "react";
import { InsightsPage } from "@/components/insights/insights-page";
import { insightsListInput } from "@/components/insights/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Insights" };

export default async function Page() {
  return (
    <PageHydration state={await prefetchPage((trpc, projectId) => [trpc.insights.list.queryOptions(insightsListInput(projectId))])}>
      <Suspense>
        <InsightsPage />
      </Suspense>
    </PageHydration>
  );
}
