import { handleRemoteConfigPayload } from "@/server/flags/remote-config-payload";
import { updateFlagInput, createFlagInput } from "@/server/flags/schemas";
import { createFlag, flagListQuery, getFlag, listFlags, updateFlag } from "@/server/flags/service";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

/** `feature_flags/:id/`: change fields; `{"deleted": true}` is the soft delete. PUT takes the same body. */
const updateFlagRoute = projectRoute<Params>("feature_flag", async ({ db, project, principal, params, body }) =>
  updateFlag(db, project.id, { userId: principal.user.id }, pathId(params.id), await body(updateFlagInput)),
);

export const flagRoutes: RestResource[] = [
  {
    path: "feature_flags",
    prefixes: ["projects"],
    methods: {
      /** The project's live flags, paginated and filtered. */
      GET: projectRoute("feature_flag", async ({ request, db, project, query }) => {
        const parsed = query(flagListQuery);
        const page = await listFlags(db, project.id, parsed);
        return paginate(request, parsed, page.count, page.results);
      }),
      /** A new flag (201). */
      POST: projectRoute(
        "feature_flag",
        async ({ db, project, principal, body }) => createFlag(db, project.id, { userId: principal.user.id }, await body(createFlagInput)),
        { status: 201 },
      ),
    },
  },
  {
    path: "feature_flags/:id",
    prefixes: ["projects"],
    methods: {
      /** One flag (deleted ones too, with `deleted: true`). */
      GET: projectRoute<Params>("feature_flag", async ({ db, project, params }) => getFlag(db, project.id, pathId(params.id))),
      PATCH: updateFlagRoute,
      PUT: updateFlagRoute,
      /** PostHog forbids hard deletes of flags (ForbidDestroyModel): 405 with no body, after the usual checks. */
      DELETE: projectRoute<Params>("feature_flag", async ({ db, project, params }) => {
        await getFlag(db, project.id, pathId(params.id));
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
