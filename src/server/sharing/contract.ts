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

/** A dashboard's sharing configuration as PostHog's API shows it (SharingConfigurationSerializer). */
export const sharingConfigurationSchema = z
  .object({
    /** null: no configuration is stored yet (shown to someone who cannot edit). */
    created_at: z.iso.datetime().nullable(),
    enabled: z.boolean(),
    /** The token of the public link `/shared/<access_token>`; null for someone who cannot edit the dashboard while sharing is off. */
    access_token: z.string().nullable(),
    settings: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: "SharingConfiguration" });
export type SharingConfigurationResource = z.infer<typeof sharingConfigurationSchema>;
