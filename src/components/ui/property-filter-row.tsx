"use client";

import type { ReactNode } from "react";
import { PropertyKeyCombobox, PropertyValueCombobox } from "@/components/definitions";
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
  /** The key input's placeholder (the combobox's own by default). */
  keyPlaceholder?: string;
  /** Without it the row has no remove button (the caller places one). */
  onRemove?: () => void;
  removeLabel?: string;
  /** Whose properties the key and value suggestions come from (person for flags and cohorts). */
  propertyType?: "event" | "person";
  /** Whose property the key names, for its label ("<propertyType> property" by default). */
  keyNoun?: string;
  /** Replaces the key or value suggestions combobox; gets the input's label, classes and value. */
  renderKey?: (input: RowInput) => ReactNode;
  renderValue?: (input: RowInput & { disabled: boolean; placeholder: string }) => ReactNode;
}

/** What a replacement input of a row is given. */
export interface RowInput {
  label: string;
  className: string;
  value: string;
  onChange: (value: string) => void;
}

/**
 * One property condition: property, operator, value — the row the feature-flag editor's
 * condition sets and the cohort builder share. Key and value suggest the project's property
 * keys (most used first) and the key's values as you type.
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
  propertyType = "person",
  keyNoun = `${propertyType} property`,
  renderKey,
  renderValue,
  keyPlaceholder,
}: PropertyFilterRowProps<Operator>) {
  const noValue = valueless.has(operator);
  const keyClasses = inputClasses({ invalid: invalid.key, className: onRemove ? "col-span-2 @lg:col-span-1" : undefined });
  const valuePlaceholder = noValue ? "No value needed" : listed.has(operator) ? "Value (several: comma-separated)" : "Value";
  return (
    // Laid out by the room the row has, not the window's: inside a filter group or a narrow
    // column the three fields stack as on a phone instead of squeezing the key to a few letters.
    <li className="@container" data-testid="condition-property">
      <div className={onRemove ? "grid grid-cols-[1fr_auto] gap-2 @lg:grid-cols-[1fr_10rem_1fr_auto]" : "grid grid-cols-1 gap-2 @lg:grid-cols-[1fr_10rem_1fr]"}>
        {renderKey ? (
          renderKey({ label: `${label}: ${keyNoun}`, className: keyClasses, value: propertyKey, onChange: (key) => onChange({ key }) })
        ) : (
          <PropertyKeyCombobox
            aria-label={`${label}: ${keyNoun}`}
            className={onRemove ? "col-span-2 @lg:col-span-1" : undefined}
            type={propertyType}
            invalid={invalid.key}
            value={propertyKey}
            onChange={(key) => onChange({ key })}
            placeholder={keyPlaceholder}
            testId="property-key"
          />
        )}
        <select
          aria-label={`${label}: operator`}
          className={inputClasses({ invalid: invalid.operator, className: onRemove ? "col-span-2 pr-8 @lg:col-span-1" : "pr-8" })}
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
        {renderValue ? (
          renderValue({
            label: `${label}: value`,
            className: inputClasses({ invalid: invalid.value }),
            value: noValue ? "" : value,
            onChange: (next) => onChange({ value: next }),
            disabled: noValue,
            placeholder: valuePlaceholder,
          })
        ) : (
          <PropertyValueCombobox
            aria-label={`${label}: value`}
            propertyKey={propertyKey}
            type={propertyType}
            invalid={invalid.value}
            placeholder={valuePlaceholder}
            disabled={noValue}
            value={noValue ? "" : value}
            onChange={(next) => onChange({ value: next })}
            testId="property-value"
          />
        )}
        {onRemove && <RemoveButton label={removeLabel ?? `Remove ${label}`} onClick={onRemove} />}
      </div>
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
