import { z } from "zod";
import { parseQueryRequest, runQuery } from "@/server/query/service";
import { projectRoute, type RestResource } from "@/server/http/rest/route";

export const queryRoutes: RestResource[] = [
  {
    path: "query",
    methods: {
      /**
       * PostHog's QueryViewSet `create`: runs a query node; reading only, so `query:read` (a
       * write key passes too). A body that does not fit is PostHog's parse error.
       */
      POST: projectRoute("query", async ({ ctx, body }) => runQuery(ctx, parseQueryRequest(await body(z.unknown()))), { action: "read" }),
    },
  },
];
