import { z } from "zod";

/** What `system.status` answers: where the data lives and how much of it there is. */
export const systemStatusSchema = z.object({
  /** One line naming the database, without credentials (see describeDb). */
  database: z.string(),
  projects: z.number().int().nonnegative(),
  users: z.number().int().nonnegative(),
});

export type SystemStatus = z.infer<typeof systemStatusSchema>;
