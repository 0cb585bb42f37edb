"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Button, Dialog, FormAlert, SelectField, TextAreaField, TextField } from "@/components/ui";
import { dashboardUpdateBody } from "@/server/dashboards/contract";
import { formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { TagInput } from "./tag-input";
import type { DashboardData } from "./types";

const FIELDS = ["name", "description", "tags", "use_template", "use_dashboard"] as const;
type Field = (typeof FIELDS)[number];

interface Values {
  name: string;
  description: string;
  tags: string[];
  /** New dashboards: a template key, or "" for a blank one. */
  template: string;
  /** Duplicates: copy the insights and texts too (else the copy shows the same insights). */
  copyInsights: boolean;
}

type Source = Pick<DashboardData, "id" | "name" | "description" | "tags">;

/**
 * Creates a dashboard (blank, from a template, or as a duplicate of `duplicateOf`), or
 * renames, describes and tags one: the REST contract checks the values before sending, and
 * the service's answer is shown next to the field it names.
 */
export function DashboardFormDialog({
  projectId,
  dashboard,
  duplicateOf,
  open,
  onClose,
  onSaved,
}: {
  projectId: number;
  /** The dashboard to edit; none to create one. */
  dashboard?: Source;
  /** Create a copy of this dashboard (with its tiles). */
  duplicateOf?: Source;
  open: boolean;
  onClose: () => void;
  onSaved?: (saved: DashboardData) => void;
}) {
  // Mounted only while open, so every opening starts from the dashboard's current values.
  return open ? <DashboardForm projectId={projectId} dashboard={dashboard} duplicateOf={duplicateOf} onClose={onClose} onSaved={onSaved} /> : null;
}

function DashboardForm({
  projectId,
  dashboard,
  duplicateOf,
  onClose,
  onSaved,
}: {
  projectId: number;
  dashboard?: Source;
  duplicateOf?: Source;
  onClose: () => void;
  onSaved?: (saved: DashboardData) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formId = useId();
  const source = dashboard ?? duplicateOf;
  const [values, setValues] = useState<Values>({
    name: duplicateOf ? `${duplicateOf.name || "Untitled dashboard"} (Copy)` : (dashboard?.name ?? ""),
    description: source?.description ?? "",
    tags: source?.tags ?? [],
    template: "",
    copyInsights: true,
  });
  const creatingBlank = !dashboard && !duplicateOf;
  const templates = useQuery({ ...trpc.dashboards.templates.queryOptions({ projectId }), enabled: creatingBlank });
  const [errors, setErrors] = useState<FormErrors<Field>>(NO_ERRORS);
  const tags = useQuery(trpc.dashboards.tags.queryOptions({ projectId }));
  const onSuccess = (saved: DashboardData) => {
    void queryClient.invalidateQueries({ queryKey: trpc.dashboards.pathKey() });
    onSaved?.(saved);
    onClose();
  };
  const onError = (error: unknown) => setErrors(formErrorsFrom(error, FIELDS));
  const create = useMutation(trpc.dashboards.create.mutationOptions({ onSuccess, onError }));
  const update = useMutation(trpc.dashboards.update.mutationOptions({ onSuccess, onError }));
  const pending = create.isPending || update.isPending;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = { name: values.name.trim() || null, description: values.description, tags: values.tags };
    const invalid = validate(dashboardUpdateBody, body, FIELDS);
    if (invalid) return setErrors(invalid);
    setErrors(NO_ERRORS);
    if (dashboard) update.mutate({ projectId, dashboardId: dashboard.id, ...body });
    else if (duplicateOf) create.mutate({ projectId, ...body, use_dashboard: duplicateOf.id, duplicate_tiles: values.copyInsights });
    else create.mutate({ projectId, ...body, ...(values.template ? { use_template: values.template } : {}) });
  }

  return (
    <Dialog
      open
      onClose={onClose}
      title={dashboard ? "Edit dashboard" : duplicateOf ? "Duplicate dashboard" : "New dashboard"}
      testId="dashboard-form-dialog"
      className="max-w-lg"
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button type="submit" form={formId} loading={pending} data-testid="dashboard-form-submit">
            {dashboard ? "Save" : duplicateOf ? "Duplicate" : "Create dashboard"}
          </Button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} className="flex flex-col gap-4" noValidate data-testid="dashboard-form">
        {(errors.form || errors.fields.use_template || errors.fields.use_dashboard) && (
          <FormAlert testId="dashboard-form-error">{errors.form ?? errors.fields.use_template ?? errors.fields.use_dashboard}</FormAlert>
        )}
        {creatingBlank && (
          <SelectField
            label="Start from"
            value={values.template}
            onChange={(event) => {
              const template = templates.data?.find((item) => item.key === event.target.value);
              // A template's name fills an empty (or untouched template) name.
              const previous = templates.data?.find((item) => item.key === values.template);
              const name = !values.name || values.name === previous?.name ? (template?.name ?? "") : values.name;
              setValues({ ...values, template: event.target.value, name });
            }}
            hint={templates.data?.find((item) => item.key === values.template)?.description ?? "An empty dashboard."}
            disabled={templates.isPending}
            testId="dashboard-template"
          >
            <option value="">Blank dashboard</option>
            {templates.data?.map((template) => (
              <option key={template.key} value={template.key}>
                {template.name} ({template.tileCount} tiles)
              </option>
            ))}
          </SelectField>
        )}
        <TextField
          label="Name"
          value={values.name}
          onChange={(event) => setValues({ ...values, name: event.target.value })}
          error={errors.fields.name}
          placeholder="e.g. Weekly KPIs"
          maxLength={400}
          autoFocus
          testId="dashboard-name"
        />
        <TextAreaField
          label="Description"
          optional
          rows={3}
          value={values.description}
          onChange={(event) => setValues({ ...values, description: event.target.value })}
          error={errors.fields.description}
          testId="dashboard-description"
        />
        {duplicateOf && (
          <label className="flex items-start gap-2 text-sm text-gray-800">
            <input
              type="checkbox"
              checked={values.copyInsights}
              onChange={(event) => setValues({ ...values, copyInsights: event.target.checked })}
              className="mt-0.5 accent-brand-600"
              data-testid="duplicate-copy-insights"
            />
            <span>
              Copy the insights too
              <span className="block text-gray-500">Otherwise the copy shows the same insights, and editing one changes both dashboards.</span>
            </span>
          </label>
        )}
        <TagInput label="Tags" value={values.tags} onChange={(next) => setValues({ ...values, tags: next })} suggestions={tags.data ?? []} error={errors.fields.tags} testId="dashboard-tags" />
      </form>
    </Dialog>
  );
}
