"use client";

import { useId, type ComponentPropsWithRef, type ReactNode } from "react";
import { cn } from "./cn";

/** The classes of a text input or select, red-bordered when it has an error. */
export function inputClasses({ invalid = false, className }: { invalid?: boolean; className?: string } = {}): string {
  return cn(
    "block h-10 w-full min-w-0 rounded-control border bg-white px-3 text-sm text-gray-900 shadow-sm",
    "placeholder:text-gray-400 focus:outline-2 focus:-outline-offset-1 focus:outline-brand-600",
    "disabled:cursor-not-allowed disabled:bg-gray-50 disabled:text-gray-500 read-only:bg-gray-50",
    invalid ? "border-red-500" : "border-gray-300",
    className,
  );
}

interface FieldFrameProps {
  id: string;
  label: ReactNode;
  /** Marks the label "(optional)". */
  optional?: boolean;
  hint?: ReactNode;
  error?: string | null;
  /** Prefix of the error's and hint's test ids: `<testId>-error`. */
  testId?: string;
  className?: string;
  children: ReactNode;
}

function FieldFrame({ id, label, optional = false, hint, error, testId, className, children }: FieldFrameProps) {
  return (
    <div className={cn("flex min-w-0 flex-col gap-1.5", className)}>
      <label htmlFor={id} className="text-sm font-medium text-gray-800">
        {label}
        {optional && <span className="font-normal text-gray-500"> (optional)</span>}
      </label>
      {children}
      {hint && !error && (
        <p id={`${id}-hint`} className="text-sm text-gray-500">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="text-sm text-red-700" data-testid={testId ? `${testId}-error` : undefined}>
          {error}
        </p>
      )}
    </div>
  );
}

function describedBy(id: string, hint: ReactNode, error: string | null | undefined): string | undefined {
  if (error) return `${id}-error`;
  if (hint) return `${id}-hint`;
  return undefined;
}

export interface TextFieldProps extends Omit<ComponentPropsWithRef<"input">, "children"> {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  /** Test id of the input; its error gets `<testId>-error`. */
  testId?: string;
  /** Classes of the wrapper (the input's own come from `inputClassName`). */
  className?: string;
  inputClassName?: string;
}

/** A labelled input with an optional hint and an error tied to it by aria-describedby. */
export function TextField({ label, hint, error, testId, id, className, inputClassName, ...props }: TextFieldProps) {
  const autoId = useId();
  const inputId = id ?? autoId;
  return (
    <FieldFrame id={inputId} label={label} hint={hint} error={error} testId={testId} className={className}>
      <input
        id={inputId}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(inputId, hint, error)}
        data-testid={testId}
        className={inputClasses({ invalid: Boolean(error), className: inputClassName })}
        {...props}
      />
    </FieldFrame>
  );
}

export interface SelectFieldProps extends ComponentPropsWithRef<"select"> {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  testId?: string;
  selectClassName?: string;
}

export function SelectField({ label, hint, error, testId, id, className, selectClassName, children, ...props }: SelectFieldProps) {
  const autoId = useId();
  const selectId = id ?? autoId;
  return (
    <FieldFrame id={selectId} label={label} hint={hint} error={error} testId={testId} className={className}>
      <select
        id={selectId}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(selectId, hint, error)}
        data-testid={testId}
        className={inputClasses({ invalid: Boolean(error), className: cn("pr-8", selectClassName) })}
        {...props}
      >
        {children}
      </select>
    </FieldFrame>
  );
}

export interface TextAreaFieldProps extends Omit<ComponentPropsWithRef<"textarea">, "children"> {
  label: ReactNode;
  optional?: boolean;
  hint?: ReactNode;
  error?: string | null;
  /** Test id of the textarea; its error gets `<testId>-error`. */
  testId?: string;
  textareaClassName?: string;
}

/** A labelled textarea, with a hint and an error tied to it as TextField's are. */
export function TextAreaField({ label, optional, hint, error, testId, id, className, textareaClassName, ...props }: TextAreaFieldProps) {
  const autoId = useId();
  const textareaId = id ?? autoId;
  return (
    <FieldFrame id={textareaId} label={label} optional={optional} hint={hint} error={error} testId={testId} className={className}>
      <textarea
        id={textareaId}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(textareaId, hint, error)}
        data-testid={testId}
        className={inputClasses({ invalid: Boolean(error), className: cn("h-auto py-2", textareaClassName) })}
        {...props}
      />
    </FieldFrame>
  );
}

/** A form-level message (a failed submit), announced when it appears. */
export function FormAlert({ children, testId, className }: { children: ReactNode; testId?: string; className?: string }) {
  return (
    <div
      role="alert"
      data-testid={testId}
      className={cn("rounded-control bg-red-50 px-3.5 py-3 text-sm text-red-800 ring-1 ring-red-200 ring-inset", className)}
    >
      {children}
    </div>
  );
}
