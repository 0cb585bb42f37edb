import { recordingListQuery, recordingListSchema, recordingSchema, snapshotSourcesSchema, snapshotsQuery } from "@/server/recordings/contract";
import { deleteRecording, getRecording, listRecordings, recordingSnapshots } from "@/server/recordings/service";
import { projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

/** Session replay's management API (PostHog's `session_recordings` viewset, notes §1.7–1.8). */
export const recordingRoutes: RestResource[] = [
  {
    path: "session_recordings",
    methods: {
      GET: projectRoute("session_recording", async ({ ctx, query }) => listRecordings(ctx, query(recordingListQuery)), {
        doc: {
          summary: "List session recordings",
          description:
            "PostHog's RecordingsQuery fields: `date_from` (default `-3d`), `date_to`, `person_uuid`, `distinct_ids`, `session_ids`, `having_predicates` (JSON: `[{key: duration|active_seconds|…, operator: gt|lt|gte|lte|exact, value}]`), `console_log_filters` (JSON: `[{key: level, value: [error]}]`), `events` (\"events performed\", JSON: `[{id: event name, type: events, properties?: [property filters]}]`, recordings whose session has such an event), `operand`, `order`, `order_direction`, `limit` (50), `offset`. Answers `{results, has_next, version: 4}`.",
          query: recordingListQuery,
          response: recordingListSchema,
        },
      }),
    },
  },
  {
    path: "session_recordings/:id",
    methods: {
      GET: projectRoute<Params>("session_recording", async ({ ctx, params }) => getRecording(ctx, params.id), {
        doc: { summary: "Retrieve a session recording", description: "404 `Recording not found` when no snapshot of the session was stored.", response: recordingSchema },
      }),
      DELETE: projectRoute<Params>(
        "session_recording",
        async ({ ctx, params }) => {
          await deleteRecording(ctx, params.id);
          return null;
        },
        { status: 204, doc: { summary: "Delete a session recording", description: "The recording and its snapshots, at once; 204." } },
      ),
    },
  },
  {
    path: "session_recordings/:id/snapshots",
    methods: {
      GET: projectRoute<Params>(
        "session_recording",
        async ({ ctx, params, query }) => {
          const answer = await recordingSnapshots(ctx, params.id, query(snapshotsQuery));
          if (answer.kind === "sources") return { sources: answer.sources };
          return new Response(answer.jsonl, { status: 200, headers: { "content-type": "application/jsonl", "cache-control": "max-age=3600" } });
        },
        {
          doc: {
            summary: "A session recording's snapshots",
            description:
              "PostHog's current form, in two calls: without `source`, `{sources: [{source: blob_v2, start_timestamp, end_timestamp, blob_key}]}` (one per stored block, keys `0`, `1`, …); then `?source=blob_v2&start_blob_key=i&end_blob_key=j` (at most 100 keys) answers `application/jsonl`, one `[windowId, event]` per line, events as posthog-js sent them (`cv`-packed parts included). A range holding more than 128 MiB of JSONL is a 400 on `end_blob_key` naming the keys that fit (the first key is always served).",
            query: snapshotsQuery,
            response: snapshotSourcesSchema,
            media: { "application/jsonl": "One `[windowId, rrwebEvent]` JSON array per line." },
          },
        },
      ),
    },
  },
];
