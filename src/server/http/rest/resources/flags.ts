import { createFlagInput, flagListQuery, updateFlagInput } from "@/server/flags/contract";
import { createFlag, getFlag, listFlags, updateFlag } from "@/server/flags/service";
import { handleRemoteConfigPayload } from "@/server/http/sdk/remote-config-payload";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

/** `feature_flags/:id/`: change fields; `{"deleted": true}` is the soft delete. PUT takes the same body. */
const updateFlagRoute = projectRoute<Params>("feature_flag", async ({ ctx, params, body }) =>
  updateFlag(ctx, pathId(params.id), await body(updateFlagInput)),
);

export const flagRoutes: RestResource[] = [
  {
    path: "feature_flags",
    prefixes: ["projects"],
    methods: {
      /** The project's live flags, paginated and filtered. */
      GET: projectRoute("feature_flag", async ({ request, ctx, query }) => {
        const parsed = query(flagListQuery);
        const page = await listFlags(ctx, parsed);
        return paginate(request, parsed, page.count, page.results);
      }),
      /** A new flag (201). */
      POST: projectRoute(
        "feature_flag",
        async ({ ctx, body }) => createFlag(ctx, await body(createFlagInput)),
        { status: 201 },
      ),
    },
  },
  {
    path: "feature_flags/:id",
    prefixes: ["projects"],
    methods: {
      /** One flag (deleted ones too, with `deleted: true`). */
      GET: projectRoute<Params>("feature_flag", async ({ ctx, params }) => getFlag(ctx, pathId(params.id))),
      PATCH: updateFlagRoute,
      PUT: updateFlagRoute,
      /** PostHog forbids hard deletes of flags (ForbidDestroyModel): 405 with no body, after the usual checks. */
      DELETE: projectRoute<Params>("feature_flag", async ({ ctx, params }) => {
        await getFlag(ctx, pathId(params.id));
        return new Response(null, { status: 405 });
      }),
    },
  },
  {
    path: "feature_flags/:id/remote_config",
    /** `?token=`: the flag's payload for server SDKs (`getRemoteConfigPayload`); the id may be the key. */
    methods: { GET: handleRemoteConfigPayload },
  },
];
