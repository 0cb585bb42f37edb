import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { anyPageviewInput, firstWebNodes, webQueryInput } from "@/components/web/page-queries";
import { WebAnalyticsPage } from "@/components/web/web-analytics-page";
import { filtersFromParams } from "@/components/web/web-filters";
import { prefetchPage, searchParamsOf, type PageSearchParams } from "@/trpc/server";

export const metadata: Metadata = { title: "Web analytics" };

/**
 * Whether a pageview exists, then (as the page asks nothing before) the tiles it shows first,
 * streamed as each is answered; the filter bar's lists come from the browser.
 */
export default async function WebPage({ searchParams }: { searchParams: PageSearchParams }) {
  const params = await searchParamsOf(searchParams);
  return (
    <PageHydration
      state={await prefetchPage((trpc, projectId) => [
        {
          ...trpc.events.list.queryOptions(anyPageviewInput(projectId)),
          after: (page: { results: unknown[] }) =>
            page.results.length ? firstWebNodes(filtersFromParams(params)).map((node) => ({ ...trpc.query.run.queryOptions(webQueryInput(projectId, node)), stream: true })) : [],
        },
      ])}
    >
      <WebAnalyticsPage />
    </PageHydration>
  );
}
