import { z } from "zod";
import { recordId } from "@/server/input/record-id";
import { changePasswordInput, createPersonalApiKeyInput, createProjectInput, projectSettingsInput } from "@/server/accounts/contract";
import {
  changePassword,
  createPersonalApiKey,
  createProject,
  currentProjectId,
  deletePersonalApiKey,
  getMe,
  getProjectForUser,
  listPersonalApiKeys,
  listProjectsForUser,
  switchProject,
  updateProjectResource,
} from "@/server/accounts/service";
import { signInThrottle } from "@/server/auth/service";
import { emailConfigured, sendTestEmail } from "@/server/email/service";
import { createTRPCRouter, projectProcedure, protectedProcedure } from "../trpc";

/** The signed-in user: who they are, their projects, their personal API keys. */
export const accountRouter = createTRPCRouter({
  me: protectedProcedure.query(async ({ ctx }) => ({
    ...(await getMe(ctx)),
    current_project_id: await currentProjectId(ctx.db.prisma, ctx.actor),
  })),

  projects: protectedProcedure.query(({ ctx }) => listProjectsForUser(ctx)),

  project: projectProcedure.query(({ ctx }) => getProjectForUser(ctx, ctx.project.id)),

  /** The current project's settings (name, timezone, anonymize_ips, enrich_events): an organization admin's to change. */
  updateProject: projectProcedure
    // The REST PATCH's strict body, with the procedure's own projectId.
    .input(projectSettingsInput.extend({ projectId: recordId() }))
    .mutation(({ ctx, input: { projectId: _, ...settings } }) => updateProjectResource(ctx, settings)),

  switchProject: protectedProcedure
    .input(z.object({ projectId: recordId() }))
    .mutation(({ ctx, input }) => switchProject(ctx, input.projectId)),

  createProject: protectedProcedure
    .input(createProjectInput.extend({ organizationId: z.uuid() }))
    .mutation(async ({ ctx, input }) => {
      const project = await createProject(ctx, input.organizationId, input);
      await switchProject(ctx, project.id);
      return project;
    }),

  /** Ends every session of the user, this one included: the client signs in again with the new password. */
  changePassword: protectedProcedure
    .input(changePasswordInput)
    .mutation(({ ctx, input }) => changePassword(ctx, signInThrottle(), input)),

  /** Whether the server sends e-mail (SMTP_URL and EMAIL_FROM set). */
  emailStatus: protectedProcedure.query(() => ({ configured: emailConfigured() })),

  /** Settings' test button: a test e-mail to the signed-in user's own address. */
  sendTestEmail: protectedProcedure.mutation(({ ctx }) => sendTestEmail(ctx)),

  personalApiKeys: protectedProcedure.query(({ ctx }) => listPersonalApiKeys(ctx)),

  /** The key itself is in this answer only; it is stored hashed. */
  createPersonalApiKey: protectedProcedure.input(createPersonalApiKeyInput).mutation(async ({ ctx, input }) => {
    const { key, record } = await createPersonalApiKey(ctx.db.prisma, ctx.actor.id, input);
    return { key, id: record.id, maskValue: record.maskValue };
  }),

  deletePersonalApiKey: protectedProcedure
    .input(z.object({ id: z.uuid() }))
    .mutation(({ ctx, input }) => deletePersonalApiKey(ctx, input.id)),
});
