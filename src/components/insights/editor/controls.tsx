"use client";

import type { ReactNode } from "react";
import { cn, inputClasses } from "@/components/ui";

/** A titled group of controls. */
export function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <fieldset className="flex min-w-0 flex-col gap-3 border-t border-gray-100 pt-4 first-of-type:border-t-0 first-of-type:pt-0" data-testid={testId}>
      <legend className="float-left mb-1 text-sm font-semibold text-gray-900">{title}</legend>
      <div className="clear-left flex min-w-0 flex-col gap-3">{children}</div>
    </fieldset>
  );
}

/** A small labelled select. */
export function Select<T extends string>({
  label,
  value,
  options,
  onChange,
  testId,
  className,
  visibleLabel = true,
}: {
  label: string;
  value: T;
  options: Record<T, string> | readonly { value: T; label: string }[];
  onChange: (value: T) => void;
  testId?: string;
  className?: string;
  visibleLabel?: boolean;
}) {
  const entries: readonly { value: T; label: string }[] = Array.isArray(options)
    ? (options as readonly { value: T; label: string }[])
    : Object.entries<string>(options as Record<T, string>).map(([key, text]) => ({ value: key as T, label: text }));
  const select = (
    <select
      aria-label={visibleLabel ? undefined : label}
      className={inputClasses({ className: "pr-8" })}
      value={value}
      onChange={(event) => onChange(event.target.value as T)}
      data-testid={testId}
    >
      {entries.map((entry) => (
        <option key={entry.value} value={entry.value}>
          {entry.label}
        </option>
      ))}
    </select>
  );
  if (!visibleLabel) return <div className={className}>{select}</div>;
  return (
    <label className={cn("flex min-w-0 flex-col gap-1.5 text-sm font-medium text-gray-800", className)}>
      {label}
      {select}
    </label>
  );
}
