import { z } from "zod";
import { pageQuery, pageWindow } from "@/server/input/page";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";
import {
  activityAnswerSchema,
  activityQuery,
  createConfigInput,
  jobAnswerSchema,
  jobInput,
  pluginConfigSchema,
  rearrangeInput,
  updateConfigInput,
} from "@/server/transformations/contract";
import { activityAnswer } from "@/server/transformations/present";
import {
  configActivity,
  createConfig,
  deleteConfig,
  frontendScript,
  getConfig,
  listConfigs,
  migrateConfig,
  rearrangeConfigs,
  runJob,
  updateConfig,
} from "@/server/transformations/service";

type Params = { project_id: string; id: string };

export const transformationRoutes: RestResource[] = [
  {
    path: "pipeline_transformation_configs",
    methods: {
      GET: projectRoute(
        "plugin",
        async ({ request, ctx, query }) => {
          const page = query(pageQuery);
          const { count, results } = await listConfigs(ctx, pageWindow(page));
          return paginate(request, page, count, results);
        },
        {
          doc: {
            summary: "List transformation configs",
            description: "The project's transformations in the order ingestion runs them (`order`), paginated.",
            query: pageQuery,
            response: pageOf(pluginConfigSchema, "PluginConfig"),
          },
        },
      ),
      POST: projectRoute("plugin", async ({ ctx, body }) => createConfig(ctx, await body(createConfigInput)), {
        status: 201,
        doc: {
          summary: "Create a transformation config",
          description: "A config of a built-in plugin (`GET /api/plugins/` lists them with their config forms). Every plugin's config has defaults, so `plugin` alone is valid; `order` defaults to after the last one. 201.",
          body: createConfigInput,
          response: pluginConfigSchema,
        },
      }),
    },
  },
  {
    path: "pipeline_transformation_configs/rearrange",
    methods: {
      PATCH: projectRoute("plugin", async ({ ctx, body }) => rearrangeConfigs(ctx, await body(rearrangeInput)), {
        doc: {
          summary: "Reorder transformation configs",
          description: "`{\"orders\": {\"<config id>\": <order>, …}}`, all or nothing; answers the reordered configs.",
          body: rearrangeInput,
          response: z.array(pluginConfigSchema).meta({ id: "PluginConfigList" }),
        },
      }),
    },
  },
  {
    path: "pipeline_transformation_configs/:id",
    methods: {
      GET: projectRoute<Params>("plugin", async ({ ctx, params }) => getConfig(ctx, pathId(params.id)), {
        doc: { summary: "Retrieve a transformation config", description: "Secret fields read as PostHog's mask.", response: pluginConfigSchema },
      }),
      PATCH: projectRoute<Params>("plugin", async ({ ctx, params, body }) => updateConfig(ctx, pathId(params.id), await body(updateConfigInput)), {
        doc: {
          summary: "Update a transformation config",
          description: "Any writable field; `config` merges into the stored one (a secret left out keeps its value).",
          body: updateConfigInput,
          response: pluginConfigSchema,
        },
      }),
      DELETE: projectRoute<Params>(
        "plugin",
        async ({ ctx, params }) => {
          await deleteConfig(ctx, pathId(params.id));
          return null;
        },
        { status: 204, doc: { summary: "Delete a transformation config", description: "204; the config is disabled, marked deleted and leaves lists and the chain." } },
      ),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/activity",
    methods: {
      GET: projectRoute<Params>(
        "plugin",
        async ({ request, ctx, params, query }) => {
          const { limit, page } = query(activityQuery);
          // `next`/`previous` keep the request's URL, with this page's limit and the other page.
          const link = (target: number) => {
            const out = new URL(request.url);
            out.searchParams.set("limit", String(limit));
            out.searchParams.set("page", String(target));
            return out.toString();
          };
          return activityAnswer(await configActivity(ctx, pathId(params.id), { limit, page }), link);
        },
        {
          doc: {
            summary: "A transformation config's activity",
            description: "Its change history (`?limit=10&page=1`, newest first) and its run statistics: the last 24 hours, and each hour's counts.",
            query: activityQuery,
            response: activityAnswerSchema,
          },
        },
      ),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/frontend",
    methods: {
      GET: projectRoute<Params>(
        "plugin",
        async ({ ctx, params }) => {
          const script = await frontendScript(ctx, pathId(params.id));
          return new Response(script, { status: 200, headers: { "content-type": "application/javascript" } });
        },
        {
          doc: {
            summary: "A transformation config's frontend app",
            description: "JavaScript. The built-in plugins have none: PostHog's stub, `getFrontendApp()` answering `{\"no_frontend\": true}`.",
            media: { "application/javascript": "The config's frontend app module." },
          },
        },
      ),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/job",
    methods: {
      POST: projectRoute<Params>("plugin", async ({ ctx, params, body }) => runJob(ctx, pathId(params.id), await body(jobInput)), {
        doc: {
          summary: "Run a transformation job",
          description:
            "`{\"job\": {\"type\": \"dry_run\", \"payload\": {\"events\": […]}}}` (or `{\"limit\": n}`: the project's newest n events, 10 by default): runs the config on the events and answers each before and after. Nothing is stored. Every plugin has `dry_run`.",
          body: jobInput,
          response: jobAnswerSchema,
        },
      }),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/migrate",
    methods: {
      POST: projectRoute<Params>("plugin", async ({ ctx, params }) => migrateConfig(ctx, pathId(params.id)), {
        doc: { summary: "Migrate a transformation config", description: "Brings the stored config up to its plugin's current schema.", response: pluginConfigSchema },
      }),
    },
  },
];
