/** Request shapes of dashboard collaborators (REST and tRPC): PostHog's fields and messages. */
import { z } from "zod";
import { PrivilegeLevel } from "@/server/access/contract";

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
