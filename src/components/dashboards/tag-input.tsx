"use client";

import { useId, useState, type KeyboardEvent } from "react";
import { cn, inputClasses } from "@/components/ui";

/**
 * Tags as removable chips and a text box: Enter or a comma adds what was typed, Backspace in
 * an empty box removes the last tag. The project's existing tags are offered as suggestions.
 */
export function TagInput({
  label,
  value,
  onChange,
  suggestions = [],
  error,
  testId,
}: {
  label: string;
  value: string[];
  onChange: (tags: string[]) => void;
  suggestions?: readonly string[];
  error?: string | null;
  testId?: string;
}) {
  const id = useId();
  const [draft, setDraft] = useState("");

  function add(text: string) {
    const tags = text
      .split(",")
      .map((tag) => tag.trim().toLowerCase())
      .filter((tag) => tag && !value.includes(tag));
    if (tags.length > 0) onChange([...value, ...new Set(tags)]);
    setDraft("");
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Enter" || event.key === ",") {
      if (draft.trim()) {
        event.preventDefault();
        add(draft);
      } else if (event.key === ",") event.preventDefault();
    } else if (event.key === "Backspace" && draft === "" && value.length > 0) {
      onChange(value.slice(0, -1));
    }
  }

  return (
    <div className="flex min-w-0 flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-gray-800">
        {label}
      </label>
      {value.length > 0 && (
        <ul className="flex flex-wrap gap-1.5" aria-label={`${label}: chosen`} data-testid={testId ? `${testId}-chosen` : undefined}>
          {value.map((tag) => (
            <li key={tag} className="inline-flex items-center gap-1 rounded-full bg-gray-100 py-0.5 pr-1 pl-2.5 text-xs font-medium text-gray-700 ring-1 ring-gray-200 ring-inset">
              {tag}
              <button
                type="button"
                className="inline-flex size-5 items-center justify-center rounded-full text-gray-500 hover:bg-gray-200 hover:text-gray-800 focus-visible:outline-2 focus-visible:outline-brand-600"
                aria-label={`Remove tag ${tag}`}
                onClick={() => onChange(value.filter((t) => t !== tag))}
              >
                <svg aria-hidden="true" viewBox="0 0 16 16" fill="currentColor" className="size-3">
                  <path d="M4.28 3.22a.75.75 0 0 0-1.06 1.06L6.94 8l-3.72 3.72a.75.75 0 1 0 1.06 1.06L8 9.06l3.72 3.72a.75.75 0 1 0 1.06-1.06L9.06 8l3.72-3.72a.75.75 0 0 0-1.06-1.06L8 6.94 4.28 3.22Z" />
                </svg>
              </button>
            </li>
          ))}
        </ul>
      )}
      <input
        id={id}
        list={`${id}-suggestions`}
        value={draft}
        onChange={(event) => {
          const text = event.target.value;
          // A suggestion picked from the list arrives whole: take it at once.
          if (suggestions.includes(text)) add(text);
          else setDraft(text);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => draft.trim() && add(draft)}
        placeholder="Type a tag and press Enter"
        aria-describedby={`${id}-hint`}
        aria-invalid={error ? true : undefined}
        data-testid={testId}
        className={cn(inputClasses({ invalid: Boolean(error) }))}
      />
      <datalist id={`${id}-suggestions`}>
        {suggestions
          .filter((tag) => !value.includes(tag))
          .map((tag) => (
            <option key={tag} value={tag} />
          ))}
      </datalist>
      {error ? (
        <p className="text-sm text-red-700">{error}</p>
      ) : (
        <p id={`${id}-hint`} className="text-sm text-gray-500">
          Lower case; separate tags with Enter or a comma.
        </p>
      )}
    </div>
  );
}
