"use client";

import { useId, useRef } from "react";
import { Button, inputClasses } from "@/components/ui";
import type { ConfigField } from "@/server/transformations/catalogue";
import type { EntryRow } from "./config-form";

/**
 * An object-of-entries config field (renames, properties to set) as rows of name and value
 * instead of a JSON box. Values of a "json" field read as JSON when they parse (42, true,
 * {…}), else as text (config-form.ts).
 */
export function EntriesField({ field, rows, error, onChange }: { field: ConfigField; rows: EntryRow[]; error: string | null; onChange: (rows: EntryRow[]) => void }) {
  const id = useId();
  const ids = useRef(new WeakMap<EntryRow, number>());
  const next = useRef(0);
  const keyOf = (row: EntryRow) => {
    let key = ids.current.get(row);
    if (key === undefined) ids.current.set(row, (key = next.current++));
    return key;
  };
  const [nameLabel, valueLabel] = field.entries === "text" ? ["Old name", "New name"] : ["Property", "Value"];
  const testId = `config-field-${field.key}`;
  const set = (index: number, patch: Partial<EntryRow>) => {
    const copy = rows.slice();
    const changed = { ...copy[index]!, ...patch };
    ids.current.set(changed, keyOf(copy[index]!));
    copy[index] = changed;
    onChange(copy);
  };
  return (
    <fieldset className="flex min-w-0 flex-col gap-1.5" aria-describedby={`${id}-note`} data-testid={testId}>
      <legend className="text-sm font-medium text-gray-800">{field.name}</legend>
      {rows.length === 0 ? (
        <p className="text-sm text-gray-500">None yet.</p>
      ) : (
        <ul className="flex flex-col gap-2">
          {rows.map((row, index) => (
            <li key={keyOf(row)} className="grid grid-cols-[1fr_1fr_auto] gap-2" data-testid={`${testId}-row`}>
              <input
                aria-label={`${field.name} ${index + 1}: ${nameLabel.toLowerCase()}`}
                className={inputClasses({ className: "font-mono text-[13px]" })}
                placeholder={nameLabel}
                value={row.key}
                onChange={(event) => set(index, { key: event.target.value })}
                data-testid={`${testId}-key`}
              />
              <input
                aria-label={`${field.name} ${index + 1}: ${valueLabel.toLowerCase()}`}
                className={inputClasses({ className: "font-mono text-[13px]" })}
                placeholder={valueLabel}
                value={row.value}
                onChange={(event) => set(index, { value: event.target.value })}
                data-testid={`${testId}-value`}
              />
              <Button variant="ghost" className="px-2.5" aria-label={`Remove ${field.name} ${index + 1}`} onClick={() => onChange(rows.filter((_, i) => i !== index))}>
                <svg aria-hidden="true" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" className="size-4">
                  <path d="M5 5l10 10M15 5 5 15" />
                </svg>
              </Button>
            </li>
          ))}
        </ul>
      )}
      <div>
        <Button variant="ghost" size="sm" onClick={() => onChange([...rows, { key: "", value: "" }])} data-testid={`${testId}-add`}>
          + Add {field.entries === "text" ? "a rename" : "a property"}
        </Button>
      </div>
      <p id={`${id}-note`} className={error ? "text-sm text-red-700" : "text-sm text-gray-500"} data-testid={error ? `${testId}-error` : undefined}>
        {error ?? (field.entries === "json" ? "Values are read as JSON when they are JSON (42, true, {…}), else as text." : field.hint)}
      </p>
    </fieldset>
  );
}
