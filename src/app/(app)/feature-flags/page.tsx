import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { FlagsPage } from "@/components/feature-flags/flags-list";
import { flagsListInput } from "@/components/feature-flags/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Feature flags" };

export default async function FeatureFlagsPage() {
  return (
    <PageHydration state={await prefetchPage((trpc, projectId) => [trpc.flags.list.queryOptions(flagsListInput(projectId))])}>
      <FlagsPage />
    </PageHydration>
  );
}
