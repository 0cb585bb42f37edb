import { z } from "zod";
import { recordingListInput } from "@/server/recordings/contract";
import { deleteRecording, getRecording, listRecordings, recordingPlayback, recordingSettingsFor, recordingUsage } from "@/server/recordings/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

const recordingId = z.object({ id: z.string().min(1).max(200) });

/** The Replay page: the same contracts and services as the REST resource. */
export const recordingsRouter = createTRPCRouter({
  list: projectProcedure.input(recordingListInput).query(({ ctx, input }) => listRecordings(ctx, input)),
  get: projectProcedure.input(recordingId).query(({ ctx, input }) => getRecording(ctx, input.id)),
  /** Everything the player needs: the recording and its events, unpacked, in time order. */
  playback: projectProcedure.input(recordingId).query(({ ctx, input }) => recordingPlayback(ctx, input.id)),
  delete: projectProcedure.input(recordingId).mutation(async ({ ctx, input }) => {
    await deleteRecording(ctx, input.id);
    return { success: true };
  }),
  /** The project's recording settings (changed through account.updateProject, as the REST PATCH). */
  settings: projectProcedure.query(({ ctx }) => recordingSettingsFor(ctx.db, ctx.project.id)),
  /** Bytes used against the budget, bytes per recorded minute. */
  usage: projectProcedure.query(({ ctx }) => recordingUsage(ctx)),
});
