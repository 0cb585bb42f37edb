import { z } from "zod";

/** Longest accepted event name and distinct id, in characters (documented in the README). */
export const MAX_EVENT_NAME_LENGTH = 200;
export const MAX_DISTINCT_ID_LENGTH = 200;

const jsonObject = z.record(z.string(), z.unknown());

/**
 * One event as the SDKs send it. Loose on purpose: unknown keys are kept out of the way,
 * and checks that decide whether an event is kept happen in `validateEvent`, so one bad
 * event of a batch can be reported by index instead of failing the request.
 */
export const rawEventSchema = z.looseObject({
  event: z.unknown().optional(),
  distinct_id: z.unknown().optional(),
  $distinct_id: z.unknown().optional(),
  properties: z.unknown().optional(),
  timestamp: z.unknown().optional(),
  offset: z.unknown().optional(),
  uuid: z.unknown().optional(),
  $set: z.unknown().optional(),
  $set_once: z.unknown().optional(),
  api_key: z.unknown().optional(),
  token: z.unknown().optional(),
  $token: z.unknown().optional(),
});
export type RawEvent = z.infer<typeof rawEventSchema>;

/** `{api_key, batch: [...], sent_at?, historical_migration?}`: server SDKs and posthog-js. */
export const batchBodySchema = z.looseObject({
  batch: z.array(z.unknown()),
  api_key: z.unknown().optional(),
  token: z.unknown().optional(),
  sent_at: z.unknown().optional(),
  historical_migration: z.unknown().optional(),
});

export const eventPropertiesSchema = jsonObject;

/**
 * What the edge's body decoding (`http/body/decode.ts`) hands the pipeline: every encoding
 * the SDKs use, undone, down to one JSON value.
 */
export interface DecodedRequest {
  payload: unknown;
  /** `sent_at` from the query (`sent_at` or `_`, in ms), if given. */
  querySentAt: Date | null;
  /** The body's form fields or query, for the project key of form posts. */
  formToken: string | null;
}

/** An event that passed validation, normalised for the pipeline. */
export interface IngestEvent {
  uuid: string;
  event: string;
  distinctId: string;
  properties: Record<string, unknown>;
  timestamp: Date;
  historicalMigration: boolean;
}

export interface EventProblem {
  index: number;
  detail: string;
}

/**
 * A project's enabled transformations, in order, run over a request's events. The pipeline
 * only knows this hook; the transformations domain provides it and the edge passes it in,
 * so ingestion depends on no transformation code.
 */
export interface TransformChain {
  /** The configs that run, in order. */
  readonly configIds: readonly number[];
  /** The events kept, changed. */
  run(events: IngestEvent[]): IngestEvent[];
}

/** The transformation chain of a project (none until transformations exist). */
export type TransformationsFor = (projectId: number) => Promise<TransformChain>;

/**
 * An ingestion request that cannot be accepted. Answered with a JSON body
 * `{type, code, detail, attr}` like the management API, and never with a 5xx.
 */
export class IngestionError extends Error {
  override name = "IngestionError";
  constructor(
    readonly status: 400 | 401 | 413 | 503,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const invalidPayload = (detail: string) => new IngestionError(400, "invalid_payload", detail);
