import { z } from "zod";
import { acceptInviteInput, requestPasswordResetInput, resetPasswordInput, signUpInput } from "@/server/accounts/contract";
import {
  acceptInvite,
  describeInvite,
  describePasswordReset,
  hasAnyUser,
  requestPasswordReset,
  resetPassword,
  signUpFirstUser,
} from "@/server/accounts/service";
import { emailConfigured } from "@/server/email/service";
import { serverEnvFrom } from "@/server/env";
import { createTRPCRouter, publicProcedure } from "../trpc";

/** Before sign-in: first-run sign-up, accepting invites and resetting a forgotten password. */
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

  /** Whether "Forgot password?" can work here (the server sends e-mail). */
  passwordResetAvailable: publicProcedure.query(() => ({ available: emailConfigured() })),

  requestPasswordReset: publicProcedure
    .input(requestPasswordResetInput)
    .mutation(({ ctx, input }) => requestPasswordReset(ctx.db.prisma, input, serverEnvFrom().siteUrl)),

  passwordReset: publicProcedure
    .input(z.object({ token: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => describePasswordReset(ctx.db.prisma, input.token)),

  resetPassword: publicProcedure.input(resetPasswordInput).mutation(({ ctx, input }) => resetPassword(ctx.db.prisma, input)),
});
