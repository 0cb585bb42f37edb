"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, Card, CodeBlock, ConfirmDialog, ErrorState, formatDateTime, LoadingState, PageHeader } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { FlagResource } from "@/server/flags/present";
import { ActiveSwitch } from "./active-switch";
import { draftOf, editableInForm, EMPTY_DRAFT } from "./flag-draft";
import { FlagForm } from "./flag-form";
import { FlagTestBox } from "./flag-test-box";

const backLink = (
  <Link href="/feature-flags" className="hover:underline">
    Feature flags
  </Link>
);

/** `/feature-flags/new`. */
export function NewFlagPage() {
  const router = useRouter();
  return (
    <div className="flex flex-col gap-6" data-testid="new-flag-page">
      <PageHeader eyebrow={backLink} title="New feature flag" />
      <ProjectGate testId="flag-project">
        {(project) => <FlagForm projectId={project.id} initial={EMPTY_DRAFT} onSaved={(flag) => router.push(`/feature-flags/${flag.id}`)} />}
      </ProjectGate>
    </div>
  );
}

/** `/feature-flags/:id`: the flag's form, its switch, "test for a user" and delete. */
export function FlagEditorPage({ id }: { id: number }) {
  return (
    <div className="flex flex-col gap-6" data-testid="flag-page">
      <ProjectGate testId="flag-project">{(project) => <FlagEditor projectId={project.id} id={id} />}</ProjectGate>
    </div>
  );
}

function FlagEditor({ projectId, id }: { projectId: number; id: number }) {
  const trpc = useTRPC();
  const flag = useQuery(trpc.flags.get.queryOptions({ projectId, id }));

  if (flag.isPending) {
    return (
      <Card data-state="loading">
        <LoadingState label="Loading flag…" />
      </Card>
    );
  }
  if (flag.isError) {
    return (
      <>
        <PageHeader eyebrow={backLink} title="Feature flag" />
        <Card className="p-4" data-state="error">
          <ErrorState title="Could not load this flag" message={errorMessage(flag.error)} onRetry={() => void flag.refetch()} retrying={flag.isRefetching} />
        </Card>
      </>
    );
  }
  return <LoadedFlag projectId={projectId} flag={flag.data} />;
}

function LoadedFlag({ projectId, flag }: { projectId: number; flag: FlagResource }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.flags.pathKey() });
  const toggle = useMutation(trpc.flags.update.mutationOptions({ onSettled: refresh }));
  const remove = useMutation(
    trpc.flags.delete.mutationOptions({
      onSuccess: async () => {
        await refresh();
        router.push("/feature-flags");
      },
    }),
  );

  return (
    <>
      <PageHeader
        eyebrow={backLink}
        title={<span className="font-mono break-all">{flag.key}</span>}
        description={flag.name || undefined}
        actions={
          flag.deleted ? (
            <Badge tone="danger">Deleted</Badge>
          ) : (
            <>
              <ActiveSwitch
                flagKey={flag.key}
                active={toggle.isPending ? toggle.variables.patch.active === true : flag.active}
                pending={toggle.isPending}
                onChange={(active) => toggle.mutate({ projectId, id: flag.id, patch: { active } })}
              />
              <Button variant="secondary" onClick={() => setConfirming(true)} data-testid="flag-delete">
                Delete
              </Button>
            </>
          )
        }
      />
      {toggle.isError && (
        <p role="alert" className="text-sm text-red-700">
          {errorMessage(toggle.error)}
        </p>
      )}
      {savedAt !== null && (
        <p role="status" className="text-sm text-emerald-700" data-testid="flag-saved">
          Saved · version {flag.version}
        </p>
      )}

      <div className="grid items-start gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0">
          {editableInForm(flag) ? (
            <FlagForm key={flag.id} projectId={projectId} flag={flag} initial={draftOf(flag)} onSaved={() => setSavedAt(Date.now())} />
          ) : (
            <Card className="flex flex-col gap-3 p-4 sm:p-5">
              <h2 className="text-base font-semibold text-gray-900">Release conditions</h2>
              <p className="text-sm text-gray-600">This flag uses group or flag conditions (or a negated cohort), which this form does not edit yet. Change it through the API; its filters are:</p>
              <CodeBlock title="filters" code={JSON.stringify(flag.filters, null, 2)} />
            </Card>
          )}
        </div>
        <div className="flex min-w-0 flex-col gap-4">
          {!flag.deleted && <FlagTestBox projectId={projectId} flagId={flag.id} />}
          <FlagHistory projectId={projectId} flagId={flag.id} />
        </div>
      </div>

      <ConfirmDialog
        open={confirming}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate({ projectId, id: flag.id })}
        title={`Delete ${flag.key}?`}
        description="SDKs stop receiving it at once and its key becomes free for a new flag. The flag stays in the activity history."
        confirmLabel="Delete flag"
        pending={remove.isPending}
        error={remove.isError ? errorMessage(remove.error) : null}
        testId="flag-delete-dialog"
      />
    </>
  );
}

/** Who changed the flag and which fields, newest first (the activity log). */
function FlagHistory({ projectId, flagId }: { projectId: number; flagId: number }) {
  const trpc = useTRPC();
  // Every write invalidates all flags.* queries, this one included.
  const history = useQuery(trpc.flags.activity.queryOptions({ projectId, id: flagId }));
  return (
    <Card className="flex flex-col gap-3 p-4 sm:p-5" aria-labelledby="history-title" data-testid="flag-history">
      <h2 id="history-title" className="text-base font-semibold text-gray-900">
        History
      </h2>
      {history.isPending ? (
        <p role="status" className="text-sm text-gray-600">
          Loading…
        </p>
      ) : history.isError ? (
        <ErrorState title="Could not load the history" message={errorMessage(history.error)} onRetry={() => void history.refetch()} retrying={history.isRefetching} />
      ) : (
        <ol className="flex flex-col gap-2 text-sm">
          {history.data.map((entry) => {
            const fields = ((entry.detail as { changes?: { field: string }[] } | null)?.changes ?? []).map((change) => change.field);
            return (
              <li key={entry.id} className="text-gray-700">
                <span className="font-medium text-gray-900">{entry.activity}</span>
                {fields.length > 0 && <span> ({fields.join(", ")})</span>}
                <span className="block text-xs text-gray-500">
                  {entry.user?.email ?? "someone"} · <time dateTime={entry.created_at}>{formatDateTime(entry.created_at)}</time>
                </span>
              </li>
            );
          })}
        </ol>
      )}
    </Card>
  );
}
