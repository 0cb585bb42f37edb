import { PageHydration } from "@/trpc/hydration";
import { redirect } from "next/navigation";
import { getSessionUser } from "@/app/session";
import { HomeOverview } from "@/components/home/home-overview";
import { SystemStatusCard } from "@/components/system/system-status-card";
import { PageHeader } from "@/components/ui";
import {
  dailyEvents,
  homeCountInput,
  homeCountKey,
  latestEventInput,
  recentDashboardsInput,
  recentInsightsInput,
  uniqueVisitors,
} from "@/components/home/page-queries";
import { keyedAs, prefetchPage, type ServerTRPC } from "@/trpc/server";

/** Home's cards' first queries; the counts need the newest event's id (install-status.tsx). */
function homeQueries(trpc: ServerTRPC, projectId: number) {
  return [
    {
      ...trpc.events.list.queryOptions(latestEventInput(projectId)),
      after: (latest: { results: { id: string }[] }) => {
        const newest = latest.results[0];
        if (!newest) return [];
        // Waited for, not streamed (as /web's tiles): the HTML holds them, and hydration matches it.
        return [dailyEvents, uniqueVisitors].map((query) => keyedAs(trpc.query.run.queryOptions(homeCountInput(projectId, query)), homeCountKey(projectId, newest.id, query)));
      },
    },
    trpc.insights.list.queryOptions(recentInsightsInput(projectId)),
    trpc.dashboards.list.queryOptions(recentDashboardsInput(projectId)),
    trpc.system.status.queryOptions(),
  ];
}

export default async function HomePage() {
  // The layout has checked the session already (cached per request); pages render beside
  // layouts, so each checks for itself.
  const user = await getSessionUser();
  if (!user) redirect("/login");

  return (
    <PageHydration state={await prefetchPage(homeQueries)}>
      <div className="flex flex-col gap-8" data-testid="home">
        <PageHeader
          title={<span data-testid="home-welcome">Welcome{user.firstName ? `, ${user.firstName}` : ""}</span>}
          description="Capture events, evaluate feature flags and build dashboards on your own server."
        />
        <HomeOverview />
        <SystemStatusCard />
      </div>
    </PageHydration>
  );
}
