"use client";

/** One condition set of the flag form (flag-form.tsx): its property and cohort rows, rollout and reach; and the form's small inputs. */
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Button, inputClasses, PropertyFilterRow, RemoveButton } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import type { FlagPropertyOperator } from "@/server/properties/flag-filters";
import {
  COHORT_OPERATOR_LABELS,
  COHORT_OPERATORS,
  LISTED,
  newCohortProperty,
  newProperty,
  OPERATOR_LABELS,
  OPERATORS,
  VALUELESS,
  type ConditionDraft,
  type FlagDraft,
  type PropertyDraft,
} from "./flag-draft";
import { ConditionReach, type FlagReachState } from "./flag-reach";

export function ConditionEditor({
  projectId,
  index,
  condition,
  draft,
  reach,
  invalid,
  onChange,
  onRemove,
}: {
  projectId: number;
  index: number;
  condition: ConditionDraft;
  draft: FlagDraft;
  reach: FlagReachState;
  invalid: (attr: string) => boolean;
  onChange: (patch: Partial<ConditionDraft>) => void;
  onRemove?: () => void;
}) {
  const n = index + 1;
  const at = `filters__groups__${index}`;
  const setProperty = (id: number, patch: Partial<PropertyDraft>) => onChange({ properties: condition.properties.map((p) => (p.id === id ? { ...p, ...patch } : p)) });
  return (
    <li className="rounded-control border border-gray-200 bg-gray-50/60 p-3 sm:p-4" data-testid={`condition-${index}`} aria-label={`Condition set ${n}`}>
      <div className="mb-3 flex items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-gray-900">Condition set {n}</h3>
        {onRemove && (
          <Button variant="ghost" size="sm" onClick={onRemove} aria-label={`Remove condition set ${n}`} data-testid="remove-condition">
            Remove
          </Button>
        )}
      </div>
      {condition.properties.length === 0 ? (
        <p className="mb-2 text-sm text-gray-600">No property filters: applies to every user.</p>
      ) : (
        <ul className="mb-2 flex flex-col gap-2">
          {condition.properties.map((property, p) => {
            const pat = `${at}__properties__${p}`;
            if (property.type === "cohort") {
              return (
                <CohortRow
                  key={property.id}
                  projectId={projectId}
                  label={`Condition set ${n}, filter ${p + 1}`}
                  property={property}
                  invalid={invalid(`${pat}__value`)}
                  onChange={(patch) => setProperty(property.id, patch)}
                  onRemove={() => onChange({ properties: condition.properties.filter((x) => x.id !== property.id) })}
                />
              );
            }
            return (
              <PropertyFilterRow
                key={property.id}
                label={`Condition set ${n}, filter ${p + 1}`}
                propertyKey={property.key}
                operator={property.operator as FlagPropertyOperator}
                value={property.value}
                operators={OPERATORS}
                operatorLabels={OPERATOR_LABELS}
                valueless={VALUELESS}
                listed={LISTED}
                invalid={{ key: invalid(`${pat}__key`), operator: invalid(`${pat}__operator`), value: invalid(`${pat}__value`) }}
                onChange={({ key, ...patch }) => setProperty(property.id, { ...patch, ...(key === undefined ? {} : { key }) })}
                onRemove={() => onChange({ properties: condition.properties.filter((x) => x.id !== property.id) })}
                removeLabel={`Remove filter ${p + 1} of condition set ${n}`}
              />
            );
          })}
        </ul>
      )}
      <div className="flex flex-wrap gap-1">
        <Button variant="ghost" size="sm" onClick={() => onChange({ properties: [...condition.properties, newProperty()] })} data-testid="add-property">
          + Add property filter
        </Button>
        <Button variant="ghost" size="sm" onClick={() => onChange({ properties: [...condition.properties, newCohortProperty()] })} data-testid="add-cohort">
          + Add cohort
        </Button>
      </div>
      <div className="mt-3 flex flex-col gap-3 border-t border-gray-200 pt-3 sm:flex-row sm:items-end">
        <div className="flex min-w-0 flex-1 flex-col gap-1.5">
          <span className="text-sm font-medium text-gray-800" id={`rollout-${condition.id}`}>
            Roll out to
          </span>
          <div className="flex items-center gap-3">
            <input
              type="range"
              min={0}
              max={100}
              step={1}
              aria-labelledby={`rollout-${condition.id}`}
              aria-valuetext={`${condition.rollout || 0}% of matching users`}
              className="h-2 min-w-0 flex-1 accent-brand-600"
              value={Number(condition.rollout) || 0}
              onChange={(event) => onChange({ rollout: event.target.value })}
              data-testid="rollout-slider"
            />
            <PercentInput
              label={`Condition set ${n} rollout percentage`}
              value={condition.rollout}
              invalid={invalid(`${at}__rollout_percentage`)}
              onChange={(rollout) => onChange({ rollout })}
              testId="rollout-input"
            />
          </div>
        </div>
        {draft.multivariate && (
          <label className="flex min-w-0 flex-col gap-1.5 text-sm font-medium text-gray-800 sm:w-48">
            Variant
            <select
              className={inputClasses({ invalid: invalid(`${at}__variant`), className: "pr-8" })}
              value={condition.variant}
              onChange={(event) => onChange({ variant: event.target.value })}
              data-testid="condition-variant"
            >
              <option value="">By rollout hash</option>
              {draft.variants
                .filter((variant) => variant.key)
                .map((variant) => (
                  <option key={variant.id} value={variant.key}>
                    Always {variant.key}
                  </option>
                ))}
            </select>
          </label>
        )}
      </div>
      <ConditionReach state={reach} index={index} />
    </li>
  );
}

/**
 * A cohort condition: "is in" / "is not in" and the project's cohorts by name. Cohorts with
 * filters on events are listed but cannot be chosen (flags evaluate person properties only).
 */
function CohortRow({
  projectId,
  label,
  property,
  invalid,
  onChange,
  onRemove,
}: {
  projectId: number;
  label: string;
  property: PropertyDraft;
  invalid: boolean;
  onChange: (patch: Partial<PropertyDraft>) => void;
  onRemove: () => void;
}) {
  const trpc = useTRPC();
  const options = useQuery(trpc.flags.cohortOptions.queryOptions({ projectId }));
  const chosen = options.data?.find((option) => String(option.id) === property.value);
  const reason = chosen?.disabledReason ?? null;
  return (
    <li className="grid grid-cols-[1fr_auto] gap-2 sm:grid-cols-[1fr_10rem_1fr_auto]" data-testid="condition-cohort">
      <span className="col-span-2 flex items-center text-sm font-medium text-gray-800 sm:col-span-1">Person</span>
      <select
        aria-label={`${label}: cohort operator`}
        className={inputClasses({ className: "col-span-2 pr-8 sm:col-span-1" })}
        value={property.operator}
        onChange={(event) => onChange({ operator: event.target.value as PropertyDraft["operator"] })}
        data-testid="cohort-operator"
      >
        {COHORT_OPERATORS.map((operator) => (
          <option key={operator} value={operator}>
            {COHORT_OPERATOR_LABELS[operator]}
          </option>
        ))}
      </select>
      <div className="flex min-w-0 flex-col gap-1">
        <select
          aria-label={`${label}: cohort`}
          aria-invalid={invalid || undefined}
          aria-busy={options.isPending || undefined}
          className={inputClasses({ invalid, className: "pr-8" })}
          value={property.value}
          disabled={options.isPending}
          onChange={(event) => onChange({ value: event.target.value })}
          data-testid="cohort-picker"
        >
          <option value="">{options.isPending ? "Loading cohorts…" : options.isError ? "Could not load cohorts" : options.data.length === 0 ? "No cohorts yet" : "Choose a cohort"}</option>
          {options.data?.map((option) => (
            <option key={option.id} value={String(option.id)} disabled={option.disabledReason !== null}>
              {option.name || `Cohort ${option.id}`}
              {option.is_static ? " (static)" : ""}
              {option.disabledReason ? " — uses events, not available in flags" : ""}
            </option>
          ))}
          {property.value !== "" && options.data && !chosen && <option value={property.value}>Cohort {property.value} (deleted or missing)</option>}
        </select>
        {options.isError ? (
          <span className="text-xs text-red-700" role="alert">
            {options.error.message}{" "}
            <button type="button" className="underline" onClick={() => void options.refetch()}>
              Retry
            </button>
          </span>
        ) : reason ? (
          <span className="text-xs text-red-700">{reason}</span>
        ) : options.data?.some((option) => option.disabledReason) ? (
          <span className="text-xs text-gray-500" data-testid="cohort-picker-hint">
            Cohorts with filters on events cannot be used in flags.
          </span>
        ) : null}
      </div>
      <RemoveButton label={`Remove ${label.toLowerCase()}`} onClick={onRemove} />
    </li>
  );
}

export function PercentInput({ label, value, invalid, onChange, testId }: { label: string; value: string; invalid: boolean; onChange: (value: string) => void; testId: string }) {
  return (
    <div className="relative w-24 shrink-0">
      <input
        type="number"
        inputMode="decimal"
        min={0}
        max={100}
        aria-label={label}
        aria-invalid={invalid || undefined}
        className={inputClasses({ invalid, className: "pr-7 text-right tabular-nums" })}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        data-testid={testId}
      />
      <span aria-hidden="true" className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-sm text-gray-500">
        %
      </span>
    </div>
  );
}

export function Checkbox({ checked, onChange, children, testId }: { checked: boolean; onChange: (checked: boolean) => void; children: ReactNode; testId: string }) {
  return (
    <label className="flex items-start gap-2 text-sm font-medium text-gray-800">
      <input type="checkbox" className="mt-0.5 size-4 shrink-0 accent-brand-600" checked={checked} onChange={(event) => onChange(event.target.checked)} data-testid={testId} />
      <span>{children}</span>
    </label>
  );
}
