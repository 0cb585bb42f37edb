"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Button, buttonClasses, Card, EmptyState, ErrorState, LoadingState, PageHeader } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { LiveVisitors } from "./live-visitors";
import { OverviewCards } from "./overview-cards";
import { StatsTables } from "./stats-tables";
import { TopClicks } from "./top-clicks";
import { VisitorsChart } from "./visitors-chart";
import { dateRangeLabel, filtersFromParams, paramsOf, replayHref, webTestAccounts, type TableOrder, type WebFilters } from "./web-filters";
import { WebFiltersBar } from "./web-filters-bar";
import { overviewItems, overviewQuery, sessionTrendQuery, sessionTrendSeries, trendQuery, trendSeries, WEB_TABLE_GROUPS, type WebTableGroup } from "./web-query";
import { useWebQuery } from "./use-web-query";
import { anyPageviewInput } from "./page-queries";

/** Where the snippet and the other SDKs' set-up live. */
export const INSTALL_HREF = "/settings/project#install";

const [paths, ...otherGroups] = WEB_TABLE_GROUPS as [WebTableGroup, ...WebTableGroup[]];

/** While a project has no pageview, how often the page looks again. */
const WAITING_POLL_MS = 5_000;

export function WebAnalyticsPage() {
  return (
    <ProjectGate testId="web-analytics">
      {(project) => (
        <Suspense>
          <WebAnalytics projectId={project.id} testAccountFilters={project.testAccountFilters} />
        </Suspense>
      )}
    </ProjectGate>
  );
}

function WebAnalytics({ projectId, testAccountFilters }: { projectId: number; testAccountFilters: readonly unknown[] }) {
  const router = useRouter();
  const pathname = usePathname();
  const filters = filtersFromParams(useSearchParams());
  // The switch as shown: off where the project has no test account filters (the queries may ask; it changes nothing there).
  const testAccounts = webTestAccounts(filters, testAccountFilters);
  const setFilters = (next: WebFilters) => {
    const query = paramsOf(next);
    router.push(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };

  const trpc = useTRPC();
  // Has this project ever had a pageview? Until it has, the page explains how to get one.
  const anyPageview = useQuery({
    ...trpc.events.list.queryOptions(anyPageviewInput(projectId)),
    refetchInterval: (query) => (query.state.data?.results.length ? false : WAITING_POLL_MS),
  });
  const waiting = anyPageview.data?.results.length === 0;
  // Nothing is asked of the query API before the first pageview is known to exist: an answer
  // computed on no data would be served from the server's result cache for a minute.
  const ready = Boolean(anyPageview.data?.results.length);

  return (
    <div className="flex flex-col gap-6" data-testid="web-analytics" data-state={anyPageview.isPending ? "loading" : waiting ? "empty" : "ready"}>
      <PageHeader
        title="Web analytics"
        description="Visitors, page views and where they come from, from posthog-js's pageviews."
        actions={
          <span className="flex flex-wrap items-center gap-2">
            <LiveVisitors projectId={projectId} host={filters.host} />
            <Link href={replayHref(filters)} className={buttonClasses({ variant: "secondary", size: "sm" })} data-testid="web-watch-recordings">
              Watch recordings
            </Link>
          </span>
        }
      />
      {anyPageview.isError ? (
        <ErrorState title="Could not load web analytics" message={errorMessage(anyPageview.error)} onRetry={() => void anyPageview.refetch()} />
      ) : waiting ? (
        <Card data-testid="web-empty">
          <EmptyState
            title="No pageviews yet — install the snippet"
            description="Add PostHog's snippet to your site with this server as its api_host. Visits show here as they arrive."
            icon={
              <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6">
                <path d="M3 4.5h14v11H3zM3 7.5h14M6.5 11l-1.5 1.5L6.5 14M13.5 11l1.5 1.5-1.5 1.5" strokeLinecap="round" strokeLinejoin="round" />
              </svg>
            }
            action={
              <Link href={INSTALL_HREF} className={buttonClasses()} data-testid="web-install-link">
                Install the snippet
              </Link>
            }
          />
        </Card>
      ) : !ready ? (
        <LoadingState label="Loading web analytics…" />
      ) : (
        <>
          <WebFiltersBar projectId={projectId} filters={filters} testAccounts={testAccounts} onChange={setFilters} />
          <Dashboard
            projectId={projectId}
            filters={filters}
            testAccounts={testAccounts}
            onOrder={(order) => setFilters({ ...filters, order })}
            onIncludeTestAccounts={() => setFilters({ ...filters, filterTestAccounts: false })}
          />
        </>
      )}
    </div>
  );
}

function Dashboard({
  projectId,
  filters,
  testAccounts,
  onOrder,
  onIncludeTestAccounts,
}: {
  projectId: number;
  filters: WebFilters;
  /** The test accounts are left out (the switch is on and the project has filters). */
  testAccounts: boolean;
  onOrder: (order: TableOrder | null) => void;
  onIncludeTestAccounts: () => void;
}) {
  const overview = useWebQuery(projectId, overviewQuery(filters));
  const trendNode = trendQuery(filters);
  const trend = useWebQuery(projectId, trendNode);
  const items = overview.data ? overviewItems(overview.data.results) : undefined;
  const series = trend.data ? trendSeries(trend.data.results) : undefined;
  // The duration and bounce sparklines; without them (loading, failed) those cards show none.
  const sessionTrend = useWebQuery(projectId, sessionTrendQuery(filters));
  const sessionSeries = sessionTrend.data ? sessionTrendSeries(sessionTrend.data.results) : undefined;
  const sparklines = series || sessionSeries ? [...(series ?? []), ...(sessionSeries ?? [])] : series;
  // Every visitor of the range is a test account (a first try on localhost, say): say so rather than show zeros.
  const allTestAccounts = testAccounts && !overview.isFetching && items?.find((item) => item.key === "visitors")?.value === 0;
  return (
    <>
      {allTestAccounts && (
        <Card className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center sm:justify-between" data-testid="web-test-accounts-notice">
          <p className="text-sm text-gray-700">
            No visitors in the {dateRangeLabel(filters.dateFrom).toLowerCase()} once internal and test users are left out: the project&apos;s test account filters leave out
            every one (page views from localhost, for example).
          </p>
          <Button variant="secondary" size="sm" className="shrink-0" onClick={onIncludeTestAccounts} data-testid="web-include-test-accounts">
            Include them
          </Button>
        </Card>
      )}
      <OverviewCards
        items={items}
        series={sparklines}
        error={overview.error ?? (items === null ? new Error("The overview came back in a shape this page does not know.") : null)}
        loading={overview.isFetching || trend.isFetching || sessionTrend.isFetching}
        onRetry={() => void overview.refetch()}
        period={dateRangeLabel(filters.dateFrom)}
      />
      <VisitorsChart
        query={trendNode}
        series={series}
        error={trend.error ?? (series === null ? new Error("The graph came back in a shape this page does not know.") : null)}
        onRetry={() => void trend.refetch()}
      />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        {/* Top clicks is a card of its own, as on PostHog's first web analytics page; beside the paths, as both tell what visitors did on the pages. */}
        <StatsTables projectId={projectId} group={paths} filters={filters} onOrder={onOrder} />
        <TopClicks projectId={projectId} filters={filters} />
        {otherGroups.map((group) => (
          <StatsTables key={group.id} projectId={projectId} group={group} filters={filters} onOrder={onOrder} />
        ))}
      </div>
    </>
  );
}
