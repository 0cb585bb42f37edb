"use client";

import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { cn } from "./cn";
import { inputClasses } from "./field";

export interface ComboboxOption {
  value: string;
  /** Shown dimmed at the right (a count, a type). */
  detail?: string;
}

export interface ComboboxProps {
  value: string;
  /** Every keystroke's text, and the value of an option picked: free text is allowed. */
  onChange: (value: string) => void;
  options: readonly ComboboxOption[];
  /** Suggestions are being fetched (the list says so to assistive technology) / could not be. */
  loading?: boolean;
  error?: boolean;
  /** A visible label; without one, pass `aria-label`. */
  label?: ReactNode;
  "aria-label"?: string;
  id?: string;
  placeholder?: string;
  /** The text marked in each option (the typed text by default). */
  highlight?: string;
  /** Called when the input gets focus: suggestions may be fetched from then on. */
  onFocus?: () => void;
  /** Open the list as soon as the input gets focus (PostHog's pickers do, filled or not). */
  openOnFocus?: boolean;
  invalid?: boolean;
  disabled?: boolean;
  testId?: string;
  className?: string;
  inputClassName?: string;
}

/** `text` with each case-insensitive occurrence of `part` in a <mark>. */
export function Highlighted({ text, part }: { text: string; part: string }) {
  if (part === "") return <>{text}</>;
  const lower = text.toLowerCase();
  const needle = part.toLowerCase();
  const pieces: ReactNode[] = [];
  let at = 0;
  for (let found = lower.indexOf(needle); found !== -1 && needle.length > 0; found = lower.indexOf(needle, at)) {
    if (found > at) pieces.push(text.slice(at, found));
    pieces.push(
      <mark key={found} className="rounded-sm bg-brand-100 font-semibold text-inherit">
        {text.slice(found, found + needle.length)}
      </mark>,
    );
    at = found + needle.length;
  }
  if (at < text.length) pieces.push(text.slice(at));
  return <>{pieces}</>;
}

/**
 * A text input with a list of suggestions: WAI-ARIA's combobox with list autocomplete. Typing
 * filters (the caller fetches); ArrowDown/ArrowUp move through the options (the input keeps
 * focus, `aria-activedescendant` names the active one), Enter picks it, Escape closes the
 * list; any text is allowed. Enter with no active option is left to the form (submits it).
 */
export function Combobox({
  value,
  onChange,
  options,
  loading = false,
  error = false,
  label,
  "aria-label": ariaLabel,
  id,
  placeholder,
  highlight,
  onFocus,
  openOnFocus = false,
  invalid,
  disabled,
  testId,
  className,
  inputClassName,
}: ComboboxProps) {
  const autoId = useId();
  const inputId = id ?? `${autoId}-input`;
  const listId = `${autoId}-list`;
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const listRef = useRef<HTMLUListElement>(null);

  // Nothing to offer when the only suggestion is what is typed already.
  const useful = !(options.length === 1 && options[0]!.value === value);
  // While the first suggestions load nothing opens: an empty list flashing under every keystroke helps no one.
  const shown = open && !disabled && ((options.length > 0 && useful) || error);
  const activeIndex = shown && active < options.length ? active : -1;
  const optionId = (index: number) => `${autoId}-option-${index}`;

  useEffect(() => {
    if (activeIndex < 0) return;
    const node = listRef.current?.querySelector<HTMLElement>(`[data-index="${activeIndex}"]`);
    node?.scrollIntoView?.({ block: "nearest" });
  }, [activeIndex]);

  const pick = (option: ComboboxOption) => {
    onChange(option.value);
    setOpen(false);
    setActive(-1);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    switch (event.key) {
      case "ArrowDown":
        event.preventDefault();
        if (!open) setOpen(true);
        else setActive((current) => Math.min(current + 1, options.length - 1));
        break;
      case "ArrowUp":
        event.preventDefault();
        if (!open) setOpen(true);
        else setActive((current) => (current <= 0 ? options.length - 1 : current - 1));
        break;
      case "Enter":
        if (shown && activeIndex >= 0) {
          event.preventDefault();
          pick(options[activeIndex]!);
        } else setOpen(false);
        break;
      case "Escape":
        if (shown) {
          // Closes the list only, not a dialog around it.
          event.preventDefault();
          event.stopPropagation();
        }
        setOpen(false);
        setActive(-1);
        break;
      case "Tab":
        setOpen(false);
        break;
    }
  };

  const mark = highlight ?? value;
  return (
    <div className={cn("flex min-w-0 flex-col gap-1.5", className)}>
      {label && (
        <label htmlFor={inputId} className="text-sm font-medium text-gray-800">
          {label}
        </label>
      )}
      <div className="relative">
        <input
          id={inputId}
          type="text"
          role="combobox"
          aria-label={label ? undefined : ariaLabel}
          aria-autocomplete="list"
          aria-expanded={shown}
          aria-controls={listId}
          aria-activedescendant={activeIndex >= 0 ? optionId(activeIndex) : undefined}
          aria-invalid={invalid || undefined}
          autoComplete="off"
          spellCheck={false}
          placeholder={placeholder}
          disabled={disabled}
          value={value}
          data-testid={testId}
          className={inputClasses({ invalid, className: inputClassName })}
          onChange={(event) => {
            onChange(event.target.value);
            setOpen(true);
            setActive(-1);
          }}
          onFocus={() => {
            onFocus?.();
            if (openOnFocus) setOpen(true);
          }}
          onClick={() => setOpen(true)}
          onBlur={() => {
            setOpen(false);
            setActive(-1);
          }}
          onKeyDown={onKeyDown}
        />
        <ul
          ref={listRef}
          id={listId}
          role="listbox"
          aria-label={typeof label === "string" ? `${label} suggestions` : ariaLabel ? `${ariaLabel} suggestions` : "Suggestions"}
          hidden={!shown}
          aria-busy={loading || undefined}
          className="absolute inset-x-0 top-full z-30 mt-1 max-h-64 overflow-y-auto rounded-control border border-gray-200 bg-white py-1 text-sm shadow-lg"
          data-testid={testId ? `${testId}-suggestions` : undefined}
        >
          {options.map((option, index) => (
            <li
              key={option.value}
              id={optionId(index)}
              role="option"
              aria-selected={index === activeIndex}
              data-index={index}
              className={cn(
                "flex cursor-pointer items-baseline justify-between gap-3 px-3 py-2",
                index === activeIndex ? "bg-brand-50 text-brand-900" : "text-gray-800 hover:bg-gray-50",
              )}
              // Keeps focus in the input, so blur does not close the list before the click lands.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => pick(option)}
            >
              <span className="min-w-0 truncate font-mono text-[0.8125rem]">
                <Highlighted text={option.value} part={mark} />
              </span>
              {option.detail && <span className="shrink-0 text-xs text-gray-500">{option.detail}</span>}
            </li>
          ))}
          {options.length === 0 && error && (
            <li role="presentation" className="px-3 py-2 text-gray-500">
              Suggestions could not be loaded; type the name.
            </li>
          )}
        </ul>
      </div>
    </div>
  );
}
