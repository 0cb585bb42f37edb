/**
 * The REST edge of the events API: reads the query string into the service's typed
 * queries (events-query.ts) and turns its answers into PostHog's shapes — `next` as an
 * absolute URL on SITE_URL (this request's, with the cursor or offset moved on) and CSV
 * responses.
 */
import { serverEnvFrom } from "@/server/env";
import { AppError } from "@/server/errors";
import { z } from "zod";
import { canonicalUuid, eventListParams, eventPageSchema, eventSchema, eventSelectPageSchema, eventValuesParams, eventValuesSchema } from "@/server/events/contract";
import { eventCsv, eventValues, getEvent, listEvents, type EventListNext } from "@/server/events/service";
import { projectRoute, type RestResource } from "@/server/http/rest/route";
import { parseListQuery, parseValuesQuery } from "./events-query";
import { narrowToAction } from "@/server/actions/service";

const CSV_TYPE = "text/csv; charset=utf-8";

/** `format` of one event: its JSON, or the CSV export's header and its record. */
const eventFormatQuery = z.object({ format: z.enum(["json", "csv"]).optional() });

/**
 * `next`: this request's URL on SITE_URL with `before` set to the last row's timestamp
 * (offset dropped: the cursor replaces it) and `before_uuid` when the next row has the same
 * timestamp; aggregated `select` rows move the offset on instead.
 */
function nextLink(request: Request, next: EventListNext): string | null {
  if (!next) return null;
  const url = new URL(request.url);
  const link = new URL(url.pathname + url.search, serverEnvFrom().siteUrl);
  if ("offset" in next) {
    link.searchParams.set("offset", String(next.offset));
    return link.toString();
  }
  link.searchParams.set("before", next.before.toISOString());
  link.searchParams.delete("offset");
  if (next.beforeUuid) link.searchParams.set("before_uuid", next.beforeUuid);
  else link.searchParams.delete("before_uuid");
  return link.toString();
}

export const eventRoutes: RestResource[] = [
  {
    path: "events",
    methods: {
      GET: projectRoute(
        "query",
        async ({ request, ctx }) => {
          const now = new Date();
          const { actionId, ...query } = parseListQuery(new URL(request.url), request.headers.get("accept"), now);
          const answer = await listEvents(ctx, await narrowToAction(ctx, actionId, query), now);
          switch (answer.kind) {
            case "csv":
              return new Response(answer.body, {
                status: 200,
                headers: { "content-type": CSV_TYPE, "content-disposition": 'attachment; filename="events.csv"', "cache-control": "no-store" },
              });
            case "select":
              return { columns: answer.columns, types: answer.types, results: answer.results, next: nextLink(request, answer.next) };
            case "events":
              return { next: nextLink(request, answer.next), results: answer.results };
          }
        },
        {
          doc: {
            summary: "List events",
            description: [
              "Newest first. Filters: `event`, `distinct_id`, `person_id` (uuid or integer id), `after`/`before` (ISO 8601, a relative time such as `-7d`, or `now`), `properties` (a JSON list of PostHog property filters).",
              "Pages: `limit` (default 100, at most 1000) and `next`, a cursor link (`before` and `before_uuid`); `offset` also works.",
              "`select` (a JSON list of HogQL expressions, aggregates allowed) and `where` (a JSON list of HogQL conditions) answer rows of values instead of events.",
              "`format=csv` (or `Accept: text/csv`) streams the events as CSV (default 3,500 rows, at most 100,000). `action_id` narrows to the events an action matches; `orderBy` takes only `[\"-timestamp\"]`.",
            ].join("\n\n"),
            query: eventListParams,
            response: z.union([eventPageSchema, eventSelectPageSchema]).meta({ id: "EventList" }),
            media: { "text/csv": "`format=csv`: columns id, distinct_id, event, timestamp, person_id, properties (JSON)." },
          },
        },
      ),
    },
  },
  {
    path: "events/values",
    methods: {
      GET: projectRoute("query", async ({ request, ctx }) => eventValues(ctx, parseValuesQuery(new URL(request.url))), {
        doc: {
          summary: "List a property's values",
          description: "`key` (required): the event property whose values to list, most frequent first among the newest events that have it; `value` keeps those starting with it, `event_name` those of one event.",
          query: eventValuesParams,
          response: eventValuesSchema,
        },
      }),
    },
  },
  {
    path: "events/:id",
    methods: {
      GET: projectRoute<{ project_id: string; id: string }>(
        "query",
        async ({ request, ctx, params }) => {
          if (!canonicalUuid(params.id)) throw new AppError("invalid_input", "Invalid UUID", "id");
          const format = new URL(request.url).searchParams.get("format");
          if (format !== null && format !== "json" && format !== "csv") throw new AppError("invalid_input", "format must be 'json' or 'csv'.", "format");
          if (format === "csv") return new Response(await eventCsv(ctx, params.id), { status: 200, headers: { "content-type": CSV_TYPE } });
          return getEvent(ctx, params.id);
        },
        {
          doc: {
            summary: "Retrieve an event",
            description: "By its uuid (dashes optional); `format=csv` answers it as a CSV record under the export's header.",
            query: eventFormatQuery,
            response: eventSchema,
            media: { "text/csv": "The export's header and this event's record." },
          },
        },
      ),
    },
  },
];
