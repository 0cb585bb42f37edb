import {
  deliverySchema,
  hogFunctionCreateBody,
  hogFunctionListQuery,
  hogFunctionLogsQuery,
  hogFunctionMetricsQuery,
  hogFunctionSchema,
  hogFunctionUpdateBody,
  logEntrySchema,
  metricsSchema,
  metricsTotalsSchema,
} from "@/server/destinations/contract";
import {
  createHogFunction,
  getHogFunction,
  hogFunctionDeliveries,
  hogFunctionLogs,
  hogFunctionMetrics,
  hogFunctionMetricTotals,
  listHogFunctions,
  updateHogFunction,
} from "@/server/destinations/service";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { projectRoute, z, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

const updateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("hog_function", async ({ ctx, params, body }) => updateHogFunction(ctx, params.id, await body(hogFunctionUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update a destination" : "Update a destination (PUT: same partial update)",
      description:
        "Any writable field; `inputs` replaces the inputs (a masked secret header sent back keeps the stored value). `deleted: true` soft-deletes, `false` restores; `type` cannot change.",
      body: hogFunctionUpdateBody,
      response: hogFunctionSchema,
    },
  });

const results = <T extends z.ZodType>(item: T, id: string) => z.object({ results: z.array(item) }).meta({ id });

export const hogFunctionRoutes: RestResource[] = [
  {
    path: "hog_functions",
    methods: {
      GET: projectRoute(
        "hog_function",
        async ({ request, ctx, query }) => {
          const parsed = query(hogFunctionListQuery);
          const { count, results } = await listHogFunctions(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        {
          doc: {
            summary: "List destinations",
            description: "Live hog functions of `type` (or `types=a,b`; default `destination`), oldest first; `enabled` and `search` filter.",
            query: hogFunctionListQuery,
            response: pageOf(hogFunctionSchema, "HogFunction"),
          },
        },
      ),
      POST: projectRoute("hog_function", async ({ ctx, body }) => createHogFunction(ctx, await body(hogFunctionCreateBody)), {
        status: 201,
        doc: {
          summary: "Create a destination",
          description:
            "A webhook destination (`template_id: template-webhook`): `inputs.url` (refused when it reaches a private, loopback or link-local address unless BURROW_OUTBOUND_ALLOWLIST lists it), `inputs.method`, `inputs.headers` (credentials stored encrypted, shown masked), `inputs.body` (a JSON template: `{event.event}`, `{event.properties.x}`, `{person.properties.x}`, `{project.name}`), and `filters` (`events`, `actions`, `properties`). Matching events are delivered at least once, with retries.",
          body: hogFunctionCreateBody,
          response: hogFunctionSchema,
        },
      }),
    },
  },
  {
    path: "hog_functions/:id",
    methods: {
      GET: projectRoute<Params>("hog_function", async ({ ctx, params }) => getHogFunction(ctx, params.id), {
        doc: { summary: "Retrieve a destination", description: "Soft-deleted ones too.", response: hogFunctionSchema },
      }),
      PATCH: updateRoute("PATCH"),
      PUT: updateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "hog_function",
        async ({ ctx, params }) => {
          await getHogFunction(ctx, params.id);
          return new Response(null, { status: 405 });
        },
        { status: 405, doc: { summary: "Delete a destination (not allowed)", description: 'PostHog forbids hard deletes: 405 with no body. Soft-delete with `PATCH {"deleted": true}`.' } },
      ),
    },
  },
  {
    path: "hog_functions/:id/logs",
    methods: {
      GET: projectRoute<Params>("hog_function", async ({ ctx, params, query }) => hogFunctionLogs(ctx, params.id, query(hogFunctionLogsQuery)), {
        doc: {
          summary: "A destination's log",
          description: "One line per delivery attempt, newest first; `level` (INFO delivered, WARN retrying, ERROR failed, DEBUG skipped), `after`, `before`, `search`, `instance_id` (an event uuid).",
          query: hogFunctionLogsQuery,
          response: results(logEntrySchema, "HogFunctionLogs"),
        },
      }),
    },
  },
  {
    path: "hog_functions/:id/deliveries",
    methods: {
      GET: projectRoute<Params>("hog_function", async ({ ctx, params, query }) => hogFunctionDeliveries(ctx, params.id, query(hogFunctionLogsQuery)), {
        doc: {
          summary: "A destination's deliveries",
          description: "Each attempt with its status (delivered, retrying, failed, skipped), response code, duration and error, newest first; `level` takes statuses.",
          query: hogFunctionLogsQuery,
          response: results(deliverySchema, "HogFunctionDeliveries"),
        },
      }),
    },
  },
  {
    path: "hog_functions/:id/metrics",
    methods: {
      GET: projectRoute<Params>("hog_function", async ({ ctx, params, query }) => hogFunctionMetrics(ctx, params.id, query(hogFunctionMetricsQuery)), {
        doc: { summary: "A destination's metrics", description: "Attempts by kind (delivered, retrying, failed, skipped) per `interval` since `after` (default -7d).", query: hogFunctionMetricsQuery, response: metricsSchema },
      }),
    },
  },
  {
    path: "hog_functions/:id/metrics/totals",
    methods: {
      GET: projectRoute<Params>("hog_function", async ({ ctx, params, query }) => hogFunctionMetricTotals(ctx, params.id, query(hogFunctionMetricsQuery)), {
        doc: { summary: "A destination's metric totals", description: "The kinds' totals since `after`, and `pending`: events waiting in the outbox.", query: hogFunctionMetricsQuery, response: metricsTotalsSchema },
      }),
    },
  },
];
