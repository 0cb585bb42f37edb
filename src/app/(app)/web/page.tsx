import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { anyPageviewInput, firstWebNodes, webQueryInput } from "@/components/web/page-queries";
import { WebAnalyticsPage } from "@/components/web/web-analytics-page";
import { filtersFromParams } from "@/components/web/web-filters";
import { prefetchPage, searchParamsOf, type PageSearchParams } from "@/trpc/server";

export const metadata: Metadata = { title: "Web analytics" };

/**
 * Whether a pageview exists, then (as the page asks nothing before) the tiles it shows first;
 * the filter bar's lists come from the browser. The tiles are waited for, not streamed (as
 * Home's counts): streamed, the page's hydration still mismatched its HTML now and then on a
 * slow machine (React's 418, e2e/page-prefetch.spec.ts), even through PageHydration.
 */
export default async function WebPage({ searchParams }: { searchParams: PageSearchParams }) {
  const params = await searchParamsOf(searchParams);
  return (
    <PageHydration
      state={await prefetchPage((trpc, projectId) => [
        {
          ...trpc.events.list.queryOptions(anyPageviewInput(projectId)),
          after: (page: { results: unknown[] }) =>
            page.results.length ? firstWebNodes(filtersFromParams(params)).map((node) => trpc.query.run.queryOptions(webQueryInput(projectId, node))) : [],
        },
      ])}
    >
      <WebAnalyticsPage />
    </PageHydration>
  );
}
