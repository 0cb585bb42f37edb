"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Card, ErrorState, FormAlert, LoadingState, SelectField, TextField } from "@/components/ui";
import { errorMessage, formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { savedMetricCreateBody, type SavedMetricResource } from "@/server/experiments/contract";
import { describeMetric, EMPTY_METRIC_DRAFT, metricOf } from "./metric-draft";
import { MetricFields } from "./metric-fields";
import { clearedField, DeleteSharedMetricDialog, EditSharedMetricDialog, eventMissing } from "./shared-metric-dialogs";

/** The experiments page's section: the project's shared metrics, each editable and deletable, and a form for a new one. */
export function SharedMetricsSection({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const metrics = useQuery(trpc.experiments.savedMetrics.queryOptions({ projectId }));
  const [editing, setEditing] = useState<SavedMetricResource | null>(null);
  const [deleting, setDeleting] = useState<SavedMetricResource | null>(null);
  return (
    <Card className="flex flex-col gap-4 p-4" data-testid="shared-metrics" aria-labelledby="shared-metrics-title">
      <div>
        <h2 id="shared-metrics-title" className="text-base font-semibold text-gray-900">
          Shared metrics
        </h2>
        <p className="mt-1 text-sm text-gray-600">Defined once, picked by any experiment as a primary or secondary metric; an edit reaches every experiment using it.</p>
      </div>
      {metrics.isPending ? (
        <LoadingState label="Loading shared metrics…" className="px-0 py-4" />
      ) : metrics.isError ? (
        <ErrorState title="Could not load the shared metrics" message={errorMessage(metrics.error)} onRetry={() => void metrics.refetch()} retrying={metrics.isRefetching} />
      ) : metrics.data.length === 0 ? (
        <p className="text-sm text-gray-600" data-testid="shared-metrics-empty">
          None yet: add one below, then pick it in any experiment&apos;s form.
        </p>
      ) : (
        <ul className="divide-y divide-gray-100 text-sm" data-testid="shared-metric-list">
          {metrics.data.map((metric) => (
            <li key={metric.id} className="flex flex-col gap-2 py-2.5 sm:flex-row sm:items-center sm:gap-4" data-testid="shared-metric-row" data-name={metric.name}>
              <div className="min-w-0 flex-1">
                <p className="font-medium break-words text-gray-900">{metric.name}</p>
                <p className="break-words text-gray-600">
                  {describeMetric(metric)}
                  {metric.description && <span className="text-gray-500"> — {metric.description}</span>}
                </p>
              </div>
              <div className="flex gap-2">
                <Button variant="secondary" size="sm" aria-label={`Edit ${metric.name}`} onClick={() => setEditing(metric)} data-testid="shared-metric-edit">
                  Edit
                </Button>
                <Button variant="ghost" size="sm" aria-label={`Delete ${metric.name}`} onClick={() => setDeleting(metric)} data-testid="shared-metric-delete">
                  Delete
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <NewSharedMetricForm projectId={projectId} />
      <EditSharedMetricDialog projectId={projectId} metric={editing} onClose={() => setEditing(null)} />
      <DeleteSharedMetricDialog projectId={projectId} metric={deleting} onClose={() => setDeleting(null)} />
    </Card>
  );
}

const NEW_FIELDS = ["name", "query"] as const;

/** A new shared metric: a name and the metric's fields, checked by the REST contract before sending. */
function NewSharedMetricForm({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [draft, setDraft] = useState(EMPTY_METRIC_DRAFT);
  const [errors, setErrors] = useState<FormErrors<(typeof NEW_FIELDS)[number]>>(NO_ERRORS);
  const create = useMutation(
    trpc.experiments.createSavedMetric.mutationOptions({
      onSuccess: async () => {
        setName("");
        setDraft(EMPTY_METRIC_DRAFT);
        await queryClient.invalidateQueries({ queryKey: trpc.experiments.savedMetrics.pathKey() });
      },
      onError: (error) => setErrors(formErrorsFrom(error, NEW_FIELDS)),
    }),
  );
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const metric = { name: name.trim(), query: metricOf(draft) };
    const invalid = validate(savedMetricCreateBody, metric, NEW_FIELDS);
    const missing = eventMissing(draft);
    if (invalid || missing) return setErrors({ fields: { ...invalid?.fields, ...(missing ? { query: missing } : {}) }, form: invalid?.form ?? null });
    setErrors(NO_ERRORS);
    create.mutate({ projectId, metric });
  }
  return (
    <form className="flex flex-col gap-3 border-t border-gray-100 pt-4" aria-label="New shared metric" onSubmit={submit} noValidate>
      <h3 className="text-sm font-semibold text-gray-900">New shared metric</h3>
      {errors.form && <FormAlert testId="shared-metric-error">{errors.form}</FormAlert>}
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 lg:items-start">
        <TextField
          label="Name"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setErrors((current) => clearedField(current, "name"));
          }}
          error={errors.fields.name}
          required
          maxLength={400}
          testId="shared-metric-name"
        />
        <MetricFields
          draft={draft}
          onChange={(next) => {
            setDraft(next);
            setErrors((current) => clearedField(current, "query"));
          }}
          testIdPrefix="shared-metric"
          eventError={errors.fields.query}
          required
        />
      </div>
      <div>
        <Button type="submit" variant="secondary" loading={create.isPending} data-testid="shared-metric-save">
          Add shared metric
        </Button>
      </div>
    </form>
  );
}

/** The form's picker: each shared metric unused, primary or secondary. */
export function SharedMetricPicker({ projectId, value, onChange }: { projectId: number; value: Record<number, "primary" | "secondary">; onChange: (next: Record<number, "primary" | "secondary">) => void }) {
  const trpc = useTRPC();
  const metrics = useQuery(trpc.experiments.savedMetrics.queryOptions({ projectId }));
  const list = metrics.data ?? [];
  if (list.length === 0) return null;
  return (
    <div className="flex flex-col gap-2" data-testid="shared-metric-picker">
      <h3 className="text-sm font-semibold text-gray-900">Shared metrics</h3>
      {list.map((metric) => (
        <SelectField
          key={metric.id}
          label={`${metric.name} (${describeMetric(metric)})`}
          value={value[metric.id] ?? ""}
          onChange={(e) => {
            const next = { ...value };
            if (e.target.value) next[metric.id] = e.target.value as "primary" | "secondary";
            else delete next[metric.id];
            onChange(next);
          }}
          testId={`shared-metric-use-${metric.id}`}
        >
          <option value="">Not used</option>
          <option value="primary">Primary</option>
          <option value="secondary">Secondary</option>
        </SelectField>
      ))}
    </div>
  );
}
