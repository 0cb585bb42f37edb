"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ConfirmDialog } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { dashboardTitle } from "./dashboard-badges";

/** Asks before moving a dashboard to Recently deleted (from the list and from the dashboard itself). */
export function DeleteDashboardDialog({
  projectId,
  dashboard,
  open,
  onClose,
  onDeleted,
}: {
  projectId: number;
  dashboard: { id: number; name: string | null };
  open: boolean;
  onClose: () => void;
  /** After the delete; the caller closes the dialog or leaves the page. */
  onDeleted: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.dashboards.update.mutationOptions({
      onSuccess: () => {
        // The caller may leave the dashboard's page first: refetching it now would only find it gone.
        onDeleted();
        void queryClient.invalidateQueries({ queryKey: trpc.dashboards.list.pathKey() });
      },
    }),
  );
  return (
    <ConfirmDialog
      open={open}
      onCancel={onClose}
      onConfirm={() => remove.mutate({ projectId, dashboardId: dashboard.id, deleted: true })}
      title={`Delete ${dashboardTitle(dashboard.name)}?`}
      description="It moves to Recently deleted, where you can restore it. Its share link stops working until then."
      confirmLabel="Delete dashboard"
      pending={remove.isPending}
      error={remove.isError ? errorMessage(remove.error) : undefined}
      testId="dashboard-delete-dialog"
    />
  );
}
