/** PostHog's event and property definitions: lists (DRF pages) and one by uuid. */
import { eventDefinitionListQuery, propertyDefinitionListQuery } from "@/server/definitions/contract";
import { getEventDefinition, getPropertyDefinition, listEventDefinitions, listPropertyDefinitions } from "@/server/definitions/service";
import { paginate } from "@/server/http/rest/pagination";
import { projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

export const definitionRoutes: RestResource[] = [
  {
    path: "event_definitions",
    /** `search` (contains, any case), most used in 30 days first. */
    methods: {
      GET: projectRoute("event_definition", async ({ request, ctx, query }) => {
        const parsed = query(eventDefinitionListQuery);
        const { count, results } = await listEventDefinitions(ctx, parsed);
        return paginate(request, parsed, count, results);
      }),
    },
  },
  {
    path: "event_definitions/:id",
    methods: { GET: projectRoute<Params>("event_definition", async ({ ctx, params }) => getEventDefinition(ctx, params.id)) },
  },
  {
    path: "property_definitions",
    /** `search`, `type` (event|person), `event_names`, `filter_by_event_names`, `is_numerical`, `properties`. */
    methods: {
      GET: projectRoute("property_definition", async ({ request, ctx, query }) => {
        const parsed = query(propertyDefinitionListQuery);
        const { count, results } = await listPropertyDefinitions(ctx, parsed);
        return paginate(request, parsed, count, results);
      }),
    },
  },
  {
    path: "property_definitions/:id",
    methods: { GET: projectRoute<Params>("property_definition", async ({ ctx, params }) => getPropertyDefinition(ctx, params.id)) },
  },
];
