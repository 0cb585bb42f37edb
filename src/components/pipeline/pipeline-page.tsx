"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Button, Card, CardHeader, ConfirmDialog, EmptyState, ErrorState, LoadingState, PageHeader, Spinner } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { ConfigData } from "./types";
import { ConfigDialog } from "./config-dialog";
import { SampleEventPanel } from "./sample-event-panel";
import { TransformationChain } from "./transformation-chain";

export function PipelinePage() {
  return (
    <div className="flex flex-col gap-6" data-testid="pipeline-page">
      <ProjectGate testId="pipeline-project">{(project) => <Pipeline projectId={project.id} />}</ProjectGate>
    </div>
  );
}

type DialogMode = { kind: "create" } | { kind: "edit"; config: ConfigData } | null;

function Pipeline({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const listKey = trpc.transformations.list.queryKey({ projectId });
  const configs = useQuery(trpc.transformations.list.queryOptions({ projectId }));
  const plugins = useQuery(trpc.transformations.plugins.queryOptions({ projectId }));
  const [dialog, setDialog] = useState<DialogMode>(null);
  const [deleting, setDeleting] = useState<ConfigData | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.transformations.pathKey() });
  const rearrange = useMutation(
    trpc.transformations.rearrange.mutationOptions({
      onSuccess: (saved) => queryClient.setQueryData(listKey, saved),
      onError: (error) => setActionError(`Could not save the new order: ${errorMessage(error)}`),
      onSettled: refresh,
    }),
  );
  const toggle = useMutation(
    trpc.transformations.update.mutationOptions({
      onError: (error) => setActionError(`Could not change the transformation: ${errorMessage(error)}`),
      onSettled: refresh,
    }),
  );
  const remove = useMutation(
    trpc.transformations.delete.mutationOptions({
      onSuccess: () => setDeleting(null),
      onSettled: refresh,
    }),
  );

  function reorder(ids: number[]) {
    setActionError(null);
    const current = configs.data ?? [];
    // Show the new order at once; the answer (or the refetch after an error) settles it.
    queryClient.setQueryData(
      listKey,
      ids.map((id, order) => ({ ...current.find((config) => config.id === id)!, order })),
    );
    rearrange.mutate({ projectId, orders: Object.fromEntries(ids.map((id, order) => [String(id), order])) });
  }

  const list = configs.data ?? [];
  const addButton = (
    <Button onClick={() => setDialog({ kind: "create" })} disabled={!plugins.data} data-testid="add-transformation">
      Add transformation
    </Button>
  );

  return (
    <>
      <PageHeader
        eyebrow="Data pipeline"
        title="Transformations"
        description="Change events as they arrive. Enabled transformations run on every event, top to bottom, before it is stored."
        actions={addButton}
      />

      <Card aria-labelledby="chain-title" data-testid="transformations" data-state={configs.isPending ? "loading" : configs.isError ? "error" : list.length === 0 ? "empty" : "ready"}>
        <CardHeader
          titleId="chain-title"
          title="Chain"
          description="Drag a row by its handle to change the order, or focus the handle and use Space and the arrow keys."
          actions={rearrange.isPending ? <Spinner size="sm" label="Saving the order" className="text-brand-600" /> : null}
        />
        {actionError && (
          <div className="px-4 pt-4 sm:px-5">
            <ErrorState title="Something did not save" message={actionError} />
          </div>
        )}
        {configs.isPending ? (
          <LoadingState label="Loading transformations…" />
        ) : configs.isError ? (
          <div className="p-4">
            <ErrorState title="Could not load transformations" message={errorMessage(configs.error)} onRetry={() => void configs.refetch()} retrying={configs.isRefetching} />
          </div>
        ) : list.length === 0 ? (
          <EmptyState
            title="No transformations yet"
            description="Drop noisy events, remove or hash personal data, parse URLs and user agents, add GeoIP — before events are stored."
            action={addButton}
          />
        ) : (
          <TransformationChain
            configs={list}
            onReorder={reorder}
            onToggle={(config, enabled) => {
              setActionError(null);
              toggle.mutate({ projectId, id: config.id, changes: { enabled } });
            }}
            onEdit={(config) => setDialog({ kind: "edit", config })}
            onDelete={setDeleting}
            togglingId={toggle.isPending ? (toggle.variables?.id ?? null) : null}
          />
        )}
      </Card>

      <SampleEventPanel projectId={projectId} chainLength={list.filter((config) => config.enabled).length} />

      <ConfigDialog projectId={projectId} plugins={plugins.data ?? []} mode={dialog} onClose={() => setDialog(null)} />
      <ConfirmDialog
        open={deleting !== null}
        onCancel={() => {
          setDeleting(null);
          remove.reset();
        }}
        onConfirm={() => deleting && remove.mutate({ projectId, id: deleting.id })}
        title={`Delete ${deleting?.name ?? "transformation"}?`}
        description="It stops running at once and leaves the chain. Its history stays in the activity log."
        confirmLabel="Delete"
        pending={remove.isPending}
        error={remove.isError ? errorMessage(remove.error) : null}
        testId="delete-transformation"
      />
    </>
  );
}
