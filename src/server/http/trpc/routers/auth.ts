import { z } from "zod";
import { acceptInviteInput, signUpInput } from "@/server/accounts/contract";
import { acceptInvite, describeInvite, hasAnyUser, signUpFirstUser } from "@/server/accounts/service";
import { createTRPCRouter, publicProcedure } from "../trpc";

/** Before sign-in: first-run sign-up and accepting invites. */
export const authRouter = createTRPCRouter({
  setupStatus: publicProcedure.query(async ({ ctx }) => ({ needsSetup: !(await hasAnyUser(ctx.db.prisma)) })),

  signUp: publicProcedure.input(signUpInput).mutation(async ({ ctx, input }) => {
    const user = await signUpFirstUser(ctx.db.prisma, input);
    return { email: user.email };
  }),

  invite: publicProcedure
    .input(z.object({ token: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => describeInvite(ctx.db.prisma, input.token)),

  acceptInvite: publicProcedure.input(acceptInviteInput).mutation(async ({ ctx, input }) => {
    const user = await acceptInvite(ctx.db.prisma, input);
    return { email: user.email };
  }),
});
