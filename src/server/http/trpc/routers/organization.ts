import { z } from "zod";
import { createInviteInput } from "@/server/accounts/contract";
import { createInvite, listMembers, listOpenInvites, revokeInvite } from "@/server/accounts/service";
import { serverEnvFrom } from "@/server/env";
import { createTRPCRouter, projectProcedure } from "../trpc";

/** The organization of a project: its members and open invites. */
export const organizationRouter = createTRPCRouter({
  members: projectProcedure.query(({ ctx }) => listMembers(ctx)),

  invites: projectProcedure.query(({ ctx }) => listOpenInvites(ctx)),

  /** The invite link is in this answer only; the token is stored hashed. */
  invite: projectProcedure.input(createInviteInput).mutation(async ({ ctx, input }) => {
    const { url, emailed, invite } = await createInvite(ctx, input, serverEnvFrom().siteUrl);
    return { id: invite.id, email: invite.targetEmail, url, emailed };
  }),

  revokeInvite: projectProcedure
    .input(z.object({ inviteId: z.uuid() }))
    .mutation(({ ctx, input }) => revokeInvite(ctx, input.inviteId)),
});
