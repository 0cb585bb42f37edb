/**
 * The first query of the persons list, built here for both sides: its server page prefetches
 * it (src/trpc/server.ts) and the client list asks for it, so the query keys match and the
 * HTML holds the list. The search and page live in the URL.
 */
import { pageParam } from "@/components/ui/page-param";

export const PERSONS_PAGE_SIZE = 50;

/** The list's search (`q`) and page (`page`, from 0) in the URL. */
export function personsListParams(params: Pick<URLSearchParams, "get">): { search: string; page: number } {
  return {
    search: params.get("q") ?? "",
    page: pageParam(params),
  };
}

export function personsListInput(projectId: number, { search, page }: { search: string; page: number }) {
  return { projectId, search: search || undefined, limit: PERSONS_PAGE_SIZE, offset: page * PERSONS_PAGE_SIZE };
}
