/**
 * The first-run check that an install works: one `$pageview` sent for the project through
 * the capture pipeline itself (key lookup, normalisation, transformations, persons, the
 * group-commit writer and whatever enrichment ingestion applies), so that it lands exactly
 * as an SDK's would.
 */
import { v7 as uuidv7 } from "uuid";
import { getProjectForUser } from "@/server/accounts/service";
import type { Context } from "@/server/context";
import { AppError } from "@/server/errors";
import { IngestionError } from "@/server/ingestion/contract";
import { ingestDecoded, ingestionServices } from "@/server/ingestion/service";
import { transformationsFor } from "@/server/transformations/service";
import { TEST_EVENT_LIB, type TestEventInput, type TestEventResult } from "./contract";

export async function sendTestEvent(ctx: Context, input: TestEventInput, now: Date = new Date()): Promise<TestEventResult> {
  const project = await getProjectForUser(ctx, ctx.project.id);
  const uuid = uuidv7({ msecs: now.getTime() });
  // One person per Burrow user, so repeated tests do not inflate the visitor count.
  const distinctId = `burrow-test-${ctx.actor.uuid}`;
  const host = input.origin.replace(/^https?:\/\//, "");
  const event = {
    event: "$pageview",
    uuid,
    distinct_id: distinctId,
    timestamp: now.toISOString(),
    properties: {
      $current_url: `${input.origin}/`,
      $host: host,
      $pathname: "/",
      $session_id: uuidv7({ msecs: now.getTime() }),
      $lib: TEST_EVENT_LIB,
      $process_person_profile: true,
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
