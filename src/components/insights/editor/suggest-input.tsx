"use client";

import { useId, useRef, useState } from "react";
import { cn, inputClasses } from "@/components/ui";

/**
 * A text input with a list of suggestions (WAI-ARIA combobox with a listbox): typing filters
 * them (contains, case-insensitive), ArrowDown/ArrowUp move, Enter picks, Escape closes.
 * The text typed is a value too: suggestions only help.
 */
export function SuggestInput({
  label,
  value,
  onChange,
  suggestions,
  placeholder,
  className,
  testId,
  loading = false,
  disabled = false,
  onSearch,
}: {
  /** Told what is being typed ("" when the list opens on a chosen value), for suggestions searched on the server. */
  onSearch?: (search: string) => void;
  label: string;
  value: string;
  onChange: (value: string) => void;
  suggestions: readonly string[];
  placeholder?: string;
  className?: string;
  testId?: string;
  loading?: boolean;
  disabled?: boolean;
}) {
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [typed, setTypedText] = useState<string | null>(null);
  const setTyped = (text: string | null) => {
    setTypedText(text);
    onSearch?.(text ?? "");
  };
  const inputRef = useRef<HTMLInputElement>(null);
  // While typing, the list filters by the text; opened on a chosen value, it lists everything.
  const needle = (typed ?? "").trim().toLowerCase();
  const options = suggestions.filter((option) => option.toLowerCase().includes(needle)).slice(0, 50);
  const optionId = (index: number) => `${listId}-option-${index}`;

  const pick = (option: string) => {
    onChange(option);
    setTyped(null);
    setOpen(false);
    setActive(-1);
  };

  return (
    <div className={cn("relative min-w-0", className)}>
      <input
        ref={inputRef}
        role="combobox"
        aria-label={label}
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && active >= 0 && active < options.length ? optionId(active) : undefined}
        autoComplete="off"
        spellCheck={false}
        disabled={disabled}
        className={inputClasses()}
        placeholder={placeholder}
        value={value}
        data-testid={testId}
        onChange={(event) => {
          onChange(event.target.value);
          setTyped(event.target.value);
          setOpen(true);
          setActive(0);
        }}
        onFocus={() => setTyped(null)}
        onClick={() => setOpen(true)}
        onBlur={() => {
          setOpen(false);
          setTyped(null);
        }}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown") {
            event.preventDefault();
            if (!open) setOpen(true);
            setActive((current) => Math.min(current + 1, options.length - 1));
          } else if (event.key === "ArrowUp") {
            event.preventDefault();
            setActive((current) => Math.max(current - 1, 0));
          } else if (event.key === "Enter" && open && active >= 0 && active < options.length) {
            event.preventDefault();
            pick(options[active]!);
          } else if (event.key === "Escape" && open) {
            event.preventDefault();
            event.stopPropagation();
            setOpen(false);
          }
        }}
      />
      {open && (
        <ul
          id={listId}
          role="listbox"
          aria-label={`${label}: suggestions`}
          className="absolute z-30 mt-1 max-h-64 w-full min-w-48 overflow-auto rounded-control border border-gray-200 bg-white py-1 text-sm shadow-lg"
          data-testid={testId ? `${testId}-options` : undefined}
        >
          {options.map((option, index) => (
            <li
              key={option}
              id={optionId(index)}
              role="option"
              aria-selected={index === active}
              className={cn("cursor-pointer truncate px-3 py-1.5 text-gray-800", index === active && "bg-brand-50 text-brand-800")}
              // Before the input's blur, so the click lands.
              onMouseDown={(event) => {
                event.preventDefault();
                pick(option);
              }}
              onMouseEnter={() => setActive(index)}
            >
              {option}
            </li>
          ))}
          {options.length === 0 && <li role="option" aria-selected={false} aria-disabled="true" className="px-3 py-1.5 text-gray-500">{loading ? "Loading suggestions…" : "No suggestions"}</li>}
        </ul>
      )}
    </div>
  );
}
