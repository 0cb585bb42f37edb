/**
 * The public page of a shared dashboard: no session, no navigation, nothing of the project
 * beyond the dashboard's name, description, tags and tiles, all in one response: the tiles
 * at once, each chart streamed into it as soon as the server has computed it. Rendered
 * on every request (never cached), so turning sharing off or replacing the link takes
 * effect at once; a token that does not resolve is the plain 404 of ./not-found.tsx.
 */
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { SharedFrame } from "@/components/dashboards/shared-frame";
import { DashboardBadges, dashboardTitle } from "@/components/dashboards/dashboard-badges";
import { SharedTiles } from "@/components/dashboards/dashboard-tiles";
import { getDb } from "@/server/db";
import { findSharedDashboardCharting } from "@/server/sharing/service";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ token: string }> };

/** One lookup (its charts computing from then on) per request, shared by the metadata and the page. */
const load = cache(async (token: string) => findSharedDashboardCharting(await getDb(), token));

/** Share links are capabilities: keep them out of search engines and other sites' Referer logs. */
const PRIVATE_PAGE = { robots: { index: false, follow: false, nocache: true }, referrer: "no-referrer" } satisfies Metadata;

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const found = await load((await params).token);
  return { ...PRIVATE_PAGE, title: found ? dashboardTitle(found.dashboard.name) : "Page not found" };
}

export default async function SharedDashboardPage({ params }: Props) {
  const found = await load((await params).token);
  if (!found) notFound();
  const { dashboard, charts } = found;
  return (
    <SharedFrame>
      <article className="flex flex-col gap-6" data-testid="shared-dashboard">
        <header className="flex flex-col gap-3">
          <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl" data-testid="shared-title">
            {dashboardTitle(dashboard.name)}
          </h1>
          {dashboard.description && <p className="max-w-3xl text-base whitespace-pre-wrap text-gray-600">{dashboard.description}</p>}
          <DashboardBadges dashboard={{ pinned: false, restriction_level: 0, is_shared: false, tags: dashboard.tags }} />
        </header>
        <SharedTiles tiles={dashboard.tiles} charts={charts} />
      </article>
    </SharedFrame>
  );
}
