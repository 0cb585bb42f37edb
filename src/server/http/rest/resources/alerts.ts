import { alertCreateBody, alertListQuery, alertRetrieveQuery, alertSchema, alertUpdateBody } from "@/server/alerts/contract";
import { checkAlertNow, createAlert, deleteAlert, getAlert, listAlerts, updateAlert } from "@/server/alerts/service";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

const updateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("alert", async ({ ctx, params, body }) => updateAlert(ctx, params.id, await body(alertUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update an alert" : "Update an alert (PUT: same partial update)",
      description:
        "Any writable field. A new threshold, condition, config, insight or interval makes the alert due for a check at the next pass; `snoozed_until` in the future snoozes it (state `Snoozed`, no checks on schedule, no notifications), null ends the snooze.",
      body: alertUpdateBody,
      response: alertSchema,
    },
  });

export const alertRoutes: RestResource[] = [
  {
    path: "alerts",
    methods: {
      GET: projectRoute(
        "alert",
        async ({ request, ctx, query }) => {
          const parsed = query(alertListQuery);
          const { count, results } = await listAlerts(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        { doc: { summary: "List alerts", description: "Newest first, each with its latest check; `insight` keeps one insight's alerts. No cap on their number.", query: alertListQuery, response: pageOf(alertSchema, "AlertConfiguration") } },
      ),
      POST: projectRoute("alert", async ({ ctx, body }) => createAlert(ctx, await body(alertCreateBody)), {
        status: 201,
        doc: {
          summary: "Create an alert",
          description:
            "On a trends `insight`: `threshold.configuration` (`type` absolute or percentage, `bounds.lower`/`upper`; percentages are fractions, 0.1 is 10 %), `condition.type` (absolute_value, relative_increase, relative_decrease), `config` (`series_index`, `check_ongoing_interval`, which needs an upper bound), `calculation_interval` (hourly, daily, weekly, monthly), `subscribed_users` (user ids, e-mailed), `webhook_url` (POSTed JSON; refused when it reaches a private, loopback or link-local address unless BURROW_OUTBOUND_ALLOWLIST lists it). The first check comes at the next scheduled pass.",
          body: alertCreateBody,
          response: alertSchema,
        },
      }),
    },
  },
  {
    path: "alerts/:id",
    methods: {
      GET: projectRoute<Params>("alert", async ({ ctx, params, query }) => getAlert(ctx, params.id, query(alertRetrieveQuery).checks_limit), {
        doc: { summary: "Retrieve an alert", description: "With its newest `checks_limit` checks (default 5, at most 50).", query: alertRetrieveQuery, response: alertSchema },
      }),
      PATCH: updateRoute("PATCH"),
      PUT: updateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "alert",
        async ({ ctx, params }) => {
          await deleteAlert(ctx, params.id);
          return null;
        },
        { status: 204, doc: { summary: "Delete an alert", description: "The alert and its check history; 204." } },
      ),
    },
  },
  {
    path: "alerts/:id/check_now",
    methods: {
      POST: projectRoute<Params>("alert", async ({ ctx, params }) => checkAlertNow(ctx, params.id), {
        doc: {
          summary: "Check an alert now",
          description: "Computes the insight and checks the threshold at once (the schedule is unchanged); notifies on a change into firing or back, unless snoozed. Answers the alert with its newest checks.",
          response: alertSchema,
        },
      }),
    },
  },
];
