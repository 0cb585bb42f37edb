import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { SurveysPage } from "@/components/surveys/surveys-list";
import { surveysListInput } from "@/components/surveys/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Surveys" };

export default async function SurveysRoute() {
  return (
    <PageHydration state={await prefetchPage((trpc, projectId) => [trpc.surveys.list.queryOptions(surveysListInput(projectId))])}>
      <SurveysPage />
    </PageHydration>
  );
}
