"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useState } from "react";
import { isAdmin } from "@/components/account/levels";
import { useCurrentProject } from "@/components/account/use-current-project";
import { ProjectGate } from "@/components/settings/project-gate";
import { Button, buttonClasses, Card, EmptyState, ErrorState, LoadingState, PageHeader } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { DashboardBadges, DashboardCreated, dashboardTitle } from "./dashboard-badges";
import { DashboardFiltersBar } from "./dashboard-filters";
import { filtersBody, filtersFromSearch, sameFilters, savedFilters, searchWithFilters, type DashboardFilters } from "./dashboard-filters-state";
import { DashboardFormDialog } from "./dashboard-form-dialog";
import { DeleteDashboardDialog } from "./delete-dashboard-dialog";
import { EditableTiles } from "./editable-tiles";
import { PermissionsDialog } from "./permissions-dialog";
import { ShareDialog } from "./share-dialog";
import { SubscriptionsDialog } from "@/components/subscriptions/subscriptions-dialog";
import type { DashboardData } from "./types";

export function DashboardView({ dashboardId }: { dashboardId: number }) {
  return (
    <div className="flex flex-col gap-6" data-testid="dashboard-page">
      {/* The filters live in the URL (useSearchParams). */}
      <Suspense>
        <ProjectGate testId="dashboard-project">{(project) => <Dashboard projectId={project.id} membershipLevel={project.membershipLevel} dashboardId={dashboardId} />}</ProjectGate>
      </Suspense>
    </div>
  );
}

const isNotFound = (error: unknown) => error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "NOT_FOUND";

function Dashboard({ projectId, membershipLevel, dashboardId }: { projectId: number; membershipLevel: number; dashboardId: number }) {
  const trpc = useTRPC();
  const dashboard = useQuery(trpc.dashboards.get.queryOptions({ projectId, dashboardId }));
  const { me } = useCurrentProject();

  if (dashboard.isPending) {
    return (
      <Card data-testid="dashboard" data-state="loading">
        <LoadingState label="Loading dashboard…" />
      </Card>
    );
  }
  if (dashboard.isError) {
    return isNotFound(dashboard.error) ? (
      <Card data-testid="dashboard" data-state="not-found">
        <EmptyState
          title="Dashboard not found"
          description="It may have been deleted, or it belongs to another project. Deleted dashboards can be restored from the list."
          action={
            <Link href="/dashboards" className={buttonClasses()}>
              All dashboards
            </Link>
          }
        />
      </Card>
    ) : (
      <Card className="p-4" data-testid="dashboard" data-state="error">
        <ErrorState title="Could not load the dashboard" message={errorMessage(dashboard.error)} onRetry={() => void dashboard.refetch()} retrying={dashboard.isRefetching} />
      </Card>
    );
  }
  const canRestrict = dashboard.data.created_by?.id === me.data?.id || isAdmin(membershipLevel);
  return <DashboardLoaded projectId={projectId} dashboard={dashboard.data} canRestrict={canRestrict} />;
}

type Open = null | "edit" | "permissions" | "share" | "subscribe" | "delete" | "duplicate";

function DashboardLoaded({ projectId, dashboard, canRestrict }: { projectId: number; dashboard: DashboardData; canRestrict: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<Open>(null);
  const canEdit = dashboard.user_access_level === "editor";
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.dashboards.pathKey() });
  const pin = useMutation(trpc.dashboards.update.mutationOptions({ onSettled: invalidate }));
  const title = dashboardTitle(dashboard.name);

  // The URL's filters win over the saved ones while it names any (a shared link, a reload, back/forward).
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const params = new URLSearchParams(searchParams.toString());
  const fromUrl = filtersFromSearch(params);
  const saved = savedFilters(dashboard.filters);
  const active = fromUrl ?? saved;
  const temporary = fromUrl !== null && !sameFilters(fromUrl, saved);
  const showFilters = (next: DashboardFilters | null) => router.push(`${pathname}${searchWithFilters(params, next)}`, { scroll: false });
  const saveFilters = useMutation(
    trpc.dashboards.update.mutationOptions({
      onSuccess: async (updated) => {
        queryClient.setQueryData(trpc.dashboards.get.queryKey({ projectId, dashboardId: dashboard.id }), updated);
        await queryClient.invalidateQueries({ queryKey: trpc.dashboards.results.pathKey() });
        router.replace(`${pathname}${searchWithFilters(params, null)}`, { scroll: false });
      },
    }),
  );

  return (
    <div className="flex flex-col gap-6" data-testid="dashboard" data-state="ready" data-id={dashboard.id}>
      <PageHeader
        eyebrow={
          <Link href="/dashboards" className="hover:underline">
            Dashboards
          </Link>
        }
        title={<span data-testid="dashboard-title">{title}</span>}
        description={dashboard.description || undefined}
        actions={
          <>
            <Button variant="secondary" onClick={() => setOpen("subscribe")} data-testid="open-subscriptions">
              Subscribe
            </Button>
            <Button variant="secondary" onClick={() => setOpen("share")} data-testid="open-share">
              Share
            </Button>
            <Button variant="secondary" onClick={() => setOpen("permissions")} data-testid="open-permissions">
              Permissions
            </Button>
            <Button variant="secondary" onClick={() => setOpen("duplicate")} data-testid="open-duplicate">
              Duplicate
            </Button>
            {canEdit && (
              <>
                <Button
                  variant="secondary"
                  aria-pressed={dashboard.pinned}
                  loading={pin.isPending}
                  onClick={() => pin.mutate({ projectId, dashboardId: dashboard.id, pinned: !dashboard.pinned })}
                  data-testid="toggle-pin"
                >
                  {dashboard.pinned ? "Unpin" : "Pin"}
                </Button>
                <Button variant="secondary" onClick={() => setOpen("edit")} data-testid="open-edit">
                  Edit
                </Button>
                <Button variant="danger" onClick={() => setOpen("delete")} data-testid="open-delete">
                  Delete
                </Button>
              </>
            )}
          </>
        }
      />
      <div className="flex flex-col gap-2 text-sm text-gray-600 sm:flex-row sm:flex-wrap sm:items-center sm:gap-x-4">
        <DashboardBadges dashboard={dashboard} />
        <DashboardCreated dashboard={dashboard} />
        {!canEdit && (
          <span className="text-gray-500" data-testid="view-only">
            You can view this dashboard. Its owner, project admins and collaborators can edit it.
          </span>
        )}
      </div>
      {pin.isError && <ErrorState title="Could not pin the dashboard" message={errorMessage(pin.error)} />}

      <DashboardFiltersBar
        active={active}
        temporary={temporary}
        canEdit={canEdit}
        saving={saveFilters.isPending}
        onChange={showFilters}
        onSave={() => saveFilters.mutate({ projectId, dashboardId: dashboard.id, filters: filtersBody(active) })}
        onDiscard={() => showFilters(null)}
      />
      {saveFilters.isError && <ErrorState title="Could not save the filters" message={errorMessage(saveFilters.error)} />}

      <EditableTiles projectId={projectId} dashboard={dashboard} filters={fromUrl} />

      <DashboardFormDialog projectId={projectId} dashboard={dashboard} open={open === "edit"} onClose={() => setOpen(null)} />
      <DashboardFormDialog
        projectId={projectId}
        duplicateOf={dashboard}
        open={open === "duplicate"}
        onClose={() => setOpen(null)}
        onSaved={(copy) => router.push(`/dashboards/${copy.id}`)}
      />
      <PermissionsDialog projectId={projectId} dashboard={dashboard} canRestrict={canRestrict} open={open === "permissions"} onClose={() => setOpen(null)} />
      <ShareDialog projectId={projectId} dashboardId={dashboard.id} canEdit={canEdit} open={open === "share"} onClose={() => setOpen(null)} />
      <SubscriptionsDialog
        projectId={projectId}
        subject={{
          kind: "dashboard",
          dashboardId: dashboard.id,
          name: title,
          insights: dashboard.tiles.flatMap((tile) => (tile.insight ? [{ id: tile.insight.id, name: tile.insight.name || tile.insight.derived_name || "Untitled insight" }] : [])),
        }}
        open={open === "subscribe"}
        onClose={() => setOpen(null)}
      />
      <DeleteDashboardDialog projectId={projectId} dashboard={dashboard} open={open === "delete"} onClose={() => setOpen(null)} onDeleted={() => router.push("/dashboards")} />
    </div>
  );
}
