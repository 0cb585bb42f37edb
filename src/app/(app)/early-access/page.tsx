import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { EarlyAccessPage } from "@/components/early-access/early-access-page";
import { earlyAccessListInput } from "@/components/early-access/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Early access" };

export default async function EarlyAccessRoute() {
  return (
    <PageHydration state={await prefetchPage((trpc, projectId) => [trpc.earlyAccess.list.queryOptions(earlyAccessListInput(projectId))])}>
      <EarlyAccessPage />
    </PageHydration>
  );
}
