/**
 * The first-run check that an install works: one event sent for the project through the
 * capture pipeline itself (key lookup, normalisation, transformations, the group-commit
 * writer and whatever enrichment ingestion applies), so that it lands as an SDK's would —
 * but as `$test_event` (db/events/test-event.ts), marked `$test`, without a person profile or
 * a session: it shows in the events list and ends the install state, and no analytics
 * (insights, /web, persons, cohorts, flag reach) counts it.
 */
import { v7 as uuidv7 } from "uuid";
import { getProjectForUser } from "@/server/accounts/service";
import type { Context } from "@/server/context";
import { TEST_EVENT } from "@/server/db/events";
import { AppError } from "@/server/errors";
import { IngestionError } from "@/server/ingestion/contract";
import { ingestDecoded, ingestionServices } from "@/server/ingestion/service";
import { transformationsFor } from "@/server/transformations/service";
import { TEST_EVENT_LIB, type TestEventInput, type TestEventResult } from "./contract";

export async function sendTestEvent(ctx: Context, input: TestEventInput, now: Date = new Date()): Promise<TestEventResult> {
  const project = await getProjectForUser(ctx, ctx.project.id);
  const uuid = uuidv7({ msecs: now.getTime() });
  // One id per Burrow user (no person is made for it).
  const distinctId = `burrow-test-${ctx.actor.uuid}`;
  const host = input.origin.replace(/^https?:\/\//, "");
  const event = {
    event: TEST_EVENT,
    uuid,
    distinct_id: distinctId,
    timestamp: now.toISOString(),
    properties: {
      $current_url: `${input.origin}/`,
      $host: host,
      $pathname: "/",
      $lib: TEST_EVENT_LIB,
      $test: true,
      $process_person_profile: false,
    },
  };
  let result;
  try {
    result = await ingestDecoded(
      ingestionServices(ctx.db),
      { payload: { api_key: project.apiToken, batch: [event] }, querySentAt: null, formToken: null },
      { path: "batch", ip: null, now },
      transformationsFor(ctx.db),
    );
  } catch (error) {
    // Capture's own refusals are the caller's to read; anything else is a server failure.
    if (error instanceof IngestionError && error.status < 500) throw new AppError("invalid_input", error.message);
    throw error;
  }
  // A transformation may drop it: say so rather than wait for an event that never comes.
  if (result.stored === 0) throw new AppError("invalid_input", "The test event was dropped by one of the project's transformations.");
  return { uuid, event: event.event, distinctId, timestamp: event.timestamp };
}
