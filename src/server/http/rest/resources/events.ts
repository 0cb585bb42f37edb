import { projectRoute, type RestResource } from "@/server/http/rest/route";
import { eventValuesResponse, listEventsResponse, retrieveEventResponse } from "@/server/events/rest";

export const eventRoutes: RestResource[] = [
  {
    path: "events",
    /** Newest first, filtered; JSON pages or CSV (`format=csv`). */
    methods: { GET: projectRoute("query", async ({ request, db, project }) => listEventsResponse(request, db, project.id)) },
  },
  {
    path: "events/values",
    /** `?key=…`: a property's values, most frequent first. */
    methods: { GET: projectRoute("query", async ({ request, db, project }) => eventValuesResponse(request, db, project.id)) },
  },
  {
    path: "events/:id",
    /** One event by uuid. */
    methods: {
      GET: projectRoute<{ project_id: string; id: string }>("query", async ({ request, db, project, params }) =>
        retrieveEventResponse(request, db, project.id, params.id),
      ),
    },
  },
];
