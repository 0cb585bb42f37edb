import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { projectRoute, type RestResource } from "@/server/http/rest/route";
import { surveyCreateBody, surveyListQuery, surveyResultsQuery, surveyResultsSchema, surveySchema, surveyUpdateBody } from "@/server/surveys/contract";
import { createSurvey, deleteSurvey, getSurvey, listSurveys, surveyResults, updateSurvey } from "@/server/surveys/service";

type Params = { project_id: string; id: string };

const updateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("survey", async ({ ctx, params, body }) => updateSurvey(ctx, params.id, await body(surveyUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update a survey" : "Update a survey (PUT: same partial update)",
      description:
        "Any writable field. Launch with `start_date`, stop with `end_date`, `archived: true` archives. `targeting_flag_filters` makes or changes the targeting flag, `remove_targeting_flag` deletes it.",
      body: surveyUpdateBody,
      response: surveySchema,
    },
  });

export const surveyRoutes: RestResource[] = [
  {
    path: "surveys",
    methods: {
      GET: projectRoute(
        "survey",
        async ({ request, ctx, query }) => {
          const parsed = query(surveyListQuery);
          const { count, results } = await listSurveys(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        { doc: { summary: "List surveys", description: "Newest first; `search` by name, `archived` true or false.", query: surveyListQuery, response: pageOf(surveySchema, "Survey") } },
      ),
      POST: projectRoute("survey", async ({ ctx, body }) => createSurvey(ctx, await body(surveyCreateBody)), {
        status: 201,
        doc: {
          summary: "Create a survey",
          description:
            "PostHog's fields: `type` (popover, api, widget, external_survey), `questions` (open, link, rating, single_choice, multiple_choice, with branching), `conditions`, `appearance`, `linked_flag_id`, `targeting_flag_filters`, `start_date` to launch. An internal targeting flag is made with it, which leaves out persons who answered or dismissed the survey.",
          body: surveyCreateBody,
          response: surveySchema,
        },
      }),
    },
  },
  {
    path: "surveys/:id",
    methods: {
      GET: projectRoute<Params>("survey", async ({ ctx, params }) => getSurvey(ctx, params.id), { doc: { summary: "Retrieve a survey", description: "By its uuid.", response: surveySchema } }),
      PATCH: updateRoute("PATCH"),
      PUT: updateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "survey",
        async ({ ctx, params }) => {
          await deleteSurvey(ctx, params.id);
          return new Response(null, { status: 204 });
        },
        { status: 204, doc: { summary: "Delete a survey", description: "Its internal and user targeting flags are deleted with it." } },
      ),
    },
  },
  {
    path: "surveys/:id/stats",
    methods: {
      GET: projectRoute<Params>("survey", async ({ ctx, params, query }) => surveyResults(ctx, params.id, query(surveyResultsQuery)), {
        doc: {
          summary: "A survey's results",
          description:
            "PostHog's `stats` (survey shown, dismissed, sent: counts, unique persons, first and last seen) and `rates`, plus per question: counts, NPS (rating out of 10) or CSAT (out of 5), open answers with the person; and the drop-off from shown to sent. `date_from`, `date_to` (clamped to the survey's dates) and `properties` (person or event filters) narrow it.",
          query: surveyResultsQuery,
          response: surveyResultsSchema,
        },
      }),
    },
  },
];
