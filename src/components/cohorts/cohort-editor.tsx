"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, Card, CodeBlock, ConfirmDialog, EmptyState, ErrorState, formatDateTime, FormAlert, ListCard, ListFooter, LoadingState, PageButtons, PageHeader } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { CohortResource } from "@/server/cohorts/present";
import { cohortKindLabel, draftOf, editableInForm, emptyDraft } from "./cohort-draft";
import { CohortForm, CsvField } from "./cohort-form";
import { CohortCount } from "./cohorts-list";
import { uploadCohortCsv } from "./csv-upload";

const MEMBERS_PAGE = 50;

const backLink = (
  <Link href="/cohorts" className="hover:underline">
    Cohorts
  </Link>
);

/** `/cohorts/new`. */
export function NewCohortPage() {
  const router = useRouter();
  return (
    <div className="flex flex-col gap-6" data-testid="new-cohort-page">
      <PageHeader eyebrow={backLink} title="New cohort" />
      <ProjectGate testId="cohort-project">
        {(project) => <CohortForm projectId={project.id} initial={emptyDraft()} onSaved={(cohort) => router.push(`/cohorts/${cohort.id}`)} />}
      </ProjectGate>
    </div>
  );
}

/** `/cohorts/:id`: its definition, count and members; CSV upload for a static one; delete. */
export function CohortEditorPage({ id }: { id: number }) {
  return (
    <div className="flex flex-col gap-6" data-testid="cohort-page">
      <ProjectGate testId="cohort-project">{(project) => <CohortEditor projectId={project.id} id={id} />}</ProjectGate>
    </div>
  );
}

function CohortEditor({ projectId, id }: { projectId: number; id: number }) {
  const trpc = useTRPC();
  const cohort = useQuery({
    ...trpc.cohorts.get.queryOptions({ projectId, id }),
    // Poll while a computation runs, so the count appears when it is done.
    refetchInterval: (query) => (query.state.data?.is_calculating ? 1500 : false),
  });
  if (cohort.isPending) {
    return (
      <Card data-state="loading">
        <LoadingState label="Loading cohort…" />
      </Card>
    );
  }
  if (cohort.isError) {
    return (
      <>
        <PageHeader eyebrow={backLink} title="Cohort" />
        <Card className="p-4" data-state="error">
          <ErrorState title="Could not load this cohort" message={errorMessage(cohort.error)} onRetry={() => void cohort.refetch()} retrying={cohort.isRefetching} />
        </Card>
      </>
    );
  }
  return <LoadedCohort projectId={projectId} cohort={cohort.data} />;
}

function LoadedCohort({ projectId, cohort }: { projectId: number; cohort: CohortResource }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.cohorts.pathKey() });
  const remove = useMutation(
    trpc.cohorts.delete.mutationOptions({
      onSuccess: async () => {
        await refresh();
        router.push("/cohorts");
      },
    }),
  );
  const restore = useMutation(trpc.cohorts.update.mutationOptions({ onSettled: refresh }));

  return (
    <>
      <PageHeader
        eyebrow={backLink}
        title={<span className="break-words">{cohort.name || `Cohort ${cohort.id}`}</span>}
        description={cohort.description || undefined}
        actions={
          cohort.deleted ? (
            <>
              <Badge tone="danger">Deleted</Badge>
              <Button variant="secondary" loading={restore.isPending} onClick={() => restore.mutate({ projectId, id: cohort.id, patch: { deleted: false } })} data-testid="cohort-restore">
                Restore
              </Button>
            </>
          ) : (
            <Button variant="secondary" onClick={() => setConfirming(true)} data-testid="cohort-delete">
              Delete
            </Button>
          )
        }
      />
      {savedAt !== null && (
        <p role="status" className="text-sm text-emerald-700" data-testid="cohort-saved">
          Saved{cohort.is_static ? "" : " · computing members"}
        </p>
      )}
      <div className="grid items-start gap-4 lg:grid-cols-[minmax(0,1fr)_24rem]">
        <div className="flex min-w-0 flex-col gap-4">
          {cohort.is_static ? (
            <StaticUpload projectId={projectId} cohort={cohort} onUploaded={refresh} />
          ) : editableInForm(cohort) ? (
            <CohortForm key={cohort.id} projectId={projectId} cohort={cohort} initial={draftOf(cohort)} onSaved={() => setSavedAt(Date.now())} />
          ) : (
            <Card className="flex flex-col gap-3 p-4 sm:p-5">
              <h2 className="text-base font-semibold text-gray-900">Conditions</h2>
              <p className="text-sm text-gray-600">This cohort nests groups deeper than this form edits. Change it through the API; its filters are:</p>
              <CodeBlock title="filters" code={JSON.stringify(cohort.filters, null, 2)} />
            </Card>
          )}
        </div>
        <CohortMembers projectId={projectId} cohort={cohort} />
      </div>
      <ConfirmDialog
        open={confirming}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate({ projectId, id: cohort.id })}
        title={`Delete ${cohort.name || "this cohort"}?`}
        description="It leaves the list and stops being computed. A cohort that an active feature flag uses cannot be deleted. You can restore it later."
        confirmLabel="Delete cohort"
        pending={remove.isPending}
        error={remove.isError ? errorMessage(remove.error) : null}
        testId="cohort-delete-dialog"
      />
    </>
  );
}

function StaticUpload({ projectId, cohort, onUploaded }: { projectId: number; cohort: CohortResource; onUploaded: () => Promise<void> }) {
  const [file, setFile] = useState<File | null>(null);
  const [state, setState] = useState<{ pending: boolean; error: string | null; done: boolean }>({ pending: false, error: null, done: false });
  async function upload() {
    if (!file) return;
    setState({ pending: true, error: null, done: false });
    try {
      await uploadCohortCsv(projectId, cohort.id, file);
      await onUploaded();
      setState({ pending: false, error: null, done: true });
    } catch (error) {
      setState({ pending: false, error: String((error as { detail?: unknown }).detail ?? "Upload failed."), done: false });
    }
  }
  return (
    <Card className="flex flex-col gap-4 p-4 sm:p-6" data-testid="cohort-upload">
      <div>
        <h2 className="text-base font-semibold text-gray-900">Add people from a CSV file</h2>
        <p className="mt-1 text-sm text-gray-600">A static cohort is a fixed list: the people in the file are added to it.</p>
      </div>
      <CsvField file={file} onFile={setFile} invalid={state.error !== null} />
      {state.error && <FormAlert testId="cohort-upload-error">{state.error}</FormAlert>}
      {state.done && (
        <p role="status" className="text-sm text-emerald-700" data-testid="cohort-upload-done">
          Added.
        </p>
      )}
      <div>
        <Button onClick={() => void upload()} disabled={!file} loading={state.pending} data-testid="cohort-upload-submit">
          Upload
        </Button>
      </div>
    </Card>
  );
}

function CohortMembers({ projectId, cohort }: { projectId: number; cohort: CohortResource }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(0);
  const members = useQuery({
    ...trpc.cohorts.persons.queryOptions({ projectId, id: cohort.id, limit: MEMBERS_PAGE, offset: page * MEMBERS_PAGE }),
    placeholderData: keepPreviousData,
  });
  // New members once a computation or an upload finished.
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: trpc.cohorts.persons.pathKey() });
  }, [cohort.last_calculation, cohort.count, queryClient, trpc]);
  const people = members.data?.results ?? [];
  return (
    <div className="flex min-w-0 flex-col gap-2" data-testid="cohort-members">
      <div className="flex flex-wrap items-baseline justify-between gap-2 px-1">
        <h2 className="text-base font-semibold text-gray-900">Members</h2>
        <span className="text-sm text-gray-700">
          <Badge tone={cohort.is_static ? "neutral" : "brand"}>{cohortKindLabel(cohort)}</Badge> <CohortCount cohort={cohort} />
        </span>
      </div>
      {cohort.last_calculation && <p className="px-1 text-xs text-gray-500">Last computed {formatDateTime(cohort.last_calculation)}</p>}
      {cohort.errors_calculating > 0 && cohort.last_error && (
        <FormAlert testId="cohort-compute-error">The last computation failed: {cohort.last_error}</FormAlert>
      )}
      <ListCard
        aria-label="Members"
        query={members}
        empty={people.length === 0}
        loadingLabel="Loading members…"
        errorTitle="Could not load the members"
        errorMessage={members.isError ? errorMessage(members.error) : undefined}
        emptyState={
          <EmptyState
            title={cohort.is_calculating ? "Computing members…" : "No one yet"}
            description={cohort.is_static ? "Upload a CSV file to add people." : cohort.is_calculating ? "They appear here when the computation finishes." : "No person matches these conditions."}
          />
        }
      >
        <ul className="divide-y divide-gray-200" data-testid="cohort-members-rows">
          {people.map((person) => (
            <li key={person.uuid} className="px-4 py-2.5" data-testid="cohort-member">
              <Link
                href={`/persons/${person.uuid}`}
                className="text-sm font-medium break-all text-gray-900 hover:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
              >
                {person.name}
              </Link>
              {person.distinct_ids[0] && person.distinct_ids[0] !== person.name && <span className="block truncate text-xs text-gray-500">{person.distinct_ids[0]}</span>}
            </li>
          ))}
        </ul>
        <ListFooter count={members.data?.count ?? 0} noun={["member", "members"]} refreshing={members.isFetching} testId="cohort-members-count">
          <PageButtons page={page} pageSize={MEMBERS_PAGE} count={members.data?.count ?? 0} onPage={setPage} />
        </ListFooter>
      </ListCard>
    </div>
  );
}
