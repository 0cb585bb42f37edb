/** A dashboard's sharing configuration as PostHog's API shows it (SharingConfigurationSerializer). */
import type { SharingRow } from "./store";

export interface SharingConfigurationResource {
  /** null: no configuration is stored yet (shown to someone who cannot edit; see getDashboardSharing). */
  created_at: string | null;
  enabled: boolean;
  /** null for someone who cannot edit the dashboard while sharing is off. */
  access_token: string | null;
  settings: Record<string, unknown> | null;
}

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
