/** Request shapes of dashboard collaborators (REST and tRPC): PostHog's fields and messages. */
import { z } from "zod";
import { PrivilegeLevel } from "@/server/access/contract";
import { userBasicSchema } from "@/server/accounts/contract";

const PRIVILEGE_LEVELS: readonly number[] = Object.values(PrivilegeLevel);

/** `POST …/collaborators/`: who, and at which level (only 37, "can edit", is accepted). */
export const addCollaboratorBody = z.object({
  user_uuid: z.uuid({ error: (issue) => (issue.input === undefined ? "This field is required." : "Must be a valid UUID.") }),
  level: z
    .union([z.number(), z.string()], { error: (issue) => (issue.input === undefined ? "This field is required." : `"${String(issue.input)}" is not a valid choice.`) })
    .transform((value, ctx) => {
      const level = Number(value);
      if ((typeof value === "string" && !/^\d+$/.test(value)) || !PRIVILEGE_LEVELS.includes(level)) {
        ctx.addIssue({ code: "custom", message: `"${String(value)}" is not a valid choice.` });
        return z.NEVER;
      }
      return level;
    }),
});
export type AddCollaboratorBody = z.output<typeof addCollaboratorBody>;

/** A collaborator as PostHog's API shows it (DashboardCollaboratorSerializer). */
export const collaboratorSchema = z
  .object({
    id: z.string(),
    dashboard_id: z.number().int(),
    user: userBasicSchema,
    level: z.number().int().describe("37: can edit."),
    added_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "DashboardCollaborator" });
export type CollaboratorResource = z.infer<typeof collaboratorSchema>;
