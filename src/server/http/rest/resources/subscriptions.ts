import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";
import { subscriptionCreateBody, subscriptionListQuery, subscriptionSchema, subscriptionUpdateBody, testDeliverySchema } from "@/server/subscriptions/contract";
import { createSubscription, getSubscription, listSubscriptions, testDelivery, updateSubscription } from "@/server/subscriptions/service";

type Params = { project_id: string; id: string };

const updateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("subscription", async ({ ctx, params, body }) => updateSubscription(ctx, pathId(params.id), await body(subscriptionUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update a subscription" : "Update a subscription (PUT: same partial update)",
      description:
        "Any writable field. A changed schedule (or a re-enable) recomputes `next_delivery_date`; `deleted: true` soft-deletes, `false` restores; `content_type` cannot change.",
      body: subscriptionUpdateBody,
      response: subscriptionSchema,
    },
  });

export const subscriptionRoutes: RestResource[] = [
  {
    path: "subscriptions",
    methods: {
      GET: projectRoute(
        "subscription",
        async ({ request, ctx, query }) => {
          const parsed = query(subscriptionListQuery);
          const { count, results } = await listSubscriptions(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        {
          doc: {
            summary: "List subscriptions",
            description: "Newest first; `insight`, `dashboard`, `target_type` and `deleted` (default false) filter.",
            query: subscriptionListQuery,
            response: pageOf(subscriptionSchema, "Subscription"),
          },
        },
      ),
      POST: projectRoute("subscription", async ({ ctx, body }) => createSubscription(ctx, await body(subscriptionCreateBody)), {
        status: 201,
        doc: {
          summary: "Create a subscription",
          description:
            "An `insight`, or a `dashboard` with `dashboard_export_insights` (1 to 6 of its insights), sent by `target_type` `email` (comma-separated addresses in `target_value`) or `webhook` (a URL; refused when it reaches a private, loopback or link-local address unless BURROW_OUTBOUND_ALLOWLIST lists it) on PostHog's rrule schedule: `frequency`, `interval`, `byweekday`, `bysetpos`, `count`, `start_date`, `until_date`. `next_delivery_date` is computed.",
          body: subscriptionCreateBody,
          response: subscriptionSchema,
        },
      }),
    },
  },
  {
    path: "subscriptions/:id",
    methods: {
      GET: projectRoute<Params>("subscription", async ({ ctx, params }) => getSubscription(ctx, pathId(params.id)), {
        doc: { summary: "Retrieve a subscription", description: "Soft-deleted ones too.", response: subscriptionSchema },
      }),
      PATCH: updateRoute("PATCH"),
      PUT: updateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "subscription",
        async ({ ctx, params }) => {
          await getSubscription(ctx, pathId(params.id));
          return new Response(null, { status: 405 });
        },
        { status: 405, doc: { summary: "Delete a subscription (not allowed)", description: 'PostHog forbids hard deletes: 405 with no body. Soft-delete with `PATCH {"deleted": true}`.' } },
      ),
    },
  },
  {
    path: "subscriptions/:id/test-delivery",
    methods: {
      POST: projectRoute<Params>("subscription", async ({ ctx, params }) => testDelivery(ctx, pathId(params.id)), {
        status: 202,
        doc: {
          summary: "Send a test delivery now",
          description:
            "Renders and sends the report at once (the schedule does not move) and answers 202 with the outcome: `delivered`, `error`, `images`. A deleted subscription is 404; a disabled one is 400.",
          response: testDeliverySchema,
        },
      }),
    },
  },
];
