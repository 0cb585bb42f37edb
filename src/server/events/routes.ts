import { eventValues, listEvents, retrieveEvent } from "@/server/events/api";
import { projectRoute, type RestResource } from "@/server/rest/route";

export const eventRoutes: RestResource[] = [
  {
    path: "events",
    /** Newest first, filtered; JSON pages or CSV (`format=csv`). */
    methods: { GET: projectRoute("query", async ({ request, db, project }) => listEvents(request, db, project.id)) },
  },
  {
    path: "events/values",
    /** `?key=…`: a property's values, most frequent first. */
    methods: { GET: projectRoute("query", async ({ request, db, project }) => eventValues(request, db, project.id)) },
  },
  {
    path: "events/:id",
    /** One event by uuid. */
    methods: {
      GET: projectRoute<{ project_id: string; id: string }>("query", async ({ request, db, project, params }) =>
        retrieveEvent(request, db, project.id, params.id),
      ),
    },
  },
];
