/** An action as PostHog's API shows it (`ActionSerializer`), from its stored row. */
import { toUserBasic } from "@/server/accounts/present";
import type { ActionResource, ActionStep } from "./contract";
import { selectorRegex } from "./matching";
import type { ActionRow } from "./store";

export type { ActionResource } from "./contract";

/** A stored step (written by the contract) read back. */
export function storedSteps(value: unknown): ActionStep[] {
  return Array.isArray(value) ? (value as ActionStep[]) : [];
}

function selectorRegexOf(selector: string | null): string | null {
  if (selector === null) return null;
  try {
    return selectorRegex(selector);
  } catch {
    return null;
  }
}

export function presentAction(row: ActionRow): ActionResource {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    tags: Array.isArray(row.tags) ? (row.tags as string[]) : [],
    post_to_slack: row.postToSlack,
    slack_message_format: row.slackMessageFormat,
    steps: storedSteps(row.steps).map((step) => ({
      event: step.event ?? null,
      properties: step.properties ?? null,
      selector: step.selector ?? null,
      selector_regex: selectorRegexOf(step.selector ?? null),
      tag_name: step.tag_name ?? null,
      text: step.text ?? null,
      text_matching: step.text_matching ?? null,
      href: step.href ?? null,
      href_matching: step.href_matching ?? null,
      url: step.url ?? null,
      url_matching: step.url_matching ?? (step.url ? "contains" : null),
    })),
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy ? toUserBasic(row.createdBy) : null,
    deleted: row.deleted,
    is_calculating: false,
    last_calculated_at: row.updatedAt.toISOString(),
    team_id: row.projectId,
    is_action: true,
    bytecode_error: null,
    pinned_at: row.pinnedAt?.toISOString() ?? null,
    creation_context: row.creationContext,
    user_access_level: "editor",
  };
}
