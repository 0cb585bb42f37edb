"use client";

import { useId, type ReactNode } from "react";
import { cn } from "./cn";
import { CopyButton } from "./copy-button";
import { inputClasses } from "./field";

export interface CopyFieldProps {
  label: ReactNode;
  value: string;
  hint?: ReactNode;
  /** Test id of the input; the button gets `<testId>-copy`. */
  testId?: string;
  /** Hide the label visually (it is still read by screen readers). */
  hideLabel?: boolean;
  className?: string;
}

/** A read-only value (a key, a link) in a monospace field, with a Copy button beside it. */
export function CopyField({ label, value, hint, testId, hideLabel = false, className }: CopyFieldProps) {
  const id = useId();
  return (
    <div className={cn("flex min-w-0 flex-col gap-1.5", className)}>
      <label htmlFor={id} className={cn("text-sm font-medium text-gray-800", hideLabel && "sr-only")}>
        {label}
      </label>
      <div className="flex min-w-0 gap-2">
        <input
          id={id}
          readOnly
          value={value}
          spellCheck={false}
          autoComplete="off"
          onFocus={(event) => event.currentTarget.select()}
          aria-describedby={hint ? `${id}-hint` : undefined}
          data-testid={testId}
          className={inputClasses({ className: "font-mono text-[13px]" })}
        />
        <CopyButton value={value} label={`Copy ${typeof label === "string" ? label.toLowerCase() : "the value"}`} testId={testId ? `${testId}-copy` : undefined} />
      </div>
      {hint && (
        <p id={`${id}-hint`} className="text-sm text-gray-500">
          {hint}
        </p>
      )}
    </div>
  );
}
