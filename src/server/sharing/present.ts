/** A dashboard's sharing configuration as PostHog's API shows it (SharingConfigurationSerializer). */
import type { SharingConfigurationResource } from "./contract";
import type { SharingRow } from "./store";

export type { SharingConfigurationResource } from "./contract";

export function sharingResource(row: SharingRow): SharingConfigurationResource {
  return {
    created_at: row.createdAt.toISOString(),
    enabled: row.enabled,
    access_token: row.accessToken,
    settings: (row.settings as Record<string, unknown> | null) ?? null,
  };
}

/** What someone who cannot edit sees before any configuration exists. */
export const noSharing = (): SharingConfigurationResource => ({ created_at: null, enabled: false, access_token: null, settings: null });
