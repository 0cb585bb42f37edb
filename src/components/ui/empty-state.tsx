import type { ReactNode } from "react";
import { cn } from "./cn";

export interface EmptyStateProps {
  title: ReactNode;
  description?: ReactNode;
  /** A decorative icon (an inline SVG); it is hidden from screen readers. */
  icon?: ReactNode;
  /** Usually one primary Button or link. */
  action?: ReactNode;
  className?: string;
}

/** What a list or panel shows when there is nothing in it yet. */
export function EmptyState({ title, description, icon, action, className }: EmptyStateProps) {
  return (
    <div className={cn("flex flex-col items-center px-6 py-10 text-center", className)}>
      {icon && (
        <div
          aria-hidden="true"
          className="mb-4 flex size-11 items-center justify-center rounded-full bg-gray-100 text-gray-500 [&_svg]:size-5"
        >
          {icon}
        </div>
      )}
      <p className="text-sm font-semibold text-gray-900">{title}</p>
      {description && <p className="mt-1 max-w-sm text-sm text-gray-600">{description}</p>}
      {action && <div className="mt-5">{action}</div>}
    </div>
  );
}
