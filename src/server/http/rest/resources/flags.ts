import { z } from "zod";
import { createFlagInput, flagListQuery, updateFlagInput } from "@/server/flags/contract";
import { flagResourceSchema } from "@/server/flags/resource";
import type { Context } from "@/server/context";
import { featuresByFlag } from "@/server/early-access/service";
import { experimentIdsByFlag } from "@/server/experiments/service";
import type { FlagResource } from "@/server/flags/present";
import { createFlag, getFlag, listFlags, updateFlag } from "@/server/flags/service";
import { surveysByLinkedFlag } from "@/server/surveys/service";
import { handleRemoteConfigPayload, remoteConfigQuery } from "@/server/http/sdk/remote-config-payload";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { documented, pathId, projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

/**
 * PostHog's flag answers name what uses the flag: `experiment_set`, the linked `surveys` and
 * the early-access `features`. Those domains build on flags, so they are asked here, at the
 * edge, rather than by the flags service (which they import).
 */
async function withUses(ctx: Context, flags: FlagResource[]): Promise<FlagResource[]> {
  const ids = flags.map((flag) => flag.id);
  const [experiments, surveys, features] = await Promise.all([experimentIdsByFlag(ctx, ids), surveysByLinkedFlag(ctx, ids), featuresByFlag(ctx, ids)]);
  return flags.map((flag) => ({ ...flag, experiment_set: experiments.get(flag.id) ?? [], surveys: surveys.get(flag.id) ?? [], features: features.get(flag.id) ?? [] }));
}
const withUsesOne = async (ctx: Context, flag: FlagResource) => (await withUses(ctx, [flag]))[0]!;

/** `feature_flags/:id/`: change fields; `{"deleted": true}` is the soft delete. PUT takes the same body. */
const updateFlagRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("feature_flag", async ({ ctx, params, body }) => withUsesOne(ctx, await updateFlag(ctx, pathId(params.id), await body(updateFlagInput))), {
    doc: {
      summary: method === "PATCH" ? "Update a feature flag" : "Update a feature flag (PUT: same partial update)",
      description: "Any writable field; `{\"deleted\": true}` soft-deletes (PostHog's way: hard deletes are refused). `/decide`, `/flags` and the definitions endpoints serve the change within a second.",
      body: updateFlagInput,
      response: flagResourceSchema,
    },
  });

export const flagRoutes: RestResource[] = [
  {
    path: "feature_flags",
    prefixes: ["projects"],
    methods: {
      GET: projectRoute(
        "feature_flag",
        async ({ request, ctx, query }) => {
          const parsed = query(flagListQuery);
          const page = await listFlags(ctx, parsed);
          return paginate(request, parsed, page.count, await withUses(ctx, page.results));
        },
        {
          doc: {
            summary: "List feature flags",
            description: "The project's live flags, but for the flags surveys target (as PostHog lists them). `search` (key or name), `active`, `type` (boolean, multivariant, experiment, remote_config), `created_by_id`, `tags` and `excluded_properties` (JSON lists), `order`.",
            query: flagListQuery,
            response: pageOf(flagResourceSchema, "FeatureFlag"),
          },
        },
      ),
      POST: projectRoute("feature_flag", async ({ ctx, body }) => withUsesOne(ctx, await createFlag(ctx, await body(createFlagInput))), {
        status: 201,
        doc: {
          summary: "Create a feature flag",
          description: "`key` (letters, digits, `-` and `_`, unique in the project) and `filters`: condition sets (`groups`) of person, group, cohort or flag conditions with a rollout percentage, `multivariate` variants, `payloads` by variant.",
          body: createFlagInput,
          response: flagResourceSchema,
        },
      }),
    },
  },
  {
    path: "feature_flags/:id",
    prefixes: ["projects"],
    methods: {
      GET: projectRoute<Params>("feature_flag", async ({ ctx, params }) => withUsesOne(ctx, await getFlag(ctx, pathId(params.id))), {
        doc: { summary: "Retrieve a feature flag", description: "Deleted flags too, with `deleted: true`.", response: flagResourceSchema },
      }),
      PATCH: updateFlagRoute("PATCH"),
      PUT: updateFlagRoute("PUT"),
      /** PostHog forbids hard deletes of flags (ForbidDestroyModel): 405 with no body, after the usual checks. */
      DELETE: projectRoute<Params>(
        "feature_flag",
        async ({ ctx, params }) => {
          await getFlag(ctx, pathId(params.id));
          return new Response(null, { status: 405 });
        },
        { status: 405, doc: { summary: "Delete a feature flag (not allowed)", description: "PostHog forbids hard deletes of flags: 405 with no body, after the key, scope and existence checks. Soft-delete with `PATCH {\"deleted\": true}`." } },
      ),
    },
  },
  {
    path: "feature_flags/:id/remote_config",
    methods: {
      GET: documented(handleRemoteConfigPayload, {
        scopes: [{ object: "feature_flag", action: "read" }],
        secretKey: true,
        status: 200,
        doc: {
          summary: "A flag's payload for server SDKs",
          description:
            "What posthog-node's and posthog-python's `getRemoteConfigPayload(key)` ask for: the payload of the flag's `\"true\"` value as a JSON string (the SDKs parse it again), or null. `:id` may be the flag's key. Credentials: the project's secret key (`phs_…`), or a personal API key with `feature_flag:read`; for `@current`, `token` names the project.",
          query: remoteConfigQuery,
          response: z.string().nullable().meta({ id: "RemoteConfigPayload" }),
        },
      }),
    },
  },
];
