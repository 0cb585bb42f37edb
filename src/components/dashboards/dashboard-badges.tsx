import { Badge, LocalTime } from "@/components/ui";
import { RestrictionLevel } from "@/server/access/contract";

/** How a dashboard without a name is shown (PostHog allows a null name). */
export function dashboardTitle(name: string | null): string {
  return name?.trim() || "Untitled dashboard";
}

/** Pinned, restricted and shared markers, and the dashboard's tags. */
export function DashboardBadges({
  dashboard,
  showPinned = true,
}: {
  dashboard: { pinned: boolean; restriction_level: number; is_shared: boolean; tags: string[] };
  showPinned?: boolean;
}) {
  return (
    <span className="flex flex-wrap items-center gap-1.5">
      {showPinned && dashboard.pinned && (
        <Badge tone="brand" data-testid="badge-pinned">
          Pinned
        </Badge>
      )}
      {dashboard.restriction_level >= RestrictionLevel.onlyCollaboratorsCanEdit && (
        <Badge tone="warning" data-testid="badge-restricted">
          Restricted
        </Badge>
      )}
      {dashboard.is_shared && (
        <Badge tone="success" dot data-testid="badge-shared">
          Shared
        </Badge>
      )}
      {dashboard.tags.map((tag) => (
        <Badge key={tag} data-testid="dashboard-tag">
          {tag}
        </Badge>
      ))}
    </span>
  );
}

/** "Created by Ada Lovelace on 3 Feb 2026", or without the name when the creator is gone. */
export function DashboardCreated({ dashboard }: { dashboard: { created_at: string; created_by: { first_name: string; last_name: string; email: string } | null } }) {
  const who = dashboard.created_by;
  const name = who ? [who.first_name, who.last_name].join(" ").trim() || who.email : null;
  return (
    <span>
      {name ? `Created by ${name}` : "Created"} on <LocalTime value={dashboard.created_at} format="date" />
    </span>
  );
}
