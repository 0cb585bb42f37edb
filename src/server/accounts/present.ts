/** How accounts' rows look in answers: PostHog's shapes (snake_case) for the API, and the app's lists. */
import type { z } from "zod";
import type { RecordingSettings } from "@/server/recordings/contract";
import type { projectSchema, UserBasic } from "./contract";

export type { UserBasic } from "./contract";

/** The user columns `toUserBasic` reads: the `select` every store loading a creator or editor uses. */
export const USER_BASIC_COLUMNS = {
  id: true,
  uuid: true,
  distinctId: true,
  firstName: true,
  lastName: true,
  email: true,
  isEmailVerified: true,
  hedgehogConfig: true,
} as const;

export function toUserBasic(user: {
  id: number;
  uuid: string;
  distinctId: string;
  firstName: string;
  lastName: string;
  email: string;
  isEmailVerified: boolean;
  hedgehogConfig: unknown;
}): UserBasic {
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinctId,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    is_email_verified: user.isEmailVerified,
    hedgehog_config: (user.hedgehogConfig as Record<string, unknown> | null) ?? null,
  };
}

/** A project as the management API shows it (PostHog's team/project fields we have). */
export function toProjectResource(project: {
  id: number;
  uuid: string;
  name: string;
  apiToken: string;
  timezone: string;
  anonymizeIps: boolean;
  enrichEvents: boolean;
  testAccountFilters: unknown;
  createdAt: Date;
  updatedAt: Date;
  organization: { id: string };
}, recording: RecordingSettings): z.infer<typeof projectSchema> {
  return {
    id: project.id,
    uuid: project.uuid,
    organization: project.organization.id,
    name: project.name,
    api_token: project.apiToken,
    timezone: project.timezone,
    anonymize_ips: project.anonymizeIps,
    // GeoIP and user-agent properties at ingestion (off: events are stored as sent).
    enrich_events: project.enrichEvents,
    test_account_filters: Array.isArray(project.testAccountFilters) ? project.testAccountFilters : [],
    ...recording,
    created_at: project.createdAt.toISOString(),
    updated_at: project.updatedAt.toISOString(),
  };
}

/** A member as the organization settings list them. */
export function toMember(membership: {
  id: string;
  level: number;
  createdAt: Date;
  user: { id: number; uuid: string; email: string; firstName: string; lastName: string };
}) {
  const { user } = membership;
  return {
    id: membership.id,
    level: membership.level,
    joinedAt: membership.createdAt,
    user: { id: user.id, uuid: user.uuid, email: user.email, firstName: user.firstName, lastName: user.lastName },
  };
}

/** A personal API key as lists show it: never the key, only its mask. */
export function toPersonalApiKeySummary(key: {
  id: string;
  label: string;
  maskValue: string;
  scopes: string[];
  scopedProjects: number[];
  createdAt: Date;
  lastUsedAt: Date | null;
}) {
  return {
    id: key.id,
    label: key.label,
    maskValue: key.maskValue,
    scopes: key.scopes,
    scopedProjects: key.scopedProjects,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
  };
}
