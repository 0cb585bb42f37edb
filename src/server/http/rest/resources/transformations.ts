import { pageQuery, pageWindow } from "@/server/input/page";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";
import { activityQuery, createConfigInput, jobInput, rearrangeInput, updateConfigInput } from "@/server/transformations/contract";
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
      GET: projectRoute("plugin", async ({ request, db, project, query }) => {
        const page = query(pageQuery);
        const { count, results } = await listConfigs(db, project.id, pageWindow(page));
        return paginate(request, page, count, results);
      }),
      /** A new config of a built-in plugin (201). */
      POST: projectRoute(
        "plugin",
        async ({ db, project, principal, body }) => createConfig(db, { projectId: project.id, userId: principal.user.id }, await body(createConfigInput)),
        { status: 201 },
      ),
    },
  },
  {
    path: "pipeline_transformation_configs/rearrange",
    methods: {
      /** `{"orders": {"<id>": <order>}}`: all or nothing. */
      PATCH: projectRoute("plugin", async ({ db, project, principal, body }) =>
        rearrangeConfigs(db, { projectId: project.id, userId: principal.user.id }, await body(rearrangeInput)),
      ),
    },
  },
  {
    path: "pipeline_transformation_configs/:id",
    methods: {
      GET: projectRoute<Params>("plugin", async ({ db, project, params }) => getConfig(db, project.id, pathId(params.id))),
      /** Any writable field; `config` merges into the stored one. */
      PATCH: projectRoute<Params>("plugin", async ({ db, project, principal, params, body }) =>
        updateConfig(db, { projectId: project.id, userId: principal.user.id }, pathId(params.id), await body(updateConfigInput)),
      ),
      /** 204; the config is disabled, marked deleted and leaves lists and the chain. */
      DELETE: projectRoute<Params>(
        "plugin",
        async ({ db, project, principal, params }) => {
          await deleteConfig(db, { projectId: project.id, userId: principal.user.id }, pathId(params.id));
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
      GET: projectRoute<Params>("plugin", async ({ request, db, project, params, query }) =>
        configActivity(db, project.id, pathId(params.id), query(activityQuery), new URL(request.url)),
      ),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/frontend",
    methods: {
      /** The config's frontend app as JavaScript (built-ins have none: PostHog's stub). */
      GET: projectRoute<Params>("plugin", async ({ db, project, params }) => {
        const script = await frontendScript(db, project.id, pathId(params.id));
        return new Response(script, { status: 200, headers: { "content-type": "application/javascript" } });
      }),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/job",
    methods: {
      /** `{"job": {"type": "dry_run", "payload": {…}}}`: runs the job and answers its result. */
      POST: projectRoute<Params>("plugin", async ({ db, project, principal, params, body }) =>
        runJob(db, { projectId: project.id, userId: principal.user.id }, pathId(params.id), await body(jobInput)),
      ),
    },
  },
  {
    path: "pipeline_transformation_configs/:id/migrate",
    methods: {
      /** Brings the stored config up to its plugin's current schema. */
      POST: projectRoute<Params>("plugin", async ({ db, project, principal, params }) =>
        migrateConfig(db, { projectId: project.id, userId: principal.user.id }, pathId(params.id)),
      ),
    },
  },
];
