/** Request shapes of a dashboard's sharing configuration (REST and tRPC). */
import { z } from "zod";
import { drfBoolean } from "@/server/input/drf";

/** `PATCH …/sharing/`: turn the public link on or off; `settings` is kept as given. */
export const sharingUpdateBody = z
  .object({
    enabled: drfBoolean,
    settings: z.custom<Record<string, unknown> | null>((value) => value === null || (typeof value === "object" && !Array.isArray(value)), "settings must be a dictionary"),
  })
  .partial();
export type SharingUpdateBody = z.output<typeof sharingUpdateBody>;

/** An access token as it may appear in a share link; anything else cannot match. */
export const accessTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{20,100}$/);
