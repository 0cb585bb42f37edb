/**
 * What a signed-in page's server render prefetches for the browser: the user (`account.me`)
 * and their current project (`account.project`), which every page reads before its own
 * data. Prefetched here, in the request that renders the page, they arrive with the HTML;
 * fetched by the browser they were two round trips in a row before a page could ask for
 * anything of its own (issue 34, 8).
 */
import { dehydrate, QueryClient, type DehydratedState } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { appRouter } from "@/server/http/trpc/root";
import { createTRPCContext } from "@/server/http/trpc/trpc";

export async function prefetchSignedInShell(): Promise<DehydratedState> {
  const queryClient = new QueryClient({
    defaultOptions: {
      // As the browser would have received them: JSON (dates as strings), not React's own serialisation.
      dehydrate: { serializeData: (data: unknown) => (data === undefined ? data : JSON.parse(JSON.stringify(data))) },
    },
  });
  const requestHeaders = await headers();
  const trpc = createTRPCOptionsProxy({ router: appRouter, ctx: () => createTRPCContext({ headers: requestHeaders }), queryClient });
  try {
    const me = await queryClient.fetchQuery(trpc.account.me.queryOptions());
    if (me.current_project_id !== null) await queryClient.prefetchQuery(trpc.account.project.queryOptions({ projectId: me.current_project_id }));
  } catch {
    // The browser asks again and shows its own error state; the page still renders.
  }
  return dehydrate(queryClient);
}
