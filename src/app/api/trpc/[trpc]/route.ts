import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/http/trpc/root";
import { createTRPCContext } from "@/server/http/trpc/trpc";
import { checkCsrf } from "@/server/http/csrf";
import { toErrorResponse } from "@/server/http/rest/respond";

async function handler(req: Request): Promise<Response> {
  // Mutations are POSTs; a cookie-authenticated one must come from Burrow's own pages.
  if (req.headers.has("cookie")) {
    try {
      checkCsrf(req);
    } catch (error) {
      return toErrorResponse(error);
    }
  }
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => createTRPCContext({ headers: req.headers, signal: req.signal }),
    // A streamed answer (httpBatchStreamLink) must reach the browser line by line: Next's gzip
    // would hold the lines back, and a proxy might buffer them.
    responseMeta: ({ info }) => (info?.accept === "application/jsonl" ? { headers: { "cache-control": "no-store, no-transform", "x-accel-buffering": "no" } } : {}),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") {
        console.error(`tRPC ${path ?? "<no path>"} failed:`, error.cause ?? error);
      }
    },
  });
}

export { handler as GET, handler as POST };
