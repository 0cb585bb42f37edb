"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { useId, useState, type FormEvent } from "react";
import { Button, Dialog, FormAlert, inputClasses, SelectField, Switch, TextField } from "@/components/ui";
import { errorMessage, formErrorsFrom } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { ConfigField } from "@/server/transformations/catalogue";
import type { ConfigData, PluginData } from "./types";
import { configFromValues, initialValues, type FieldValue, type FormValues } from "./config-form";
import { EntriesField } from "./entries-field";

type Mode = { kind: "create" } | { kind: "edit"; config: ConfigData };

export interface ConfigDialogProps {
  projectId: number;
  plugins: PluginData[];
  mode: Mode | null;
  onClose: () => void;
}

/** Adds a transformation or edits one: name, enabled, and the form generated from the plugin's config schema. */
export function ConfigDialog({ projectId, plugins, mode, onClose }: ConfigDialogProps) {
  return (
    <Dialog
      open={mode !== null}
      onClose={onClose}
      title={mode?.kind === "edit" ? `Edit ${mode.config.name}` : "Add a transformation"}
      description={mode?.kind === "edit" ? mode.config.plugin_info.description : "Pick a plugin, set it up, and it runs on every event in its place in the chain."}
      testId="config-dialog"
      className="max-w-2xl"
    >
      {mode && (
        <ConfigForm
          key={mode.kind === "edit" ? mode.config.id : "create"}
          projectId={projectId}
          plugins={plugins}
          mode={mode}
          onDone={onClose}
        />
      )}
    </Dialog>
  );
}

function ConfigForm({ projectId, plugins, mode, onDone }: { projectId: number; plugins: PluginData[]; mode: Mode; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const editing = mode.kind === "edit" ? mode.config : null;
  const [pluginId, setPluginId] = useState<number>(editing?.plugin ?? plugins[0]?.id ?? 0);
  const plugin = editing?.plugin_info ?? plugins.find((p) => p.id === pluginId);
  const fields = (plugin?.config_schema ?? []) as ConfigField[];
  const [name, setName] = useState(editing?.name ?? "");
  const [enabled, setEnabled] = useState(editing?.enabled ?? true);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields, editing?.config ?? null));
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);

  const onSuccess = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.transformations.pathKey() });
    onDone();
  };
  const create = useMutation(trpc.transformations.create.mutationOptions({ onSuccess }));
  const update = useMutation(trpc.transformations.update.mutationOptions({ onSuccess }));
  const pending = create.isPending || update.isPending;

  function choosePlugin(id: number) {
    setPluginId(id);
    const chosen = plugins.find((p) => p.id === id);
    setValues(initialValues((chosen?.config_schema ?? []) as ConfigField[], null));
    setFieldErrors({});
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const { config, errors } = configFromValues(fields, values);
    setFieldErrors(errors);
    if (Object.keys(errors).length > 0) return;
    try {
      if (editing) {
        await update.mutateAsync({ projectId, id: editing.id, changes: { name: name.trim() || null, enabled, config } });
      } else {
        await create.mutateAsync({ projectId, plugin: pluginId, name: name.trim() || null, enabled, config });
      }
    } catch (error) {
      // A config problem names its field (attr `config__<field>[__…]`): show it there.
      const attr = error instanceof TRPCClientError ? (error.data as { attr?: string | null } | undefined)?.attr : null;
      const configField = attr?.startsWith("config__") ? attr.split("__")[1] : undefined;
      if (configField && fields.some((field) => field.key === configField)) {
        setFieldErrors({ [configField]: (error as Error).message });
        return;
      }
      const { fields: byField, form } = formErrorsFrom(error, ["name", "plugin"] as const);
      setFormError(byField.name ?? byField.plugin ?? form ?? errorMessage(error));
    }
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4 pb-5" data-testid="config-form" noValidate>
      {!editing && (
        <SelectField label="Plugin" value={pluginId} onChange={(event) => choosePlugin(Number(event.target.value))} testId="config-plugin">
          {plugins.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </SelectField>
      )}
      {!editing && plugin && <p className="-mt-2 text-sm text-gray-600">{plugin.description}</p>}
      <div className="grid gap-4 sm:grid-cols-[1fr_auto] sm:items-end">
        <TextField label="Name" value={name} placeholder={plugin?.name ?? ""} onChange={(event) => setName(event.target.value)} testId="config-name" maxLength={400} />
        <Switch checked={enabled} onChange={setEnabled} label="Run this transformation" testId="config-enabled" className="h-10" />
      </div>
      {fields.length > 0 && (
        <fieldset className="flex min-w-0 flex-col gap-4 border-t border-gray-100 pt-4">
          <legend className="sr-only">Configuration</legend>
          {fields.map((field) => (
            <ConfigInput
              key={field.key}
              field={field}
              value={values[field.key] ?? ""}
              error={fieldErrors[field.key] ?? null}
              stored={Boolean(editing && field.secret && editing.config[field.key])}
              onChange={(value) => setValues((current) => ({ ...current, [field.key]: value }))}
            />
          ))}
        </fieldset>
      )}
      {formError && <FormAlert testId="config-form-error">{formError}</FormAlert>}
      <div className="-mx-5 -mb-5 flex flex-wrap justify-end gap-2 rounded-b-card border-t border-gray-200 bg-gray-50 px-5 py-3">
        <Button variant="secondary" onClick={onDone} disabled={pending} data-testid="config-cancel">
          Cancel
        </Button>
        <Button type="submit" loading={pending} data-testid="config-save">
          {editing ? "Save" : "Add transformation"}
        </Button>
      </div>
    </form>
  );
}

function ConfigInput({
  field,
  value,
  error,
  stored,
  onChange,
}: {
  field: ConfigField;
  value: FieldValue;
  error: string | null;
  stored: boolean;
  onChange: (value: FieldValue) => void;
}) {
  const id = useId();
  const testId = `config-field-${field.key}`;
  if (field.type === "boolean") {
    return (
      <div className="flex flex-col gap-1">
        <label className="flex items-center gap-2 text-sm font-medium text-gray-800">
          <input type="checkbox" className="size-4 accent-brand-600" checked={value === true} onChange={(event) => onChange(event.target.checked)} data-testid={testId} />
          {field.name}
        </label>
        {field.hint && <p className="pl-6 text-sm text-gray-500">{field.hint}</p>}
      </div>
    );
  }
  if (field.type === "choice") {
    return (
      <SelectField label={field.name} hint={field.hint} error={error} value={String(value)} onChange={(event) => onChange(event.target.value)} testId={testId}>
        {(field.choices ?? []).map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </SelectField>
    );
  }
  if (field.type === "json" && field.entries) {
    return <EntriesField field={field} rows={Array.isArray(value) ? value : []} error={error} onChange={onChange} />;
  }
  if (field.type === "list" || field.type === "json") {
    const hint = field.type === "list" ? `${field.hint ?? ""}`.trim() || "One per line." : field.hint;
    return (
      <div className="flex min-w-0 flex-col gap-1.5">
        <label htmlFor={id} className="text-sm font-medium text-gray-800">
          {field.name}
          <span className="ml-2 text-xs font-normal text-gray-500">{field.type === "list" ? "one per line" : "JSON"}</span>
        </label>
        <textarea
          id={id}
          rows={field.type === "json" ? 4 : 3}
          spellCheck={false}
          className={inputClasses({ invalid: Boolean(error), className: "h-auto py-2 font-mono text-[13px]" })}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-note`}
          data-testid={testId}
        />
        <p id={`${id}-note`} className={error ? "text-sm text-red-700" : "text-sm text-gray-500"} data-testid={error ? `${testId}-error` : undefined}>
          {error ?? hint}
        </p>
      </div>
    );
  }
  return (
    <TextField
      label={field.name}
      hint={field.secret && stored ? `${field.hint ?? ""} A value is stored; leave empty to keep it.` : field.hint}
      error={error}
      type={field.secret ? "password" : "text"}
      autoComplete="off"
      value={String(value)}
      onChange={(event) => onChange(event.target.value)}
      testId={testId}
    />
  );
}
