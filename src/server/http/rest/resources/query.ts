import { queryRequestSchema, queryResponseSchema } from "@/server/query/contract";
import { QUERY_KINDS } from "@/server/query/kinds";
import { parseQueryRequest, runQuery } from "@/server/query/service";
import { projectRoute, type RestResource } from "@/server/http/rest/route";

export const queryRoutes: RestResource[] = [
  {
    path: "query",
    methods: {
      /**
       * PostHog's QueryViewSet `create`: runs a query node; reading only, so `query:read` (a
       * write key passes too). A body that does not fit is PostHog's parse error, so the
       * service parses it (`json()`), with the schema the document names.
       */
      POST: projectRoute("query", async ({ ctx, json }) => runQuery(ctx, parseQueryRequest(await json())), {
        action: "read",
        doc: {
          summary: "Run a query",
          description: [
            "PostHog's query API: `{\"query\": {\"kind\": \"TrendsQuery\", …}}` runs a query node, bare or inside an InsightVizNode, and answers its results with the cache's fields. `refresh` `true`, `force_blocking` or `force_async` recomputes; anything else answers a fresh cached result or computes.",
            `Kinds: ${[...QUERY_KINDS.keys()].join(", ")}.`,
            "Reads only: `query:read` (a write key passes too). A body that does not fit is PostHog's 400 `parse_error`.",
          ].join("\n\n"),
          body: queryRequestSchema,
          response: queryResponseSchema,
        },
      }),
    },
  },
];
