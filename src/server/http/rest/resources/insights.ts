import { insightCreateBody, insightListQuery, insightRetrieveQuery, insightSchema, insightUpdateBody } from "@/server/insights/contract";
import { createInsight, getInsight, listInsights, updateInsight } from "@/server/insights/service";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

/** `insights/:id/`: PATCH, and PUT as DRF's PUT with no required fields is a PATCH. */
const updateInsightRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("insight", async ({ ctx, params, body }) => updateInsight(ctx, pathId(params.id), await body(insightUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update an insight" : "Update an insight (PUT: same partial update)",
      description: "Any writable field; `deleted: true` soft-deletes, `deleted: false` restores. A changed query is computed before the answer.",
      body: insightUpdateBody,
      response: insightSchema,
    },
  });

export const insightRoutes: RestResource[] = [
  {
    path: "insights",
    methods: {
      GET: projectRoute(
        "insight",
        async ({ request, ctx, query }) => {
          const params = query(insightListQuery);
          const { count, results } = await listInsights(ctx, params);
          return paginate(request, params, count, results);
        },
        {
          doc: {
            summary: "List insights",
            description: "Newest change first; `short_id`, `saved`, `favorited`, `search`. Results come only from the cache (`result` is null when none is cached).",
            query: insightListQuery,
            response: pageOf(insightSchema, "Insight"),
          },
        },
      ),
      POST: projectRoute("insight", async ({ ctx, body }) => createInsight(ctx, await body(insightCreateBody)), {
        status: 201,
        doc: { summary: "Create an insight", description: "201 with the insight and its computed result. `query` is required.", body: insightCreateBody, response: insightSchema },
      }),
    },
  },
  {
    path: "insights/:id",
    methods: {
      GET: projectRoute<Params>(
        "insight",
        async ({ ctx, params, query }) => {
          const options = query(insightRetrieveQuery);
          return getInsight(ctx, pathId(params.id), {
            refresh: options.refresh,
            fromDashboard: options.from_dashboard,
            filtersOverride: options.filters_override ?? null,
          });
        },
        {
          doc: {
            summary: "Retrieve an insight",
            description:
              "With `result`, `last_refresh` and `is_cached`. `refresh=true` (or `blocking`, `force_blocking`) recomputes; `force_cache` answers only from the cache. `from_dashboard` applies that dashboard's filters, `filters_override` (JSON) others.",
            query: insightRetrieveQuery,
            response: insightSchema,
          },
        },
      ),
      PATCH: updateInsightRoute("PATCH"),
      PUT: updateInsightRoute("PUT"),
      /** PostHog forbids hard deletes: 405 with an empty body, after the usual key and scope checks. */
      DELETE: projectRoute<Params>("insight", async () => new Response(null, { status: 405 }), {
        status: 405,
        doc: { summary: "Delete an insight (not allowed)", description: "PostHog forbids hard deletes: 405 with an empty body, after the key and scope checks. Soft-delete with `PATCH {\"deleted\": true}`." },
      }),
    },
  },
];
