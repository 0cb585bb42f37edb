import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { DashboardsPage } from "@/components/dashboards/dashboards-page";
import { dashboardsListInput } from "@/components/dashboards/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Dashboards" };

export default async function Page() {
  return (
    <PageHydration
      state={await prefetchPage((trpc, projectId) => [trpc.dashboards.list.queryOptions(dashboardsListInput(projectId)), trpc.dashboards.tags.queryOptions({ projectId })])}
    >
      <DashboardsPage />
    </PageHydration>
  );
}
