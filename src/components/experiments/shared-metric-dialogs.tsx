"use client";

import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Button, ConfirmDialog, Dialog, FormAlert, TextAreaField, TextField } from "@/components/ui";
import { errorMessage, formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { savedMetricUpdateBody, type SavedMetricResource } from "@/server/experiments/contract";
import { describeMetric, draftOf, editedMetric, type MetricDraft } from "./metric-draft";
import { MetricFields } from "./metric-fields";

const FIELDS = ["name", "description", "query"] as const;
type Field = (typeof FIELDS)[number];

/** What a shared-metric form sends: the event is required (a shared metric without one measures nothing). */
export function eventMissing(draft: MetricDraft | null): string | null {
  return draft && !draft.event.trim() ? "Give the event the metric counts." : null;
}

/** The errors with one field's message gone: it no longer stands under a value changed since. */
export function clearedField<Field extends string>(errors: FormErrors<Field>, field: Field): FormErrors<Field> {
  return errors.fields[field] ? { ...errors, fields: { ...errors.fields, [field]: undefined } } : errors;
}

/** Every query of the shared metrics (the list and each one's usage) and the experiments that show them. */
function useRefreshShared() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.experiments.pathKey() });
}

/**
 * Edits a shared metric: name, description and its event, over the same contract as the REST
 * PATCH. A metric made through the API with more than one plain event keeps its query; the
 * dialog says so instead of showing fields that would drop part of it.
 */
export function EditSharedMetricDialog({ projectId, metric, onClose }: { projectId: number; metric: SavedMetricResource | null; onClose: () => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshShared();
  const formId = useId();
  const [errors, setErrors] = useState<FormErrors<Field>>(NO_ERRORS);
  const update = useMutation(
    trpc.experiments.updateSavedMetric.mutationOptions({
      onSuccess: async () => {
        await refresh();
        close();
      },
      onError: (error) => setErrors(formErrorsFrom(error, FIELDS)),
    }),
  );
  function close() {
    setErrors(NO_ERRORS);
    update.reset();
    onClose();
  }
  return (
    <Dialog
      open={metric !== null}
      onClose={() => {
        if (!update.isPending) close();
      }}
      title={metric ? `Edit ${metric.name}` : "Edit shared metric"}
      description="Every experiment that uses it reads the change at once, in its results too."
      testId="shared-metric-edit-dialog"
      className="max-w-lg"
      footer={
        <>
          <Button variant="secondary" onClick={close} disabled={update.isPending} data-testid="shared-metric-edit-cancel">
            Cancel
          </Button>
          <Button type="submit" form={formId} loading={update.isPending} data-testid="shared-metric-edit-save">
            Save
          </Button>
        </>
      }
    >
      {metric && (
        <EditFields
          key={metric.id}
          formId={formId}
          metric={metric}
          errors={errors}
          onSubmit={(patch) => {
            const invalid = validate(savedMetricUpdateBody, patch, FIELDS);
            if (invalid) return setErrors(invalid);
            setErrors(NO_ERRORS);
            update.mutate({ projectId, id: metric.id, patch });
          }}
          onProblem={(message) => setErrors({ fields: { query: message }, form: null })}
          onEdited={(field) => setErrors((current) => clearedField(current, field))}
        />
      )}
    </Dialog>
  );
}

function EditFields({
  formId,
  metric,
  errors,
  onSubmit,
  onProblem,
  onEdited,
}: {
  formId: string;
  metric: SavedMetricResource;
  errors: FormErrors<Field>;
  onSubmit: (patch: { name: string; description: string; query?: unknown }) => void;
  onProblem: (message: string) => void;
  onEdited: (field: Field) => void;
}) {
  const [name, setName] = useState(metric.name);
  const [description, setDescription] = useState(metric.description);
  const [draft, setDraft] = useState(() => draftOf(metric.query));
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const missing = eventMissing(draft);
    if (missing) return onProblem(missing);
    onSubmit({ name: name.trim(), description, ...(draft ? { query: editedMetric(metric.query, draft) } : {}) });
  }
  return (
    <form id={formId} onSubmit={submit} className="flex flex-col gap-4" noValidate aria-label={`Edit ${metric.name}`} data-testid="shared-metric-edit-form">
      {errors.form && <FormAlert testId="shared-metric-edit-error">{errors.form}</FormAlert>}
      <TextField
        label="Name"
        value={name}
        onChange={(e) => {
          setName(e.target.value);
          onEdited("name");
        }}
        error={errors.fields.name}
        maxLength={400}
        autoFocus
        testId="edit-metric-name"
      />
      <TextAreaField
        label="Description"
        optional
        rows={2}
        value={description}
        onChange={(e) => {
          setDescription(e.target.value);
          onEdited("description");
        }}
        error={errors.fields.description}
        testId="edit-metric-description"
      />
      {draft ? (
        <div className="grid gap-4 sm:grid-cols-2">
          <MetricFields
            draft={draft}
            onChange={(next) => {
              setDraft(next);
              onEdited("query");
            }}
            testIdPrefix="edit-metric"
            eventError={errors.fields.query}
            required
          />
        </div>
      ) : (
        <div className="rounded-control bg-gray-50 px-3 py-2 text-sm text-gray-700 ring-1 ring-gray-200 ring-inset" data-testid="edit-metric-query-kept">
          <p className="font-medium text-gray-900">{describeMetric(metric)}</p>
          <p className="mt-0.5">This metric has more than one plain event (steps, an action or filters), which these fields do not show: its query is kept as it is. Change it through the API.</p>
          {errors.fields.query && <p className="mt-1 text-red-700">{errors.fields.query}</p>}
        </div>
      )}
    </form>
  );
}

/** Names the experiments a deletion changes, as the confirmation's description. */
function usageText(usage: { isPending: boolean; isError: boolean; error: unknown; data?: { experiments: { name: string }[] } }): string {
  if (usage.isPending) return "Checking which experiments use it…";
  if (usage.isError || !usage.data) return `Could not check which experiments use it (${errorMessage(usage.error)}). Deleting it removes it from every experiment that does.`;
  const names = usage.data.experiments.map((experiment) => experiment.name);
  if (names.length === 0) return "No experiment uses it. This cannot be undone.";
  const listed = names.length <= 5 ? names.join(", ") : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`;
  return names.length === 1
    ? `It is removed from the experiment that uses it (${listed}): its results stop showing it; its own metrics stay. This cannot be undone.`
    : `It is removed from the ${names.length} experiments that use it (${listed}): their results stop showing it; their own metrics stay. This cannot be undone.`;
}

/** Deletes a shared metric, behind a confirmation that says which experiments lose it (PostHog unlinks it from them). */
export function DeleteSharedMetricDialog({ projectId, metric, onClose }: { projectId: number; metric: SavedMetricResource | null; onClose: () => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshShared();
  const usage = useQuery(trpc.experiments.savedMetricUsage.queryOptions(metric ? { projectId, id: metric.id } : skipToken, { staleTime: 0 }));
  const remove = useMutation(
    trpc.experiments.deleteSavedMetric.mutationOptions({
      onSuccess: async () => {
        close();
        await refresh();
      },
    }),
  );
  function close() {
    remove.reset();
    onClose();
  }
  return (
    <ConfirmDialog
      open={metric !== null}
      onCancel={close}
      onConfirm={() => metric && remove.mutate({ projectId, id: metric.id })}
      title={metric ? `Delete ${metric.name}?` : "Delete shared metric?"}
      description={<span data-testid="shared-metric-delete-usage">{usageText(usage)}</span>}
      confirmLabel="Delete metric"
      pending={remove.isPending}
      error={remove.isError ? errorMessage(remove.error) : null}
      testId="shared-metric-delete-dialog"
    />
  );
}
