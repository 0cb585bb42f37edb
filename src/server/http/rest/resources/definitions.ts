/** PostHog's event and property definitions: lists (DRF pages) and one by uuid. */
import {
  eventDefinitionListQuery,
  eventDefinitionSchema,
  propertyDefinitionListQuery,
  propertyDefinitionSchema,
} from "@/server/definitions/contract";
import { getEventDefinition, getPropertyDefinition, listEventDefinitions, listPropertyDefinitions } from "@/server/definitions/service";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

export const definitionRoutes: RestResource[] = [
  {
    path: "event_definitions",
    methods: {
      GET: projectRoute(
        "event_definition",
        async ({ request, ctx, query }) => {
          const parsed = query(eventDefinitionListQuery);
          const { count, results } = await listEventDefinitions(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        {
          doc: {
            summary: "List event definitions",
            description: "The event names the project has seen, most used in 30 days first; `search` matches part of the name (any case).",
            query: eventDefinitionListQuery,
            response: pageOf(eventDefinitionSchema, "EventDefinition"),
          },
        },
      ),
    },
  },
  {
    path: "event_definitions/:id",
    methods: {
      GET: projectRoute<Params>("event_definition", async ({ ctx, params }) => getEventDefinition(ctx, params.id), {
        doc: { summary: "Retrieve an event definition", description: "By its uuid.", response: eventDefinitionSchema },
      }),
    },
  },
  {
    path: "property_definitions",
    methods: {
      GET: projectRoute(
        "property_definition",
        async ({ request, ctx, query }) => {
          const parsed = query(propertyDefinitionListQuery);
          const { count, results } = await listPropertyDefinitions(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        {
          doc: {
            summary: "List property definitions",
            description:
              "Event or person properties (`type`), with their inferred type; `search`, `event_names` (JSON list: `is_seen_on_filtered_events` says whether each was seen on one of them), `filter_by_event_names`, `is_numerical`, `properties` (comma-separated names).",
            query: propertyDefinitionListQuery,
            response: pageOf(propertyDefinitionSchema, "PropertyDefinition"),
          },
        },
      ),
    },
  },
  {
    path: "property_definitions/:id",
    methods: {
      GET: projectRoute<Params>("property_definition", async ({ ctx, params }) => getPropertyDefinition(ctx, params.id), {
        doc: { summary: "Retrieve a property definition", description: "By its uuid.", response: propertyDefinitionSchema },
      }),
    },
  },
];
