"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { buttonClasses, Card, CardHeader, ErrorState, LocalTime, Spinner } from "@/components/ui";
import { insightTitle } from "@/components/insights/insight-actions";
import { KindIcon } from "@/components/insights/kind-icon";
import { sourceOf } from "@/components/insights/query-source";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { RECENT_SHOWN, recentDashboardsInput, recentInsightsInput } from "./page-queries";

/** Home for returning users: the insights changed last and the dashboards opened last. */
export function RecentWork({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const insights = useQuery(trpc.insights.list.queryOptions(recentInsightsInput(projectId)));
  const dashboards = useQuery(trpc.dashboards.list.queryOptions(recentDashboardsInput(projectId)));
  const recentDashboards = [...(dashboards.data?.results ?? [])]
    .sort((a, b) => (b.last_accessed_at ?? "").localeCompare(a.last_accessed_at ?? "") || (a.name ?? "").localeCompare(b.name ?? ""))
    .slice(0, RECENT_SHOWN);
  return (
    <div className="grid gap-6 lg:grid-cols-2" data-testid="recent-work">
      <Card aria-labelledby="recent-insights-title" data-testid="recent-insights">
        <CardHeader
          titleId="recent-insights-title"
          title="Recent insights"
          actions={
            <Link href="/insights" className={buttonClasses({ variant: "secondary", size: "sm" })}>
              All insights
            </Link>
          }
        />
        <List
          query={insights}
          empty={
            <>
              No saved insights yet.{" "}
              <Link href="/insights/new" className="font-medium text-brand-700 underline">
                Build one
              </Link>
              .
            </>
          }
          items={(insights.data?.results ?? []).map((insight) => ({
            key: insight.id,
            href: sourceOf(insight.query).kind === "HogQLQuery" ? `/sql?insight=${insight.short_id}` : `/insights/${insight.short_id}`,
            title: insightTitle(insight),
            detail: (
              <>
                changed <LocalTime value={insight.last_modified_at} />
              </>
            ),
            icon: <KindIcon query={insight.query} />,
          }))}
          testId="recent-insight"
        />
      </Card>
      <Card aria-labelledby="recent-dashboards-title" data-testid="recent-dashboards">
        <CardHeader
          titleId="recent-dashboards-title"
          title="Recent dashboards"
          actions={
            <Link href="/dashboards" className={buttonClasses({ variant: "secondary", size: "sm" })}>
              All dashboards
            </Link>
          }
        />
        <List
          query={dashboards}
          empty={
            <>
              No dashboards yet.{" "}
              <Link href="/dashboards" className="font-medium text-brand-700 underline">
                Create one
              </Link>
              .
            </>
          }
          items={recentDashboards.map((dashboard) => ({
            key: dashboard.id,
            href: `/dashboards/${dashboard.id}`,
            title: dashboard.name || "Untitled dashboard",
            detail: dashboard.last_accessed_at ? (
              <>
                opened <LocalTime value={dashboard.last_accessed_at} />
              </>
            ) : (
              "not opened yet"
            ),
            icon: null,
          }))}
          testId="recent-dashboard"
        />
      </Card>
    </div>
  );
}

function List({
  query,
  empty,
  items,
  testId,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown };
  empty: ReactNode;
  items: { key: number; href: string; title: string; detail: ReactNode; icon: ReactNode }[];
  testId: string;
}) {
  if (query.isPending) {
    return (
      <div className="flex items-center gap-3 px-4 py-4 text-sm text-gray-600 sm:px-5">
        <Spinner label={null} className="text-brand-600" />
        <span role="status">Loading…</span>
      </div>
    );
  }
  if (query.isError) return <ErrorState title="Could not load them" message={errorMessage(query.error)} onRetry={() => void query.refetch()} />;
  if (items.length === 0) return <p className="px-4 py-4 text-sm text-gray-600 sm:px-5">{empty}</p>;
  return (
    <ul className="divide-y divide-gray-200">
      {items.map((item) => (
        <li key={item.key} data-testid={testId}>
          <Link href={item.href} className="group flex items-center gap-3 px-4 py-3 hover:bg-gray-50 focus-visible:-outline-offset-2 sm:px-5">
            {item.icon}
            <span className="min-w-0 flex-1">
              <span className="block truncate text-sm font-medium text-gray-900 group-hover:text-brand-700">{item.title}</span>
              <span className="block truncate text-xs text-gray-600">{item.detail}</span>
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
