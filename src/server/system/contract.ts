import { z } from "zod";

/** What `system.status` answers: where the data lives and how much of it there is. */
export const systemStatusSchema = z.object({
  /**
   * One line naming the database, without credentials (see describeDb), for organization
   * admins and owners; null for other members, to whom the server's data path is none of
   * their business (it helps an attacker, not a member).
   */
  database: z.string().nullable(),
  projects: z.number().int().nonnegative(),
  users: z.number().int().nonnegative(),
});

export type SystemStatus = z.infer<typeof systemStatusSchema>;
