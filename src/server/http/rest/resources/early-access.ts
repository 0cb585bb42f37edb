import { eafCreateBody, eafListQuery, eafSchema, eafUpdateBody } from "@/server/early-access/contract";
import { createFeature, deleteFeature, enrolledPersons, getFeature, listFeatures, updateFeature } from "@/server/early-access/service";
import { z } from "zod";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

const updateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("early_access_feature", async ({ ctx, params, body }) => updateFeature(ctx, params.id, await body(eafUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update an early access feature" : "Update an early access feature (PUT: same partial update)",
      description: "Any writable field. Moving into a release stage (concept, alpha, beta, general-availability) gives the flag the enrolment condition; moving out removes it.",
      body: eafUpdateBody,
      response: eafSchema,
    },
  });

export const earlyAccessRoutes: RestResource[] = [
  {
    path: "early_access_features",
    methods: {
      GET: projectRoute(
        "early_access_feature",
        async ({ request, ctx, query }) => {
          const parsed = query(eafListQuery);
          const { count, results } = await listFeatures(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        { doc: { summary: "List early access features", description: "Newest first; `stage` narrows the list.", query: eafListQuery, response: pageOf(eafSchema, "EarlyAccessFeature") } },
      ),
      POST: projectRoute("early_access_feature", async ({ ctx, body }) => createFeature(ctx, await body(eafCreateBody)), {
        status: 201,
        doc: {
          summary: "Create an early access feature",
          description:
            "Without `feature_flag_id` a flag is created with the key `slugify(name)` and a 0 % rollout; with it, that flag (boolean, on persons, not already backing a feature) is used. A release stage adds the enrolment condition `$feature_enrollment/<key>`.",
          body: eafCreateBody,
          response: eafSchema,
        },
      }),
    },
  },
  {
    path: "early_access_features/:id",
    methods: {
      GET: projectRoute<Params>("early_access_feature", async ({ ctx, params }) => getFeature(ctx, params.id), {
        doc: { summary: "Retrieve an early access feature", description: "By its uuid.", response: eafSchema },
      }),
      PATCH: updateRoute("PATCH"),
      PUT: updateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "early_access_feature",
        async ({ ctx, params }) => {
          await deleteFeature(ctx, params.id);
          return new Response(null, { status: 204 });
        },
        { status: 204, doc: { summary: "Delete an early access feature", description: "The flag stays, without the enrolment condition." } },
      ),
    },
  },
  {
    path: "early_access_features/:id/enrolled",
    methods: {
      GET: projectRoute<Params>("early_access_feature", async ({ ctx, params }) => enrolledPersons(ctx, params.id), {
        alsoRequires: ["person"],
        doc: {
          summary: "Persons enrolled in an early access feature",
          description: "Burrow's own: the persons whose `$feature_enrollment/<flag key>` is true (at most 100; `more` when there are others).",
          response: z.object({ results: z.array(z.object({ uuid: z.string(), distinct_id: z.string(), name: z.string() })), more: z.boolean() }).meta({ id: "EarlyAccessEnrolledPersons" }),
        },
      }),
    },
  },
];
