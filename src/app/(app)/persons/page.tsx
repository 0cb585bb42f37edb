import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { personsListInput, personsListParams } from "@/components/persons/page-queries";
import { PersonsPage } from "@/components/persons/persons-list";
import { prefetchPage, searchParamsOf, type PageSearchParams } from "@/trpc/server";

export const metadata: Metadata = { title: "Persons" };

export default async function Persons({ searchParams }: { searchParams: PageSearchParams }) {
  const params = personsListParams(await searchParamsOf(searchParams));
  return (
    <PageHydration state={await prefetchPage((trpc, projectId) => [trpc.persons.list.queryOptions(personsListInput(projectId, params))])}>
      <PersonsPage />
    </PageHydration>
  );
}
