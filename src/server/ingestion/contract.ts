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
