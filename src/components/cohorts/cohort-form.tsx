"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { useState, type FormEvent } from "react";
import { Button, Card, FormAlert, inputClasses, PropertyFilterRow, RemoveButton, TextField } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { cohortCreateBody } from "@/server/cohorts/contract";
import type { CohortResource } from "@/server/cohorts/present";
import {
  COUNT_LABELS,
  LISTED,
  newCondition,
  newGroup,
  OPERATOR_LABELS,
  OPERATORS,
  toCohortInput,
  VALUELESS,
  type CohortDraft,
  type ConditionDraft,
  type ConditionKind,
  type CountOperator,
  type GroupDraft,
} from "./cohort-draft";
import { uploadCohortCsv } from "./csv-upload";

interface Issue {
  attr: string | null;
  message: string;
}

function issueOf(error: unknown): Issue {
  if (error instanceof TRPCClientError) {
    const attr = (error.data as { attr?: string | null } | undefined)?.attr ?? null;
    return { attr, message: error.data ? error.message : "Could not reach Burrow. Check your connection and try again." };
  }
  if (error && typeof error === "object" && "detail" in error) return { attr: (error as { attr?: string | null }).attr ?? null, message: String((error as { detail: unknown }).detail) };
  return { attr: null, message: error instanceof Error ? error.message : "Something went wrong. Try again." };
}

const KIND_LABELS: Record<ConditionKind, string> = { person: "Person property", cohort: "In cohort", behavioral: "Performed event" };

/**
 * Create or edit a cohort: name, description, and either its conditions (groups of person
 * property, cohort and "performed event" conditions, combined with AND/OR) or, for a new
 * static cohort, a CSV of people. Checked with the API's own schema before sending.
 */
export function CohortForm({ projectId, initial, cohort, onSaved }: { projectId: number; initial: CohortDraft; cohort?: CohortResource; onSaved: (cohort: CohortResource) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<CohortDraft>(initial);
  const [file, setFile] = useState<File | null>(null);
  const [issue, setIssue] = useState<Issue | null>(null);
  const [uploading, setUploading] = useState(false);
  const create = useMutation(trpc.cohorts.create.mutationOptions());
  const update = useMutation(trpc.cohorts.update.mutationOptions());
  const others = useQuery(trpc.cohorts.list.queryOptions({ projectId, limit: 1000 }));
  const pending = create.isPending || update.isPending || uploading;
  const set = (patch: Partial<CohortDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const setGroup = (id: number, patch: Partial<GroupDraft>) => setDraft((current) => ({ ...current, groups: current.groups.map((group) => (group.id === id ? { ...group, ...patch } : group)) }));
  const invalid = (attr: string) => issue?.attr === attr || (issue?.attr?.startsWith(`${attr}__`) ?? false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setIssue(null);
    const input = toCohortInput(draft);
    const checked = cohortCreateBody.safeParse(input);
    if (!checked.success) {
      const first = checked.error.issues[0]!;
      setIssue({ attr: first.path.map(String).join("__") || null, message: first.message });
      return;
    }
    try {
      let saved: CohortResource;
      if (!cohort && draft.isStatic && file) {
        setUploading(true);
        saved = await uploadCohortCsv(projectId, null, file, { name: input.name ?? "", description: input.description ?? "", is_static: "true" });
      } else if (cohort) {
        const { is_static: _, ...patch } = input;
        saved = await update.mutateAsync({ projectId, id: cohort.id, patch });
      } else {
        saved = await create.mutateAsync({ projectId, cohort: input });
      }
      await queryClient.invalidateQueries({ queryKey: trpc.cohorts.pathKey() });
      onSaved(saved);
    } catch (error) {
      setIssue(issueOf(error));
    } finally {
      setUploading(false);
    }
  }

  const cohortOptions = (others.data?.results ?? []).filter((other) => other.id !== cohort?.id);

  return (
    <form className="flex flex-col gap-6" onSubmit={submit} noValidate data-testid="cohort-form">
      <Card className="flex flex-col gap-4 p-4 sm:p-6">
        <TextField label="Name" value={draft.name} onChange={(event) => set({ name: event.target.value })} error={invalid("name") ? issue?.message : undefined} required testId="cohort-name" />
        <TextField label="Description" value={draft.description} onChange={(event) => set({ description: event.target.value })} testId="cohort-description" />
        {!cohort && (
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-1 text-sm font-medium text-gray-800">Type</legend>
            <label className="flex items-start gap-2 text-sm text-gray-800">
              <input type="radio" name="cohort-type" className="mt-0.5 size-4 accent-brand-600" checked={!draft.isStatic} onChange={() => set({ isStatic: false })} data-testid="cohort-type-dynamic" />
              <span>
                <span className="font-medium">Dynamic</span> — people who match conditions, recomputed as they change
              </span>
            </label>
            <label className="flex items-start gap-2 text-sm text-gray-800">
              <input type="radio" name="cohort-type" className="mt-0.5 size-4 accent-brand-600" checked={draft.isStatic} onChange={() => set({ isStatic: true })} data-testid="cohort-type-static" />
              <span>
                <span className="font-medium">Static</span> — a fixed list of people, from a CSV file
              </span>
            </label>
          </fieldset>
        )}
        {!cohort && draft.isStatic && <CsvField file={file} onFile={setFile} invalid={invalid("csv")} />}
      </Card>

      {!draft.isStatic && (
        <Card className="flex flex-col gap-4 p-4 sm:p-6" data-testid="cohort-conditions">
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
            <h2 className="text-base font-semibold text-gray-900">Who is in this cohort</h2>
            <label className="flex items-center gap-2 text-sm whitespace-nowrap text-gray-800">
              Match persons in
              <span className="w-36">
                <select className={inputClasses({ className: "pr-8" })} value={draft.type} onChange={(event) => set({ type: event.target.value as "AND" | "OR" })} data-testid="cohort-groups-type">
                  <option value="OR">any group</option>
                  <option value="AND">every group</option>
                </select>
              </span>
            </label>
          </div>
          {draft.groups.length === 0 && <p className="text-sm text-gray-600">No conditions: everyone is in this cohort.</p>}
          <ol className="flex flex-col gap-4">
            {draft.groups.map((group, index) => (
              <GroupEditor
                key={group.id}
                index={index}
                group={group}
                cohorts={cohortOptions}
                invalid={invalid}
                onChange={(patch) => setGroup(group.id, patch)}
                onRemove={() => set({ groups: draft.groups.filter((other) => other.id !== group.id) })}
              />
            ))}
          </ol>
          <div>
            <Button variant="secondary" size="sm" onClick={() => set({ groups: [...draft.groups, newGroup()] })} data-testid="add-group">
              + Add group
            </Button>
          </div>
        </Card>
      )}

      {issue && <FormAlert testId="cohort-form-error">{issue.message}</FormAlert>}
      <div className="flex justify-end">
        <Button type="submit" loading={pending} data-testid="cohort-save">
          {cohort ? "Save changes" : "Create cohort"}
        </Button>
      </div>
    </form>
  );
}

export function CsvField({ file, onFile, invalid }: { file: File | null; onFile: (file: File | null) => void; invalid: boolean }) {
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor="cohort-csv" className="text-sm font-medium text-gray-800">
        CSV file
      </label>
      <input
        id="cohort-csv"
        type="file"
        accept=".csv,text/csv"
        aria-describedby="cohort-csv-hint"
        aria-invalid={invalid || undefined}
        className="text-sm text-gray-800 file:mr-3 file:rounded-control file:border file:border-gray-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium"
        onChange={(event) => onFile(event.target.files?.[0] ?? null)}
        data-testid="cohort-csv"
      />
      <p id="cohort-csv-hint" className="text-xs text-gray-600">
        {file ? `${file.name} (${Math.ceil(file.size / 1024)} KB). ` : ""}One column of distinct ids (no header needed), or a column headed person_id, distinct_id or email. Up to 20 MB.
      </p>
    </div>
  );
}

function GroupEditor({
  index,
  group,
  cohorts,
  invalid,
  onChange,
  onRemove,
}: {
  index: number;
  group: GroupDraft;
  cohorts: CohortResource[];
  invalid: (attr: string) => boolean;
  onChange: (patch: Partial<GroupDraft>) => void;
  onRemove: () => void;
}) {
  const n = index + 1;
  const setCondition = (id: number, patch: Partial<ConditionDraft>) => onChange({ conditions: group.conditions.map((condition) => (condition.id === id ? { ...condition, ...patch } : condition)) });
  return (
    <li className="rounded-control border border-gray-200 bg-gray-50/60 p-3 sm:p-4" aria-label={`Group ${n}`} data-testid={`cohort-group-${index}`}>
      <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
        <h3 className="flex items-center gap-2 text-sm font-semibold whitespace-nowrap text-gray-900">
          Group {n}: match
          <span className="w-40 font-normal">
            <select
              aria-label={`Group ${n}: match all or any conditions`}
              className={inputClasses({ className: "pr-8" })}
              value={group.type}
              onChange={(event) => onChange({ type: event.target.value as "AND" | "OR" })}
              data-testid="group-type"
            >
              <option value="AND">all conditions</option>
              <option value="OR">any condition</option>
            </select>
          </span>
        </h3>
        <Button variant="ghost" size="sm" onClick={onRemove} aria-label={`Remove group ${n}`} data-testid="remove-group">
          Remove
        </Button>
      </div>
      <ul className="flex flex-col gap-3">
        {group.conditions.map((condition, c) => (
          <ConditionEditor
            key={condition.id}
            label={`Group ${n}, condition ${c + 1}`}
            at={`filters__properties__values__${index}__values__${c}`}
            condition={condition}
            cohorts={cohorts}
            invalid={invalid}
            onChange={(patch) => setCondition(condition.id, patch)}
            onRemove={() => onChange({ conditions: group.conditions.filter((other) => other.id !== condition.id) })}
          />
        ))}
      </ul>
      <Button variant="ghost" size="sm" className="mt-2" onClick={() => onChange({ conditions: [...group.conditions, newCondition()] })} data-testid="add-condition">
        + Add condition
      </Button>
    </li>
  );
}

function ConditionEditor({
  label,
  at,
  condition,
  cohorts,
  invalid,
  onChange,
  onRemove,
}: {
  label: string;
  at: string;
  condition: ConditionDraft;
  cohorts: CohortResource[];
  invalid: (attr: string) => boolean;
  onChange: (patch: Partial<ConditionDraft>) => void;
  onRemove: () => void;
}) {
  return (
    <li className="flex flex-col gap-2 rounded-control border border-gray-200 bg-white p-3" data-testid="cohort-condition">
      {/* The kind select never narrows below its longest label ("Person property"): at phone
          width "Not" and the remove button wrap, together, under it instead of squeezing it. */}
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <span className="min-w-max flex-1 sm:w-48 sm:flex-none">
          <select
            aria-label={`${label}: kind`}
            className={inputClasses({ className: "pr-8" })}
            value={condition.kind}
            onChange={(event) => onChange({ kind: event.target.value as ConditionKind })}
            data-testid="condition-kind"
          >
            {(Object.keys(KIND_LABELS) as ConditionKind[]).map((kind) => (
              <option key={kind} value={kind}>
                {KIND_LABELS[kind]}
              </option>
            ))}
          </select>
        </span>
        <div className="flex flex-1 items-center justify-between gap-3">
          <label className="flex items-center gap-1.5 text-sm text-gray-800">
            <input type="checkbox" className="size-4 accent-brand-600" checked={condition.negation} onChange={(event) => onChange({ negation: event.target.checked })} data-testid="condition-negation" />
            Not
          </label>
          <RemoveButton label={`Remove ${label}`} onClick={onRemove} />
        </div>
      </div>
      {condition.kind === "person" && (
        <ul>
          <PropertyFilterRow
            label={label}
            propertyKey={condition.key}
            operator={condition.operator}
            value={condition.value}
            operators={OPERATORS}
            operatorLabels={OPERATOR_LABELS}
            valueless={VALUELESS}
            listed={LISTED}
            invalid={{ key: invalid(`${at}__key`) || invalid(at), operator: invalid(`${at}__operator`), value: invalid(`${at}__value`) }}
            onChange={(patch) => onChange(patch)}
          />
        </ul>
      )}
      {condition.kind === "cohort" && (
        <select
          aria-label={`${label}: cohort`}
          className={inputClasses({ invalid: invalid(`${at}__value`) || invalid(at) })}
          value={condition.cohortId}
          onChange={(event) => onChange({ cohortId: event.target.value })}
          data-testid="condition-cohort"
        >
          <option value="">Choose a cohort…</option>
          {cohorts.map((other) => (
            <option key={other.id} value={String(other.id)}>
              {other.name || `Cohort ${other.id}`}
            </option>
          ))}
        </select>
      )}
      {condition.kind === "behavioral" && (
        <div className="grid grid-cols-2 items-center gap-2 text-sm text-gray-800 sm:grid-cols-[1fr_auto_5rem_auto_5rem_auto]">
          <input
            aria-label={`${label}: event`}
            className={inputClasses({ invalid: invalid(`${at}__key`), className: "col-span-2 sm:col-span-1" })}
            placeholder="Event, e.g. $pageview"
            value={condition.event}
            onChange={(event) => onChange({ event: event.target.value })}
            data-testid="condition-event"
          />
          <select
            aria-label={`${label}: how often`}
            className={inputClasses({ className: "pr-8" })}
            value={condition.countOperator}
            onChange={(event) => onChange({ countOperator: event.target.value as CountOperator })}
            data-testid="condition-count-operator"
          >
            {(Object.keys(COUNT_LABELS) as CountOperator[]).map((operator) => (
              <option key={operator} value={operator}>
                {COUNT_LABELS[operator]}
              </option>
            ))}
          </select>
          <input
            type="number"
            min={0}
            inputMode="numeric"
            aria-label={`${label}: times`}
            className={inputClasses({ invalid: invalid(`${at}__operator_value`), className: "tabular-nums" })}
            value={condition.count}
            onChange={(event) => onChange({ count: event.target.value })}
            data-testid="condition-count"
          />
          <span>times in the last</span>
          <input
            type="number"
            min={1}
            inputMode="numeric"
            aria-label={`${label}: days`}
            className={inputClasses({ invalid: invalid(`${at}__time_value`), className: "tabular-nums" })}
            value={condition.days}
            onChange={(event) => onChange({ days: event.target.value })}
            data-testid="condition-days"
          />
          <span>days</span>
        </div>
      )}
    </li>
  );
}
