import {
  backfillCreateBody,
  backfillSchema,
  batchExportCreateBody,
  batchExportListQuery,
  batchExportRunSchema,
  batchExportSchema,
  batchExportUpdateBody,
  runListQuery,
} from "@/server/batch-exports/contract";
import {
  cancelBackfill,
  createBackfill,
  createBatchExport,
  deleteBatchExport,
  getBackfill,
  getBatchExport,
  getRun,
  listBackfills,
  listBatchExports,
  listRuns,
  retryRun,
  setPaused,
  updateBatchExport,
} from "@/server/batch-exports/service";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };
type RunParams = Params & { run_id: string };
type BackfillParams = Params & { backfill_id: string };

const updateRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("batch_export", async ({ ctx, params, body }) => updateBatchExport(ctx, params.id, await body(batchExportUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update a batch export" : "Update a batch export (PUT: same partial update)",
      description: "Any writable field; a masked secret in `destination.config` sent back keeps the stored value.",
      body: batchExportUpdateBody,
      response: batchExportSchema,
    },
  });

const pauseRoute = (paused: boolean) =>
  projectRoute<Params>("batch_export", async ({ ctx, params }) => setPaused(ctx, params.id, paused), {
    doc: paused
      ? { summary: "Pause a batch export", description: "No runs are scheduled or run while paused.", response: batchExportSchema }
      : { summary: "Unpause a batch export", description: "The intervals completed while paused get their runs.", response: batchExportSchema },
  });

export const batchExportRoutes: RestResource[] = [
  {
    path: "batch_exports",
    methods: {
      GET: projectRoute(
        "batch_export",
        async ({ request, ctx, query }) => {
          const parsed = query(batchExportListQuery);
          const { count, results } = await listBatchExports(ctx, parsed);
          return paginate(request, parsed, count, results);
        },
        { doc: { summary: "List batch exports", description: "Newest first, each with its 10 latest runs.", query: batchExportListQuery, response: pageOf(batchExportSchema, "BatchExport") } },
      ),
      POST: projectRoute("batch_export", async ({ ctx, body }) => createBatchExport(ctx, await body(batchExportCreateBody)), {
        status: 201,
        doc: {
          summary: "Create a batch export",
          description:
            "The `events` model, `interval` hour or day, to `destination` `{type, config}`: S3 (JSON Lines, gzip), Postgres (rows upserted by uuid) or HTTP (PostHog's `/batch` body). Events are selected by ingestion time; secrets (`aws_secret_access_key`, `password`, `token`) are stored encrypted and shown masked. Addresses outside the public internet are refused unless BURROW_OUTBOUND_ALLOWLIST lists them.",
          body: batchExportCreateBody,
          response: batchExportSchema,
        },
      }),
    },
  },
  {
    path: "batch_exports/:id",
    methods: {
      GET: projectRoute<Params>("batch_export", async ({ ctx, params }) => getBatchExport(ctx, params.id), { doc: { summary: "Retrieve a batch export", description: "With its 10 latest runs.", response: batchExportSchema } }),
      PATCH: updateRoute("PATCH"),
      PUT: updateRoute("PUT"),
      DELETE: projectRoute<Params>(
        "batch_export",
        async ({ ctx, params }) => {
          await deleteBatchExport(ctx, params.id);
          return new Response(null, { status: 204 });
        },
        { status: 204, doc: { summary: "Delete a batch export", description: "Its schedule stops and its waiting runs are cancelled; files already written stay." } },
      ),
    },
  },
  { path: "batch_exports/:id/pause", methods: { POST: pauseRoute(true) } },
  { path: "batch_exports/:id/unpause", methods: { POST: pauseRoute(false) } },
  {
    path: "batch_exports/:id/runs",
    methods: {
      GET: projectRoute<Params>(
        "batch_export",
        async ({ request, ctx, params, query }) => {
          const parsed = query(runListQuery);
          const { count, results } = await listRuns(ctx, params.id, parsed);
          return paginate(request, parsed, count, results);
        },
        { doc: { summary: "A batch export's runs", description: "Newest interval first: status, interval, records, bytes, latest error.", query: runListQuery, response: pageOf(batchExportRunSchema, "BatchExportRun") } },
      ),
    },
  },
  {
    path: "batch_exports/:id/runs/:run_id",
    methods: {
      GET: projectRoute<RunParams>("batch_export", async ({ ctx, params }) => getRun(ctx, params.id, params.run_id), { doc: { summary: "Retrieve a batch export run", description: "By its id.", response: batchExportRunSchema } }),
    },
  },
  {
    path: "batch_exports/:id/runs/:run_id/retry",
    methods: {
      POST: projectRoute<RunParams>("batch_export", async ({ ctx, params }) => retryRun(ctx, params.id, params.run_id), {
        doc: { summary: "Retry a batch export run", description: "Its interval again from the start: the file is rewritten under the same key, rows are upserted. 400 while it runs.", response: batchExportRunSchema },
      }),
    },
  },
  {
    path: "batch_exports/:id/backfills",
    methods: {
      GET: projectRoute<Params>(
        "batch_export",
        async ({ request, ctx, params, query }) => {
          const parsed = query(runListQuery);
          const { count, results } = await listBackfills(ctx, params.id, parsed);
          return paginate(request, parsed, count, results);
        },
        { doc: { summary: "A batch export's backfills", description: "Newest first.", query: runListQuery, response: pageOf(backfillSchema, "BatchExportBackfill") } },
      ),
      POST: projectRoute<Params>("batch_export", async ({ ctx, params, body }) => createBackfill(ctx, params.id, await body(backfillCreateBody)), {
        status: 201,
        doc: {
          summary: "Backfill a past range",
          description: "One run per interval from `start_at` (floored to the interval) to `end_at` (rounded up; default now), completed intervals only, at most 2000.",
          body: backfillCreateBody,
          response: backfillSchema,
        },
      }),
    },
  },
  {
    path: "batch_exports/:id/backfills/:backfill_id",
    methods: {
      GET: projectRoute<BackfillParams>("batch_export", async ({ ctx, params }) => getBackfill(ctx, params.id, params.backfill_id), { doc: { summary: "Retrieve a backfill", description: "By its id.", response: backfillSchema } }),
    },
  },
  {
    path: "batch_exports/:id/backfills/:backfill_id/cancel",
    methods: {
      POST: projectRoute<BackfillParams>("batch_export", async ({ ctx, params }) => cancelBackfill(ctx, params.id, params.backfill_id), {
        doc: { summary: "Cancel a backfill", description: "Its runs not yet done are cancelled.", response: backfillSchema },
      }),
    },
  },
];
