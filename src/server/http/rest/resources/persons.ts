import {
  bulkDeleteBody,
  CREATE_NOT_ALLOWED,
  deletePropertyBody,
  parsePersonKey,
  personCohortSchema,
  personDeleteQuery,
  personListItemSchema,
  personListQuery,
  personSchema,
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
import { offsetPageOf, resultsOf, successSchema } from "@/server/http/openapi/shapes";
import { offsetLinks } from "@/server/http/rest/pagination";
import { projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

/** PostHog answers the writes that go through ingestion with 202 and no body. */
const accepted = () => new Response(null, { status: 202 });

const BY_KEY = "`:id` is the person's uuid or integer id; a distinct id there is PostHog's 400 (list with `?distinct_id=` instead).";

/** `PATCH`/`PUT`: a `$set` of `properties`, applied at once; 202 (as PostHog) with the person. */
const updateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("person", async ({ ctx, params, body }) => updatePerson(ctx, parsePersonKey(params.id), await body(personUpdateBody)), {
    status: 202,
    doc: {
      summary: method === "PATCH" ? "Set a person's properties" : "Set a person's properties (PUT: the same)",
      description: `\`properties\` is a \`$set\`, applied at once; 202 with the person, as PostHog answers. ${BY_KEY}`,
      body: personUpdateBody,
      response: personSchema,
    },
  });

export const personRoutes: RestResource[] = [
  {
    path: "persons",
    methods: {
      GET: projectRoute(
        "person",
        async ({ request, ctx, query }) => {
          const input = query(personListQuery);
          const { results, more } = await listPersons(ctx, input);
          return { results, ...offsetLinks(request, input, more) };
        },
        {
          doc: {
            summary: "List persons",
            description: "Newest first; `distinct_id`, `email`, `search` (name, email, distinct id or uuid), `properties` (JSON property filters). Offset pages with `next`/`previous` and no count, as PostHog's.",
            query: personListQuery,
            response: offsetPageOf(personListItemSchema, "Person"),
          },
        },
      ),
      POST: projectRoute(
        "person",
        async () => {
          throw new AppError("method_not_allowed", CREATE_NOT_ALLOWED);
        },
        { status: 405, doc: { summary: "Create a person (not allowed)", description: "Persons come from events (`$identify`), never from this API: 405 with PostHog's message." } },
      ),
    },
  },
  {
    path: "persons/bulk_delete",
    methods: {
      POST: projectRoute(
        "person",
        async ({ ctx, body }) => {
          await bulkDeletePersons(ctx, await body(bulkDeleteBody));
          return accepted();
        },
        {
          status: 202,
          doc: {
            summary: "Delete persons in bulk",
            description: "Up to 1,000 persons by `distinct_ids` or by `ids` (uuids); `delete_events` also deletes their events, in the background. 202 with no body.",
            body: bulkDeleteBody,
          },
        },
      ),
    },
  },
  {
    path: "persons/:id",
    methods: {
      GET: projectRoute<Params>("person", async ({ ctx, params }) => getPerson(ctx, parsePersonKey(params.id)), {
        doc: { summary: "Retrieve a person", description: BY_KEY, response: personSchema },
      }),
      PATCH: updateRoute("PATCH"),
      PUT: updateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "person",
        async ({ ctx, params, query }) => {
          const key = parsePersonKey(params.id);
          await deletePerson(ctx, key, query(personDeleteQuery));
          return accepted();
        },
        {
          status: 202,
          doc: {
            summary: "Delete a person",
            description: `The person and its distinct ids now; with \`delete_events\` (any value but false, 0, no, off), its events soon after, in the background. 202 with no body. ${BY_KEY}`,
            query: personDeleteQuery,
          },
        },
      ),
    },
  },
  {
    path: "persons/:id/delete_property",
    methods: {
      POST: projectRoute<Params>("person", async ({ ctx, params, body }) => deletePersonProperty(ctx, parsePersonKey(params.id), (await body(deletePropertyBody)).$unset), {
        status: 201,
        doc: { summary: "Remove a person property", description: "`{\"$unset\": \"<key>\"}`; 201 `{\"success\": true}`.", body: deletePropertyBody, response: successSchema },
      }),
    },
  },
  {
    path: "persons/:id/update_property",
    methods: {
      POST: projectRoute<Params>(
        "person",
        async ({ ctx, params, body }) => {
          const { key, value } = await body(updatePropertyBody);
          await updatePersonProperty(ctx, parsePersonKey(params.id), key, value);
          return accepted();
        },
        { status: 202, doc: { summary: "Set one person property", description: "`{key, value}`: one `$set`. 202 with no body.", body: updatePropertyBody } },
      ),
    },
  },
  {
    path: "persons/:id/delete_events",
    methods: {
      POST: projectRoute<Params>(
        "person",
        async ({ ctx, params }) => {
          await deletePersonEvents(ctx, parsePersonKey(params.id));
          return accepted();
        },
        { status: 202, doc: { summary: "Delete a person's events", description: "Queued: the events go in the background; the person stays. 202 with no body." } },
      ),
    },
  },
  {
    path: "persons/:id/cohorts",
    methods: {
      GET: projectRoute<Params>("person", async (context) => personCohorts(context.ctx, parsePersonKey(context.params.id)), {
        alsoRequires: ["cohort"],
        doc: { summary: "List a person's cohorts", description: "The cohorts the person is in. PostHog asks for `cohort:read` as well as `person:read`.", response: resultsOf(personCohortSchema, "PersonCohort") },
      }),
    },
  },
];
