import { pageQuery, pageWindow } from "@/server/input/page";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";
import { activityQuery, createConfigInput, jobInput, rearrangeInput, updateConfigInput } from "@/server/transformations/contract";
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
      /** The project's configs by `order`, paginated. */
      GET: projectRoute("plugin", async ({ request, ctx, query }) => {
        const page = query(pageQuery);
        const { count, results } = await listConfigs(ctx, pageWindow(page));
        return paginate(request, page, count, results);
      }),
      /** A new config of a built-in plugin (201). */
      POST: projectRoute(
        "plugin",
        async ({ ctx, body }) => createConfig(ctx, await body(createConfigInput)),
        { status: 201 },
      ),
    },
  },
  {
    path: "pipeline_transformation_configs/rearrange",
    methods: {
      /** `{"orders": {"<id>": <order>}}`: all or nothing. */
      PATCH: projectRoute("plugin", async ({ ctx, body }) => rearrangeConfigs(ctx, await body(rearrangeInput))),
    },
  },
  {
    path: "pipeline_transformation_configs/:id",
    methods: {
      GET: projectRoute<Params>("plugin", async ({ ctx, params }) => getConfig(ctx, pathId(params.id))),
      /** Any writable field; `config` merges into the stored one. */
      PATCH: projectRoute<Params>("plugin", async ({ ctx, params, body }) => updateConfig(ctx, pathId(params.id), await body(updateConfigInput))),
      /** 204; the config is disabled, marked deleted and leaves lists and the chain. */
      DELETE: projectRoute<Params>(
        "plugin",
        async ({ ctx, params }) => {
          await deleteConfig(ctx, pathId(params.id));
          return null;
        },
        { status: 204 },
      ),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/activity",
    methods: {
      /** `?limit=10&page=1`: the config's change history and its run statistics. */
      GET: projectRoute<Params>("plugin", async ({ request, ctx, params, query }) => {
        const { limit, page } = query(activityQuery);
        // `next`/`previous` keep the request's URL, with this page's limit and the other page.
        const link = (target: number) => {
          const out = new URL(request.url);
          out.searchParams.set("limit", String(limit));
          out.searchParams.set("page", String(target));
          return out.toString();
        };
        return activityAnswer(await configActivity(ctx, pathId(params.id), { limit, page }), link);
      }),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/frontend",
    methods: {
      /** The config's frontend app as JavaScript (built-ins have none: PostHog's stub). */
      GET: projectRoute<Params>("plugin", async ({ ctx, params }) => {
        const script = await frontendScript(ctx, pathId(params.id));
        return new Response(script, { status: 200, headers: { "content-type": "application/javascript" } });
      }),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/job",
    methods: {
      /** `{"job": {"type": "dry_run", "payload": {…}}}`: runs the job and answers its result. */
      POST: projectRoute<Params>("plugin", async ({ ctx, params, body }) => runJob(ctx, pathId(params.id), await body(jobInput))),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/migrate",
    methods: {
      /** Brings the stored config up to its plugin's current schema. */
      POST: projectRoute<Params>("plugin", async ({ ctx, params }) => migrateConfig(ctx, pathId(params.id))),
    },
  },
];
