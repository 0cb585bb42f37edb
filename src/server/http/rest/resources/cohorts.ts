import type { ZodType } from "zod";
import {
  addPersonsBody,
  COHORT_LIMITS,
  cohortCreateBody,
  cohortListQuery,
  cohortPersonsQuery,
  cohortSchema,
  cohortUpdateBody,
  removePersonBody,
} from "@/server/cohorts/contract";
import {
  addPersonsToStaticCohort,
  cohortPersons,
  createCohort,
  getCohort,
  listCohorts,
  removePersonFromStaticCohort,
  updateCohort,
} from "@/server/cohorts/service";
import { AppError } from "@/server/errors";
import { refuseNul } from "@/server/input/nul";
import { personListItemSchema } from "@/server/persons/contract";
import { pageOf, successSchema } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type OperationDoc, type ProjectRequest, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

const MB = 1024 * 1024;

/** The request body, read no further than `limit` bytes (a larger declared or streamed body is a 400 naming `csv`). */
async function readCapped(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () => new AppError("invalid_input", `The upload is larger than ${limit / MB} MB.`, "csv");
  if (Number(request.headers.get("content-length")) > limit) throw tooLarge();
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/**
 * A create/update body: JSON, or (for a static cohort's CSV) multipart form data with the
 * file in `csv` and the other fields as text (`filters` as JSON text).
 */
async function cohortInput<T>(context: ProjectRequest<unknown>, schema: ZodType<T>): Promise<{ body: T; csv: Uint8Array | null }> {
  const type = context.request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data/i.test(type)) return { body: await context.body(schema), csv: null };
  const bytes = await readCapped(context.request, COHORT_LIMITS.maxCsvBytes + MB);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "content-type": type } }).formData();
  } catch {
    throw new AppError("invalid_input", "Malformed multipart request body.");
  }
  const fields: Record<string, unknown> = {};
  let csv: Uint8Array | null = null;
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") {
      if (name === "filters") {
        try {
          fields.filters = JSON.parse(value);
        } catch {
          throw new AppError("invalid_input", "filters must be JSON.", "filters");
        }
      } else if (name !== "csv") {
        fields[name] = value;
      }
    } else if (name === "csv") {
      if (value.size > COHORT_LIMITS.maxCsvBytes) throw new AppError("invalid_input", `The CSV file is larger than ${COHORT_LIMITS.maxCsvBytes / MB} MB.`, "csv");
      csv = new Uint8Array(await value.arrayBuffer());
    }
  }
  refuseNul(fields);
  const body = schema.parse(fields);
  refuseNul(body);
  return { body, csv };
}

/** A static cohort's members may come as a CSV file instead of JSON. */
const CSV_UPLOAD = {
  "multipart/form-data": "A static cohort's members as a CSV file in `csv`, the other fields as text (`filters` as JSON text). PostHog's column rules: one column headed `person_id` holds uuids, `email` e-mails, anything else distinct ids (the first row as data); several columns: person_id, then distinct_id, then email. At most 20 MB.",
};

const updateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>(
    "cohort",
    async (context) => {
      const { body, csv } = await cohortInput(context, cohortUpdateBody);
      return updateCohort(context.ctx, pathId(context.params.id), body, csv);
    },
    {
      doc: {
        summary: method === "PATCH" ? "Update a cohort" : "Update a cohort (PUT: same partial update)",
        description: "Any writable field. `deleted: true` soft-deletes (refused while an active flag uses the cohort), `false` restores. New `filters` are computed again in the background.",
        body: cohortUpdateBody,
        response: cohortSchema,
        requestMedia: CSV_UPLOAD,
      } satisfies OperationDoc,
    },
  );

export const cohortRoutes: RestResource[] = [
  {
    path: "cohorts",
    methods: {
      GET: projectRoute(
        "cohort",
        async ({ request, ctx, query }) => {
          const parsed = query(cohortListQuery);
          const { count, results } = await listCohorts(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        {
          doc: {
            summary: "List cohorts",
            description: "Live cohorts, newest first; `type` (static or dynamic), `search`, `created_by_id`, `hide_behavioral_cohorts`.",
            query: cohortListQuery,
            response: pageOf(cohortSchema, "Cohort"),
          },
        },
      ),
      POST: projectRoute(
        "cohort",
        async (context) => {
          const { body, csv } = await cohortInput(context, cohortCreateBody);
          return createCohort(context.ctx, body, csv);
        },
        {
          status: 201,
          doc: {
            summary: "Create a cohort",
            description: "A dynamic cohort from `filters` (`{properties: …}`: person properties, other cohorts, behaviour), computed in the background; or a static one (`is_static`) from `_create_static_person_ids` or a CSV upload. 201 with the cohort.",
            body: cohortCreateBody,
            response: cohortSchema,
            requestMedia: CSV_UPLOAD,
          },
        },
      ),
    },
  },
  {
    path: "cohorts/:id",
    methods: {
      GET: projectRoute<Params>("cohort", async ({ ctx, params }) => getCohort(ctx, pathId(params.id)), {
        doc: { summary: "Retrieve a cohort", description: "Deleted cohorts too.", response: cohortSchema },
      }),
      PATCH: updateRoute("PATCH"),
      PUT: updateRoute("PUT"),
      /** PostHog forbids hard deletes (ForbidDestroyModel): 405 with no body, after the usual checks. */
      DELETE: projectRoute<Params>(
        "cohort",
        async ({ ctx, params }) => {
          await getCohort(ctx, pathId(params.id));
          return new Response(null, { status: 405 });
        },
        { status: 405, doc: { summary: "Delete a cohort (not allowed)", description: "PostHog forbids hard deletes: 405 with no body, after the key, scope and existence checks. Soft-delete with `PATCH {\"deleted\": true}`." } },
      ),
    },
  },
  {
    path: "cohorts/:id/persons",
    methods: {
      GET: projectRoute<Params>(
        "cohort",
        async (context) => {
          const parsed = context.query(cohortPersonsQuery);
          const { count, results } = await cohortPersons(context.ctx, pathId(context.params.id), parsed);
          return paginate(context.request, parsed, count, results);
        },
        {
          alsoRequires: ["person"],
          doc: {
            summary: "List a cohort's members",
            description: "PostHog's person list items, by `limit`/`offset`. Needs `person:read` as well as `cohort:read`.",
            query: cohortPersonsQuery,
            response: pageOf(personListItemSchema, "CohortPerson"),
          },
        },
      ),
    },
  },
  {
    path: "cohorts/:id/add_persons_to_static_cohort",
    methods: {
      PATCH: projectRoute<Params>("cohort", async ({ ctx, params, body }) => addPersonsToStaticCohort(ctx, pathId(params.id), await body(addPersonsBody)), {
        doc: { summary: "Add persons to a static cohort", description: "`{\"person_ids\": [<uuid>, …]}` (at most 1,000).", body: addPersonsBody, response: successSchema },
      }),
    },
  },
  {
    path: "cohorts/:id/remove_person_from_static_cohort",
    methods: {
      PATCH: projectRoute<Params>("cohort", async ({ ctx, params, body }) => removePersonFromStaticCohort(ctx, pathId(params.id), await body(removePersonBody)), {
        doc: { summary: "Remove a person from a static cohort", description: "`{\"person_id\": <uuid>}`; 404 when the person is not in the cohort.", body: removePersonBody, response: successSchema },
      }),
    },
  },
];
