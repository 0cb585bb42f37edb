"use client";

import { cn } from "./cn";

export interface SwitchProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** The accessible name, e.g. "URL parser enabled". */
  label: string;
  /** Shown beside the switch; defaults to Enabled / Disabled. */
  text?: [on: string, off: string];
  disabled?: boolean;
  testId?: string;
  className?: string;
}

/** An on/off switch: a button with role="switch", so Space and Enter toggle it. */
export function Switch({ checked, onChange, label, text = ["Enabled", "Disabled"], disabled = false, testId, className }: SwitchProps) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={label}
      disabled={disabled}
      onClick={() => onChange(!checked)}
      data-testid={testId}
      className={cn(
        "group inline-flex items-center gap-2 rounded-full text-sm text-gray-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60",
        className,
      )}
    >
      <span className={cn("relative inline-flex h-6 w-11 shrink-0 rounded-full transition-colors", checked ? "bg-brand-600" : "bg-gray-300")}>
        <span className={cn("absolute top-0.5 size-5 rounded-full bg-white shadow transition-transform", checked ? "translate-x-5.5" : "translate-x-0.5")} />
      </span>
      <span className="w-16 text-left">{checked ? text[0] : text[1]}</span>
    </button>
  );
}
