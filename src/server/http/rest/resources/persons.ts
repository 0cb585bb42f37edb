import {
  bulkDeleteBody,
  CREATE_NOT_ALLOWED,
  deletePropertyBody,
  parsePersonKey,
  personDeleteQuery,
  personListQuery,
  personUpdateBody,
  updatePropertyBody,
} from "@/server/persons/contract";
import {
  bulkDeletePersons,
  deletePerson,
  deletePersonEvents,
  deletePersonProperty,
  getPerson,
  listPersons,
  personCohorts,
  updatePerson,
  updatePersonProperty,
} from "@/server/persons/service";
import { AppError } from "@/server/errors";
import { offsetLinks } from "@/server/http/rest/pagination";
import { projectRoute, requireScope, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

/** PostHog answers the writes that go through ingestion with 202 and no body. */
const accepted = () => new Response(null, { status: 202 });

/** `PATCH`/`PUT`: a `$set` of `properties`, applied at once; 202 (as PostHog) with the person. */
const updateRoute = projectRoute<Params>("person", async ({ ctx, params, body }) => updatePerson(ctx, parsePersonKey(params.id), await body(personUpdateBody)), { status: 202 });

export const personRoutes: RestResource[] = [
  {
    path: "persons",
    methods: {
      /** Newest first; `distinct_id`, `email`, `search`, `properties`; offset pages with `next`/`previous` and no count. */
      GET: projectRoute("person", async ({ request, ctx, query }) => {
        const input = query(personListQuery);
        const { results, more } = await listPersons(ctx, input);
        return { results, ...offsetLinks(request, input, more) };
      }),
      /** Persons come from events ($identify), never from this API. */
      POST: projectRoute("person", async () => {
        throw new AppError("method_not_allowed", CREATE_NOT_ALLOWED);
      }),
    },
  },
  {
    path: "persons/bulk_delete",
    methods: {
      POST: projectRoute("person", async ({ ctx, body }) => {
        await bulkDeletePersons(ctx, await body(bulkDeleteBody));
        return accepted();
      }),
    },
  },
  {
    path: "persons/:id",
    methods: {
      /** By uuid or integer id; a distinct id here is PostHog's 400. */
      GET: projectRoute<Params>("person", async ({ ctx, params }) => getPerson(ctx, parsePersonKey(params.id))),
      PATCH: updateRoute,
      PUT: updateRoute,
      /** The person and its distinct ids now; with `delete_events`, its events soon after (in the background). */
      DELETE: projectRoute<Params>("person", async ({ ctx, params, query }) => {
        const key = parsePersonKey(params.id);
        await deletePerson(ctx, key, query(personDeleteQuery));
        return accepted();
      }),
    },
  },
  {
    path: "persons/:id/delete_property",
    methods: {
      POST: projectRoute<Params>("person", async ({ ctx, params, body }) => deletePersonProperty(ctx, parsePersonKey(params.id), (await body(deletePropertyBody)).$unset), {
        status: 201,
      }),
    },
  },
  {
    path: "persons/:id/update_property",
    methods: {
      POST: projectRoute<Params>("person", async ({ ctx, params, body }) => {
        const { key, value } = await body(updatePropertyBody);
        await updatePersonProperty(ctx, parsePersonKey(params.id), key, value);
        return accepted();
      }),
    },
  },
  {
    path: "persons/:id/delete_events",
    methods: {
      /** Queues the deletion of the person's events; the person stays. */
      POST: projectRoute<Params>("person", async ({ ctx, params }) => {
        await deletePersonEvents(ctx, parsePersonKey(params.id));
        return accepted();
      }),
    },
  },
  {
    path: "persons/:id/cohorts",
    methods: {
      /** PostHog asks for cohort:read as well as person:read. */
      GET: projectRoute<Params>("person", async (context) => {
        requireScope(context, "cohort");
        return personCohorts(context.ctx, parsePersonKey(context.params.id));
      }),
    },
  },
];
