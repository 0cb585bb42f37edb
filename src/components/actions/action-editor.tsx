"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, Card, ConfirmDialog, ErrorState, FormAlert, LoadingState, PageHeader } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { ActionResource } from "@/server/actions/present";
import { draftFromEvent, draftOf, emptyDraft, stepOf, type ActionDraft } from "./action-draft";
import { ActionMatches, StepsEditor } from "./action-steps";

const backLink = (
  <Link href="/actions" className="hover:underline">
    Actions
  </Link>
);

/** `/actions/new`, prefilled from an event when the events explorer sends one (`?event=…&url=…&elements_chain=…`). */
export function NewActionPage() {
  const router = useRouter();
  const params = useSearchParams();
  const event = params.get("event");
  const initial = event ? draftFromEvent({ event, url: params.get("url"), elementsChain: params.get("elements_chain") }) : emptyDraft();
  return (
    <div className="flex flex-col gap-6" data-testid="new-action-page">
      <PageHeader eyebrow={backLink} title="New action" description={event ? `From a ${event} event: adjust what it should match, then save.` : undefined} />
      <ProjectGate testId="action-project">{(project) => <ActionForm projectId={project.id} initial={initial} onSaved={(action) => router.push(`/actions/${action.id}`)} />}</ProjectGate>
    </div>
  );
}

/** `/actions/:id`: edit its steps, see what it matched, delete. */
export function ActionEditorPage({ id }: { id: number }) {
  return (
    <div className="flex flex-col gap-6" data-testid="action-page">
      <ProjectGate testId="action-project">{(project) => <ActionEditor projectId={project.id} id={id} />}</ProjectGate>
    </div>
  );
}

function ActionEditor({ projectId, id }: { projectId: number; id: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const action = useQuery(trpc.actions.get.queryOptions({ projectId, id }));
  const [confirming, setConfirming] = useState(false);
  const [saved, setSaved] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.actions.pathKey() });
  const remove = useMutation(
    trpc.actions.delete.mutationOptions({
      onSuccess: async () => {
        await refresh();
        router.push("/actions");
      },
    }),
  );
  if (action.isPending) {
    return (
      <Card data-state="loading">
        <LoadingState label="Loading action…" />
      </Card>
    );
  }
  if (action.isError) {
    return (
      <>
        <PageHeader eyebrow={backLink} title="Action" />
        <Card className="p-4" data-state="error">
          <ErrorState title="Could not load this action" message={errorMessage(action.error)} onRetry={() => void action.refetch()} retrying={action.isRefetching} />
        </Card>
      </>
    );
  }
  const current = action.data;
  return (
    <>
      <PageHeader
        eyebrow={backLink}
        title={<span className="break-words">{current.name}</span>}
        description={current.description || undefined}
        actions={
          current.deleted ? (
            <Badge tone="danger">Deleted</Badge>
          ) : (
            <Button variant="secondary" onClick={() => setConfirming(true)} data-testid="action-delete">
              Delete
            </Button>
          )
        }
      />
      {saved && (
        <p role="status" className="text-sm text-emerald-700" data-testid="action-saved">
          Saved
        </p>
      )}
      <div className="grid items-start gap-4 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <ActionForm
          key={current.id}
          projectId={projectId}
          initial={draftOf(current)}
          existing={current}
          onSaved={async () => {
            await refresh();
            // The match count is a query over the action's steps: count again.
            await queryClient.invalidateQueries({ queryKey: trpc.query.pathKey() });
            setSaved(true);
          }}
        />
        <ActionMatches projectId={projectId} action={current} />
      </div>
      <ConfirmDialog
        open={confirming}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate({ projectId, id: current.id })}
        title={`Delete “${current.name}”?`}
        description="Insights and surveys that use it stop matching events. Its name becomes free for a new action."
        confirmLabel="Delete action"
        pending={remove.isPending}
        error={remove.error ? errorMessage(remove.error) : null}
        testId="action-delete-dialog"
      />
    </>
  );
}

function ActionForm({ projectId, initial, existing, onSaved }: { projectId: number; initial: ActionDraft; existing?: ActionResource; onSaved: (action: ActionResource) => void | Promise<void> }) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState(initial);
  const create = useMutation(trpc.actions.create.mutationOptions());
  const update = useMutation(trpc.actions.update.mutationOptions());
  const pending = create.isPending || update.isPending;
  const error = create.error ?? update.error;
  const submit = async () => {
    const body = { name: draft.name, description: draft.description, steps: draft.steps.map(stepOf) };
    try {
      const saved = existing ? await update.mutateAsync({ projectId, id: existing.id, patch: body }) : await create.mutateAsync({ projectId, action: body });
      await onSaved(saved);
    } catch {
      // Shown below from the mutation's error.
    }
  };
  return (
    <form
      className="flex min-w-0 flex-col gap-4"
      data-testid="action-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Card className="flex flex-col gap-4 p-4">
        <label className="flex flex-col gap-1 text-sm font-medium text-gray-800">
          Name
          <input
            className="rounded-md border border-gray-300 px-3 py-2 text-sm font-normal focus-visible:outline-2 focus-visible:outline-brand-600"
            value={draft.name}
            required
            maxLength={400}
            onChange={(event) => setDraft({ ...draft, name: event.target.value })}
            data-testid="action-name"
          />
        </label>
        <label className="flex flex-col gap-1 text-sm font-medium text-gray-800">
          Description <span className="text-xs font-normal text-gray-500">optional</span>
          <input
            className="rounded-md border border-gray-300 px-3 py-2 text-sm font-normal focus-visible:outline-2 focus-visible:outline-brand-600"
            value={draft.description}
            maxLength={2000}
            onChange={(event) => setDraft({ ...draft, description: event.target.value })}
            data-testid="action-description"
          />
        </label>
      </Card>
      <StepsEditor steps={draft.steps} onChange={(steps) => setDraft({ ...draft, steps })} />
      {error && <FormAlert testId="action-error">{errorMessage(error)}</FormAlert>}
      <div className="flex gap-2">
        <Button type="submit" loading={pending} data-testid="action-save">
          {existing ? "Save" : "Create action"}
        </Button>
        {!existing && (
          <Link href="/actions" className="inline-flex items-center px-3 text-sm text-gray-700 hover:underline">
            Cancel
          </Link>
        )}
      </div>
    </form>
  );
}
