import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { ActionsPage } from "@/components/actions/actions-list";
import { actionsListInput } from "@/components/actions/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Actions" };

export default async function ActionsRoute() {
  return (
    <PageHydration state={await prefetchPage((trpc, projectId) => [trpc.actions.list.queryOptions(actionsListInput(projectId))])}>
      <ActionsPage />
    </PageHydration>
  );
}
