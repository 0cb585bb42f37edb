"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, buttonClasses, Card, ConfirmDialog, ErrorState, FormAlert, inputClasses, LoadingState, PageHeader } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { SurveyResource } from "@/server/surveys/present";
import { bodyOf, draftOf, emptySurveyDraft, surveyStatus, type SurveyDraft } from "./survey-draft";
import { SurveyAudience } from "./survey-audience";
import { SurveyPreview } from "./survey-preview";
import { QuestionsEditor } from "./survey-questions";

const backLink = (
  <Link href="/surveys" className="hover:underline">
    Surveys
  </Link>
);
const label = "flex flex-col gap-1 text-sm font-medium text-gray-800";

/** `/surveys/new`: build a draft with its preview; saving keeps it a draft until launched. */
export function NewSurveyPage() {
  const router = useRouter();
  return (
    <div className="flex flex-col gap-6" data-testid="new-survey-page">
      <PageHeader eyebrow={backLink} title="New survey" description="Questions, where it shows, how it looks. It stays a draft until you launch it." />
      <ProjectGate testId="survey-project">{(project) => <SurveyForm projectId={project.id} initial={emptySurveyDraft()} onSaved={(survey) => router.push(`/surveys/${survey.id}`)} />}</ProjectGate>
    </div>
  );
}

/** `/surveys/:id`: edit, launch, stop, archive, delete. */
export function SurveyEditorPage({ id }: { id: string }) {
  return (
    <div className="flex flex-col gap-6" data-testid="survey-page">
      <ProjectGate testId="survey-project">{(project) => <SurveyEditor projectId={project.id} id={id} />}</ProjectGate>
    </div>
  );
}

function SurveyEditor({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const survey = useQuery(trpc.surveys.get.queryOptions({ projectId, id }));
  const [confirming, setConfirming] = useState(false);
  const [saved, setSaved] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.surveys.pathKey() });
  const update = useMutation(trpc.surveys.update.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(
    trpc.surveys.delete.mutationOptions({
      onSuccess: async () => {
        await refresh();
        router.push("/surveys");
      },
    }),
  );
  if (survey.isPending) {
    return (
      <Card data-state="loading">
        <LoadingState label="Loading survey…" />
      </Card>
    );
  }
  if (survey.isError) {
    return (
      <>
        <PageHeader eyebrow={backLink} title="Survey" />
        <Card className="p-4" data-state="error">
          <ErrorState title="Could not load this survey" message={errorMessage(survey.error)} onRetry={() => void survey.refetch()} retrying={survey.isRefetching} />
        </Card>
      </>
    );
  }
  const current = survey.data;
  const status = surveyStatus(current);
  const now = () => new Date().toISOString();
  const lifecycle = (patch: Parameters<typeof update.mutate>[0]["patch"]) => update.mutate({ projectId, id: current.id, patch });
  return (
    <>
      <PageHeader
        eyebrow={backLink}
        title={
          <span className="flex flex-wrap items-center gap-3 break-words">
            {current.name}
            <Badge tone={status.tone} dot data-testid="survey-status">
              {status.label}
            </Badge>
          </span>
        }
        description={current.description || undefined}
        actions={
          <div className="flex flex-wrap gap-2">
            <Link href={`/surveys/${current.id}/results`} className={buttonClasses({ variant: "secondary" })} data-testid="survey-results">
              Results
            </Link>
            {!current.archived && !current.start_date && (
              <Button onClick={() => lifecycle({ start_date: now() })} loading={update.isPending} data-testid="survey-launch">
                Launch
              </Button>
            )}
            {!current.archived && current.start_date && !current.end_date && (
              <Button variant="secondary" onClick={() => lifecycle({ end_date: now() })} loading={update.isPending} data-testid="survey-stop">
                Stop
              </Button>
            )}
            {!current.archived && current.end_date && (
              <Button variant="secondary" onClick={() => lifecycle({ end_date: null })} loading={update.isPending} data-testid="survey-resume">
                Resume
              </Button>
            )}
            {!current.archived && (
              <Button variant="secondary" onClick={() => lifecycle({ archived: true })} data-testid="survey-archive">
                Archive
              </Button>
            )}
            <Button variant="secondary" onClick={() => setConfirming(true)} data-testid="survey-delete">
              Delete
            </Button>
          </div>
        }
      />
      {update.error && <FormAlert testId="survey-lifecycle-error">{errorMessage(update.error)}</FormAlert>}
      {saved && (
        <p role="status" className="text-sm text-emerald-700" data-testid="survey-saved">
          Saved
        </p>
      )}
      <SurveyForm key={current.id} projectId={projectId} initial={draftOf(current)} existing={current} onSaved={async () => (await refresh(), setSaved(true))} />
      <ConfirmDialog
        open={confirming}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate({ projectId, id: current.id })}
        title={`Delete “${current.name}”?`}
        description="Its targeting flags go with it. The answers stay in your events."
        confirmLabel="Delete survey"
        pending={remove.isPending}
        error={remove.error ? errorMessage(remove.error) : null}
        testId="survey-delete-dialog"
      />
    </>
  );
}

function SurveyForm({ projectId, initial, existing, onSaved }: { projectId: number; initial: SurveyDraft; existing?: SurveyResource; onSaved: (survey: SurveyResource) => void | Promise<void> }) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState(initial);
  const create = useMutation(trpc.surveys.create.mutationOptions());
  const update = useMutation(trpc.surveys.update.mutationOptions());
  const pending = create.isPending || update.isPending;
  const error = create.error ?? update.error;
  const set = (patch: Partial<SurveyDraft>) => setDraft({ ...draft, ...patch });
  const submit = async () => {
    try {
      const body = bodyOf(draft);
      const saved = existing ? await update.mutateAsync({ projectId, id: existing.id, patch: body }) : await create.mutateAsync({ projectId, survey: body });
      await onSaved(saved);
    } catch {
      // Shown below from the mutation's error.
    }
  };
  return (
    <form
      className="grid items-start gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]"
      data-testid="survey-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <div className="flex min-w-0 flex-col gap-4">
        <Card className="grid gap-4 p-4 sm:grid-cols-2">
          <label className={label}>
            Name
            <input className={inputClasses()} value={draft.name} required maxLength={400} onChange={(event) => set({ name: event.target.value })} data-testid="survey-name" />
          </label>
          <label className={label}>
            Presentation
            <select className={inputClasses()} value={draft.type} onChange={(event) => set({ type: event.target.value as SurveyDraft["type"] })} data-testid="survey-type">
              <option value="popover">Popover (posthog-js shows it)</option>
              <option value="api">API (your own UI)</option>
            </select>
          </label>
          <label className={`${label} sm:col-span-2`}>
            Description <span className="text-xs font-normal text-gray-500">optional, for your team</span>
            <input className={inputClasses()} value={draft.description} maxLength={10_000} onChange={(event) => set({ description: event.target.value })} data-testid="survey-description" />
          </label>
        </Card>
        <QuestionsEditor questions={draft.questions} onChange={(questions) => set({ questions })} />
        <Card className="flex flex-col gap-4 p-4">
          <h3 className="text-sm font-semibold text-gray-900">Where it shows</h3>
          <div className="grid gap-3 sm:grid-cols-[10rem_minmax(0,1fr)_10rem]">
            <label className={label}>
              URL
              <select className={inputClasses()} value={draft.urlMatchType} onChange={(event) => set({ urlMatchType: event.target.value as SurveyDraft["urlMatchType"] })} data-testid="survey-url-match">
                <option value="icontains">contains</option>
                <option value="exact">is exactly</option>
                <option value="regex">matches regex</option>
              </select>
            </label>
            <label className={label}>
              <span>
                Page <span className="text-xs font-normal text-gray-500">empty: every page</span>
              </span>
              <input className={inputClasses()} value={draft.url} maxLength={2000} placeholder="/pricing" onChange={(event) => set({ url: event.target.value })} data-testid="survey-url" />
            </label>
            <label className={label}>
              Wait (days)
              <input className={inputClasses()} type="number" min={0} max={3650} value={draft.waitDays} onChange={(event) => set({ waitDays: event.target.value })} data-testid="survey-wait" />
            </label>
          </div>
          <p className="text-xs text-gray-500">A person who answered or dismissed it is not asked again.</p>
        </Card>
        <SurveyAudience projectId={projectId} draft={draft} set={set} />
        <Card className="grid gap-4 p-4 sm:grid-cols-2">
          <h3 className="text-sm font-semibold text-gray-900 sm:col-span-2">How it looks</h3>
          <label className={label}>
            Background
            <input className={inputClasses({ className: "p-1" })} type="color" value={draft.backgroundColor} onChange={(event) => set({ backgroundColor: event.target.value })} data-testid="survey-background" />
          </label>
          <label className={label}>
            Button colour
            <input className={inputClasses({ className: "p-1" })} type="color" value={draft.submitButtonColor} onChange={(event) => set({ submitButtonColor: event.target.value })} />
          </label>
          <label className={label}>
            Button text
            <input className={inputClasses()} value={draft.submitButtonText} maxLength={200} onChange={(event) => set({ submitButtonText: event.target.value })} data-testid="survey-button-text" />
          </label>
          <label className={label}>
            Position
            <select className={inputClasses()} value={draft.position} onChange={(event) => set({ position: event.target.value as SurveyDraft["position"] })}>
              <option value="right">Bottom right</option>
              <option value="center">Bottom centre</option>
              <option value="left">Bottom left</option>
            </select>
          </label>
          <label className={`${label} sm:col-span-2`}>
            Thank-you message <span className="text-xs font-normal text-gray-500">empty: none</span>
            <input className={inputClasses()} value={draft.thankYou} maxLength={5000} onChange={(event) => set({ thankYou: event.target.value })} />
          </label>
        </Card>
        {error && <FormAlert testId="survey-error">{errorMessage(error)}</FormAlert>}
        <div className="flex gap-2">
          <Button type="submit" loading={pending} data-testid="survey-save">
            {existing ? "Save" : "Save as draft"}
          </Button>
          {!existing && (
            <Link href="/surveys" className="inline-flex items-center px-3 text-sm text-gray-700 hover:underline">
              Cancel
            </Link>
          )}
        </div>
      </div>
      <div className="lg:sticky lg:top-4">
        <SurveyPreview draft={draft} />
      </div>
    </form>
  );
}
