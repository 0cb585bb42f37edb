import { z } from "zod";
import { recordId } from "@/server/input/record-id";
import { changePasswordInput, createPersonalApiKeyInput, createProjectInput } from "@/server/accounts/contract";
import { changePassword } from "@/server/accounts/password-change";
import { createProject, currentProjectId, getProjectForUser, listProjectsForUser, switchProject } from "@/server/accounts/projects";
import { createPersonalApiKey, deletePersonalApiKey, listPersonalApiKeys } from "@/server/accounts/service";
import { getMe } from "@/server/accounts/users";
import { signInThrottle } from "@/server/auth/sign-in";
import { createTRPCRouter, projectProcedure, protectedProcedure } from "../trpc";

/** The signed-in user: who they are, their projects, their personal API keys. */
export const accountRouter = createTRPCRouter({
  me: protectedProcedure.query(async ({ ctx }) => ({
    ...(await getMe(ctx.db.prisma, ctx.user.id)),
    current_project_id: await currentProjectId(ctx.db.prisma, ctx.user),
  })),

  projects: protectedProcedure.query(({ ctx }) => listProjectsForUser(ctx.db.prisma, ctx.user.id)),

  project: projectProcedure.query(({ ctx }) => getProjectForUser(ctx.db.prisma, ctx.user.id, ctx.project.id)),

  switchProject: protectedProcedure
    .input(z.object({ projectId: recordId() }))
    .mutation(({ ctx, input }) => switchProject(ctx.db.prisma, ctx.user.id, input.projectId)),

  createProject: protectedProcedure
    .input(createProjectInput.extend({ organizationId: z.uuid() }))
    .mutation(async ({ ctx, input }) => {
      const project = await createProject(ctx.db.prisma, ctx.user.id, input.organizationId, input);
      await switchProject(ctx.db.prisma, ctx.user.id, project.id);
      return project;
    }),

  /** Ends every session of the user, this one included: the client signs in again with the new password. */
  changePassword: protectedProcedure
    .input(changePasswordInput)
    .mutation(({ ctx, input }) => changePassword(ctx.db.prisma, signInThrottle(), ctx.user.id, input)),

  personalApiKeys: protectedProcedure.query(({ ctx }) => listPersonalApiKeys(ctx.db.prisma, ctx.user.id)),

  /** The key itself is in this answer only; it is stored hashed. */
  createPersonalApiKey: protectedProcedure.input(createPersonalApiKeyInput).mutation(async ({ ctx, input }) => {
    const { key, record } = await createPersonalApiKey(ctx.db.prisma, ctx.user.id, input);
    return { key, id: record.id, maskValue: record.maskValue };
  }),

  deletePersonalApiKey: protectedProcedure
    .input(z.object({ id: z.uuid() }))
    .mutation(({ ctx, input }) => deletePersonalApiKey(ctx.db.prisma, ctx.user.id, input.id)),
});
