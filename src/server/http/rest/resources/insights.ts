import { insightCreateBody, insightListQuery, insightRetrieveQuery, insightUpdateBody } from "@/server/insights/contract";
import { createInsight, getInsight, listInsights, updateInsight } from "@/server/insights/service";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

/** `insights/:id/`: PATCH, and PUT as DRF's PUT with no required fields is a PATCH. */
const updateInsightRoute = projectRoute<Params>("insight", async ({ ctx, params, body }) =>
  updateInsight(ctx, pathId(params.id), await body(insightUpdateBody)),
);

export const insightRoutes: RestResource[] = [
  {
    path: "insights",
    methods: {
      /** Newest change first; `short_id`, `saved`, `favorited`, `search`. Results only from the cache. */
      GET: projectRoute("insight", async ({ request, ctx, query }) => {
        const params = query(insightListQuery);
        const { count, results } = await listInsights(ctx, params);
        return paginate(request, params, count, results);
      }),
      /** 201 with the insight and its result. */
      POST: projectRoute(
        "insight",
        async ({ ctx, body }) => createInsight(ctx, await body(insightCreateBody)),
        { status: 201 },
      ),
    },
  },
  {
    path: "insights/:id",
    methods: {
      /** With `result`, `last_refresh`, `is_cached`; `?refresh=true` recomputes, `from_dashboard`, `filters_override`. */
      GET: projectRoute<Params>("insight", async ({ ctx, params, query }) => {
        const options = query(insightRetrieveQuery);
        return getInsight(ctx, pathId(params.id), {
          refresh: options.refresh,
          fromDashboard: options.from_dashboard,
          filtersOverride: options.filters_override ?? null,
        });
      }),
      /** `deleted: true` soft-deletes, `deleted: false` restores. */
      PATCH: updateInsightRoute,
      PUT: updateInsightRoute,
      /** PostHog forbids hard deletes: 405 with an empty body, after the usual key and scope checks. */
      DELETE: projectRoute<Params>("insight", async () => new Response(null, { status: 405 })),
    },
  },
];
