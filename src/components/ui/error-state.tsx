import type { ReactNode } from "react";
import { Button } from "./button";
import { cn } from "./cn";

export interface ErrorStateProps {
  title?: ReactNode;
  /** What went wrong, in words the reader can act on. */
  message?: ReactNode;
  /** Shows a "Try again" button (from a client component). */
  onRetry?: () => void;
  retrying?: boolean;
  className?: string;
}

/** A failed load, announced to screen readers, with an optional retry. */
export function ErrorState({
  title = "Something went wrong",
  message,
  onRetry,
  retrying = false,
  className,
}: ErrorStateProps) {
  return (
    <div role="alert" className={cn("flex items-start gap-3 rounded-control bg-red-50 p-4 ring-1 ring-red-200 ring-inset", className)}>
      <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="mt-0.5 size-5 shrink-0 text-red-600">
        <path
          fillRule="evenodd"
          d="M18 10a8 8 0 1 1-16 0 8 8 0 0 1 16 0Zm-8-5a.75.75 0 0 1 .75.75v4.5a.75.75 0 0 1-1.5 0v-4.5A.75.75 0 0 1 10 5Zm0 10a1 1 0 1 0 0-2 1 1 0 0 0 0 2Z"
          clipRule="evenodd"
        />
      </svg>
      <div className="min-w-0 flex-1">
        <p className="text-sm font-semibold text-red-800">{title}</p>
        {message && <p className="mt-1 text-sm break-words text-red-700">{message}</p>}
        {onRetry && (
          <Button variant="secondary" size="sm" className="mt-3" onClick={onRetry} loading={retrying}>
            Try again
          </Button>
        )}
      </div>
    </div>
  );
}
