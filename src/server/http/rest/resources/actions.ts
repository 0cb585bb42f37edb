import { actionCreateBody, actionListQuery, actionSchema, actionUpdateBody } from "@/server/actions/contract";
import { createAction, getAction, listActions, updateAction } from "@/server/actions/service";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

const updateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("action", async ({ ctx, params, body }) => updateAction(ctx, pathId(params.id), await body(actionUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update an action" : "Update an action (PUT: same partial update)",
      description: "Any writable field; `steps` replaces the steps. `deleted: true` soft-deletes, `false` restores.",
      body: actionUpdateBody,
      response: actionSchema,
    },
  });

export const actionRoutes: RestResource[] = [
  {
    path: "actions",
    methods: {
      GET: projectRoute(
        "action",
        async ({ request, ctx, query }) => {
          const parsed = query(actionListQuery);
          const { count, results } = await listActions(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        { doc: { summary: "List actions", description: "Live actions, pinned first, then by name; `search` by name.", query: actionListQuery, response: pageOf(actionSchema, "Action") } },
      ),
      POST: projectRoute("action", async ({ ctx, body }) => createAction(ctx, await body(actionCreateBody)), {
        status: 201,
        doc: {
          summary: "Create an action",
          description:
            "A named event definition: `steps` are ORed, the conditions of a step ANDed — `event`, `url` (`url_matching` contains, regex or exact), and for `$autocapture` `selector`, `tag_name`, `text`, `href` (with `*_matching`), plus `properties`. The name must be unique among live actions.",
          body: actionCreateBody,
          response: actionSchema,
        },
      }),
    },
  },
  {
    path: "actions/:id",
    methods: {
      GET: projectRoute<Params>("action", async ({ ctx, params }) => getAction(ctx, pathId(params.id)), {
        doc: { summary: "Retrieve an action", description: "Deleted actions too.", response: actionSchema },
      }),
      PATCH: updateRoute("PATCH"),
      PUT: updateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "action",
        async ({ ctx, params }) => {
          await getAction(ctx, pathId(params.id));
          return new Response(null, { status: 405 });
        },
        { status: 405, doc: { summary: "Delete an action (not allowed)", description: "PostHog forbids hard deletes: 405 with no body. Soft-delete with `PATCH {\"deleted\": true}`." } },
      ),
    },
  },
];
