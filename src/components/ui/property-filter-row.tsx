"use client";

import { Button } from "./button";
import { inputClasses } from "./field";

export interface PropertyFilterRowProps<Operator extends string> {
  /** Names the row for screen readers: "Condition set 1, filter 2". */
  label: string;
  propertyKey: string;
  operator: Operator;
  value: string;
  operators: readonly Operator[];
  operatorLabels: Record<Operator, string>;
  /** Operators that take no value (is_set, is_not_set). */
  valueless: ReadonlySet<string>;
  /** Operators whose value may list alternatives, comma-separated. */
  listed: ReadonlySet<string>;
  invalid?: { key?: boolean; operator?: boolean; value?: boolean };
  onChange: (patch: { key?: string; operator?: Operator; value?: string }) => void;
  /** Whose property the key names, for its label and placeholder (default: person). */
  keyNoun?: string;
  keyPlaceholder?: string;
  /** Without it the row has no remove button (the caller places one). */
  onRemove?: () => void;
  removeLabel?: string;
}

/**
 * One person-property condition: property, operator, value — the row the feature-flag
 * editor's condition sets and the cohort builder share.
 */
export function PropertyFilterRow<Operator extends string>({
  label,
  propertyKey,
  operator,
  value,
  operators,
  operatorLabels,
  valueless,
  listed,
  invalid = {},
  onChange,
  onRemove,
  removeLabel,
  keyNoun = "person property",
  keyPlaceholder = "Person property, e.g. email",
}: PropertyFilterRowProps<Operator>) {
  const noValue = valueless.has(operator);
  return (
    <li
      className={onRemove ? "grid grid-cols-[1fr_auto] gap-2 sm:grid-cols-[1fr_10rem_1fr_auto]" : "grid grid-cols-1 gap-2 sm:grid-cols-[1fr_10rem_1fr]"}
      data-testid="condition-property"
    >
      <input
        aria-label={`${label}: ${keyNoun}`}
        className={inputClasses({ invalid: invalid.key, className: onRemove ? "col-span-2 sm:col-span-1" : undefined })}
        placeholder={keyPlaceholder}
        value={propertyKey}
        onChange={(event) => onChange({ key: event.target.value })}
        data-testid="property-key"
      />
      <select
        aria-label={`${label}: operator`}
        className={inputClasses({ invalid: invalid.operator, className: onRemove ? "col-span-2 pr-8 sm:col-span-1" : "pr-8" })}
        value={operator}
        onChange={(event) => onChange({ operator: event.target.value as Operator })}
        data-testid="property-operator"
      >
        {operators.map((option) => (
          <option key={option} value={option}>
            {operatorLabels[option]}
          </option>
        ))}
      </select>
      <input
        aria-label={`${label}: value`}
        className={inputClasses({ invalid: invalid.value })}
        placeholder={noValue ? "No value needed" : listed.has(operator) ? "Value (several: comma-separated)" : "Value"}
        disabled={noValue}
        value={noValue ? "" : value}
        onChange={(event) => onChange({ value: event.target.value })}
        data-testid="property-value"
      />
      {onRemove && <RemoveButton label={removeLabel ?? `Remove ${label}`} onClick={onRemove} />}
    </li>
  );
}

/** The small × button that removes a row. */
export function RemoveButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <Button variant="ghost" aria-label={label} onClick={onClick} className="px-2.5" data-testid="remove-row">
      <svg aria-hidden="true" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" className="size-4">
        <path d="M5 5l10 10M15 5 5 15" />
      </svg>
    </Button>
  );
}
