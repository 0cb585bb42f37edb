import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { Suspense } from "react";
import { sourceOf } from "@/components/insights/query-source";
import { sqlInsightInput, sqlPropertiesInput, sqlRunInput } from "@/components/sql/page-queries";
import { SqlEditorPage } from "@/components/sql/sql-editor-page";
import { prefetchPage, searchParamsOf, type PageSearchParams, type ServerTRPC } from "@/trpc/server";

export const metadata: Metadata = { title: "SQL" };

/** The schema browser's properties; with `?insight=`, the saved query and its result (sql-editor-page.tsx). */
function sqlQueries(trpc: ServerTRPC, projectId: number, shortId: string | null) {
  const schema = [trpc.definitions.properties.queryOptions(sqlPropertiesInput(projectId, "event")), trpc.definitions.properties.queryOptions(sqlPropertiesInput(projectId, "person"))];
  if (!shortId) return schema;
  const saved = {
    ...trpc.insights.list.queryOptions(sqlInsightInput(projectId, shortId)),
    after: (found: { results: { query: unknown }[] }) => {
      const source = found.results[0] ? sourceOf(found.results[0].query) : null;
      return source?.kind === "HogQLQuery" && typeof source.query === "string" ? [{ ...trpc.query.run.queryOptions(sqlRunInput(projectId, source.query)), stream: true }] : [];
    },
  };
  return [...schema, saved];
}

export default async function Page({ searchParams }: { searchParams: PageSearchParams }) {
  const shortId = (await searchParamsOf(searchParams)).get("insight");
  return (
    <PageHydration state={await prefetchPage((trpc, projectId) => sqlQueries(trpc, projectId, shortId))}>
      <Suspense>
        <SqlEditorPage />
      </Suspense>
    </PageHydration>
  );
}
