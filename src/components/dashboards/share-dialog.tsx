"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Button, cn, CopyField, Dialog, ErrorState, FormAlert, Spinner } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

/**
 * The public link of a dashboard: on or off, copy it, or replace it with a new one (the old
 * link stops working at once). Reading it the first time creates it, switched off.
 */
export function ShareDialog({ projectId, dashboardId, canEdit, open, onClose }: { projectId: number; dashboardId: number; canEdit: boolean; open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Share dashboard"
      description="Anyone with the link can view this dashboard without signing in. They see its name, description and tiles, nothing else of the project."
      testId="share-dialog"
      className="max-w-lg"
      footer={
        <Button variant="secondary" onClick={onClose} data-testid="share-done">
          Done
        </Button>
      }
    >
      {open && <Sharing projectId={projectId} dashboardId={dashboardId} canEdit={canEdit} />}
    </Dialog>
  );
}

function Sharing({ projectId, dashboardId, canEdit }: { projectId: number; dashboardId: number; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const switchId = useId();
  const [confirmingRotate, setConfirmingRotate] = useState(false);
  const config = useQuery(trpc.dashboards.sharing.get.queryOptions({ projectId, dashboardId }));
  const onSuccess = (next: NonNullable<typeof config.data>) => {
    queryClient.setQueryData(trpc.dashboards.sharing.get.queryKey({ projectId, dashboardId }), next);
    void queryClient.invalidateQueries({ queryKey: trpc.dashboards.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.dashboards.get.queryKey({ projectId, dashboardId }) });
  };
  const toggle = useMutation(trpc.dashboards.sharing.update.mutationOptions({ onSuccess }));
  const rotate = useMutation(trpc.dashboards.sharing.refresh.mutationOptions({ onSuccess: (next) => (onSuccess(next), setConfirmingRotate(false)) }));

  if (config.isPending) {
    return (
      <div className="flex items-center gap-2 py-2 text-sm text-gray-600">
        <Spinner size="sm" label={null} /> <span role="status">Loading the share link…</span>
      </div>
    );
  }
  if (config.isError) return <ErrorState title="Could not load the share link" message={errorMessage(config.error)} onRetry={() => void config.refetch()} />;

  const enabled = toggle.isPending ? toggle.variables.enabled === true : config.data.enabled;
  return (
    <div className="flex flex-col gap-4" data-testid="sharing" data-enabled={config.data.enabled}>
      <div className="flex items-center justify-between gap-4 rounded-control border border-gray-200 p-3">
        <span>
          <span id={`${switchId}-label`} className="block text-sm font-medium text-gray-900">
            Share with a public link
          </span>
          <span id={`${switchId}-state`} className="block text-sm text-gray-600">
            {enabled ? "Anyone with the link can view." : "Only members of the project can view."}
          </span>
        </span>
        {/* A button with role="switch": Space and Enter toggle it. */}
        <button
          type="button"
          role="switch"
          aria-checked={enabled}
          aria-labelledby={`${switchId}-label`}
          aria-describedby={`${switchId}-state`}
          disabled={!canEdit || toggle.isPending}
          onClick={() => toggle.mutate({ projectId, dashboardId, enabled: !enabled })}
          data-testid="share-toggle"
          className={cn(
            "relative inline-flex h-6 w-11 shrink-0 rounded-full transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:cursor-not-allowed disabled:opacity-60",
            enabled ? "bg-brand-600" : "bg-gray-300",
          )}
        >
          <span aria-hidden="true" className={cn("absolute top-0.5 size-5 rounded-full bg-white shadow transition-transform", enabled ? "translate-x-5.5" : "translate-x-0.5")} />
        </button>
      </div>
      {!canEdit && <p className="text-sm text-gray-500">Only people who can edit this dashboard can change its sharing.</p>}

      {config.data.enabled && config.data.share_url !== null && (
        <>
          <CopyField label="Share link" value={config.data.share_url} testId="share-url" />
          <a href={config.data.share_url} target="_blank" rel="noreferrer" className="text-sm font-medium text-brand-700 hover:underline" data-testid="share-open">
            Open the shared page
          </a>
        </>
      )}

      {canEdit &&
        (confirmingRotate ? (
          <div className="flex flex-col gap-2 rounded-control bg-amber-50 p-3 ring-1 ring-amber-200 ring-inset" role="group" aria-label="Confirm new link">
            <p className="text-sm text-amber-900">The current link will stop working at once. Anyone who should keep access needs the new one.</p>
            <div className="flex flex-wrap gap-2">
              <Button size="sm" variant="danger" loading={rotate.isPending} onClick={() => rotate.mutate({ projectId, dashboardId })} data-testid="share-rotate-confirm">
                Replace the link
              </Button>
              <Button size="sm" variant="secondary" onClick={() => setConfirmingRotate(false)} disabled={rotate.isPending} autoFocus>
                Cancel
              </Button>
            </div>
          </div>
        ) : (
          <div>
            <Button variant="secondary" size="sm" onClick={() => setConfirmingRotate(true)} data-testid="share-rotate">
              Get a new link…
            </Button>
          </div>
        ))}
      {(toggle.isError || rotate.isError) && <FormAlert>{errorMessage(toggle.error ?? rotate.error)}</FormAlert>}
    </div>
  );
}
