import {
  experimentCreateBody,
  experimentListQuery,
  experimentSchema,
  experimentUpdateBody,
  holdoutCreateBody,
  holdoutSchema,
  holdoutUpdateBody,
  savedMetricCreateBody,
  savedMetricSchema,
  savedMetricUpdateBody,
  shipVariantBody,
} from "@/server/experiments/contract";
import { createHoldout, deleteHoldout, getHoldout, listHoldouts, updateHoldout } from "@/server/experiments/holdouts";
import { createSavedMetric, deleteSavedMetric, getSavedMetric, listSavedMetrics, updateSavedMetric } from "@/server/experiments/saved-metrics";
import { createExperiment, getExperiment, listExperiments, shipVariant, updateExperiment } from "@/server/experiments/service";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";
import { pageQuery } from "@/server/input/page";

type Params = { project_id: string; id: string };

const updateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("experiment", async ({ ctx, params, body }) => updateExperiment(ctx, pathId(params.id), await body(experimentUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update an experiment" : "Update an experiment (PUT: same partial update)",
      description:
        "Any writable field. Setting `start_date` launches a draft (its flag is turned on); `end_date` stops it. Variants and holdout change only on a draft. `deleted: true` soft-deletes; `feature_flag_key` cannot change.",
      body: experimentUpdateBody,
      response: experimentSchema,
    },
  });

const holdoutUpdateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("experiment", async ({ ctx, params, body }) => updateHoldout(ctx, pathId(params.id), await body(holdoutUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update a holdout" : "Update a holdout (PUT: same partial update)",
      description: "A change of `filters` rewrites the flags of every experiment in the holdout.",
      body: holdoutUpdateBody,
      response: holdoutSchema,
    },
  });

const savedMetricUpdateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("experiment", async ({ ctx, params, body }) => updateSavedMetric(ctx, pathId(params.id), await body(savedMetricUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update a shared metric" : "Update a shared metric (PUT: same partial update)",
      description: "Every experiment linking the metric reads the new `query` from then on.",
      body: savedMetricUpdateBody,
      response: savedMetricSchema,
    },
  });

export const experimentRoutes: RestResource[] = [
  {
    path: "experiments",
    methods: {
      GET: projectRoute(
        "experiment",
        async ({ request, ctx, query }) => {
          const parsed = query(experimentListQuery);
          const { count, results } = await listExperiments(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        { doc: { summary: "List experiments", description: "Live experiments, newest first; `archived` and `search` (by name) filter.", query: experimentListQuery, response: pageOf(experimentSchema, "Experiment") } },
      ),
      POST: projectRoute("experiment", async ({ ctx, body }) => createExperiment(ctx, await body(experimentCreateBody)), {
        status: 201,
        doc: {
          summary: "Create an experiment",
          description:
            "Creates the multivariate flag `feature_flag_key` with `parameters.feature_flag_variants` (default control/test 50/50), or adopts an existing multivariate flag whose first variant is `control`. Metrics are PostHog's ExperimentMetric (`funnel` or `mean`); `exposure_criteria` chooses the exposure event.",
          body: experimentCreateBody,
          response: experimentSchema,
        },
      }),
    },
  },
  {
    path: "experiments/:id",
    methods: {
      GET: projectRoute<Params>("experiment", async ({ ctx, params }) => getExperiment(ctx, pathId(params.id)), {
        doc: { summary: "Retrieve an experiment", description: "Deleted experiments too.", response: experimentSchema },
      }),
      PATCH: updateRoute("PATCH"),
      PUT: updateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "experiment",
        async ({ ctx, params }) => {
          await getExperiment(ctx, pathId(params.id));
          return new Response(null, { status: 405 });
        },
        { status: 405, doc: { summary: "Delete an experiment (not allowed)", description: "PostHog forbids hard deletes: 405 with no body. Soft-delete with `PATCH {\"deleted\": true}`." } },
      ),
    },
  },
  {
    path: "experiments/:id/ship_variant",
    methods: {
      POST: projectRoute<Params>("experiment", async ({ ctx, params, body }) => shipVariant(ctx, pathId(params.id), await body(shipVariantBody)), {
        doc: {
          summary: "Ship a variant",
          description: "The flag serves `variant_key` to everyone it matches (100 % of the split; `release_to_everyone` also puts a catch-all condition first); a running experiment is ended.",
          body: shipVariantBody,
          response: experimentSchema,
        },
      }),
    },
  },
  {
    path: "experiment_holdouts",
    methods: {
      GET: projectRoute(
        "experiment",
        async ({ request, ctx, query }) => {
          const parsed = query(pageQuery);
          const all = await listHoldouts(ctx);
          const take = parsed.limit || 100;
          return paginate(request, parsed, all.length, all.slice(parsed.offset, parsed.offset + take));
        },
        { doc: { summary: "List holdouts", description: "Newest first.", query: pageQuery, response: pageOf(holdoutSchema, "ExperimentHoldout") } },
      ),
      POST: projectRoute("experiment", async ({ ctx, body }) => createHoldout(ctx, await body(holdoutCreateBody)), {
        status: 201,
        doc: {
          summary: "Create a holdout",
          description: "`filters: [{properties, rollout_percentage}]`: that share of users is kept out of every experiment naming the holdout; they get the variant `holdout-<id>`.",
          body: holdoutCreateBody,
          response: holdoutSchema,
        },
      }),
    },
  },
  {
    path: "experiment_holdouts/:id",
    methods: {
      GET: projectRoute<Params>("experiment", async ({ ctx, params }) => getHoldout(ctx, pathId(params.id)), { doc: { summary: "Retrieve a holdout", description: "", response: holdoutSchema } }),
      PATCH: holdoutUpdateRoute("PATCH"),
      PUT: holdoutUpdateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "experiment",
        async ({ ctx, params }) => {
          await deleteHoldout(ctx, pathId(params.id));
          return null;
        },
        { status: 204, doc: { summary: "Delete a holdout", description: "Its experiments' flags stop holding users out; 204." } },
      ),
    },
  },
  {
    path: "experiment_saved_metrics",
    methods: {
      GET: projectRoute(
        "experiment",
        async ({ request, ctx, query }) => {
          const parsed = query(pageQuery);
          const all = await listSavedMetrics(ctx);
          const take = parsed.limit || 100;
          return paginate(request, parsed, all.length, all.slice(parsed.offset, parsed.offset + take));
        },
        { doc: { summary: "List shared metrics", description: "Newest first.", query: pageQuery, response: pageOf(savedMetricSchema, "ExperimentSavedMetric") } },
      ),
      POST: projectRoute("experiment", async ({ ctx, body }) => createSavedMetric(ctx, await body(savedMetricCreateBody)), {
        status: 201,
        doc: {
          summary: "Create a shared metric",
          description: "`query` is an ExperimentMetric (`funnel` or `mean`, EventsNode or ActionsNode sources). Experiments link it with `saved_metrics_ids: [{id, metadata: {type: \"primary\" | \"secondary\"}}]`.",
          body: savedMetricCreateBody,
          response: savedMetricSchema,
        },
      }),
    },
  },
  {
    path: "experiment_saved_metrics/:id",
    methods: {
      GET: projectRoute<Params>("experiment", async ({ ctx, params }) => getSavedMetric(ctx, pathId(params.id)), { doc: { summary: "Retrieve a shared metric", description: "", response: savedMetricSchema } }),
      PATCH: savedMetricUpdateRoute("PATCH"),
      PUT: savedMetricUpdateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "experiment",
        async ({ ctx, params }) => {
          await deleteSavedMetric(ctx, pathId(params.id));
          return null;
        },
        { status: 204, doc: { summary: "Delete a shared metric", description: "It is unlinked from every experiment; 204." } },
      ),
    },
  },
];
