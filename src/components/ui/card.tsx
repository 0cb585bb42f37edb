import type { ComponentPropsWithRef, ReactNode } from "react";
import { cn } from "./cn";

/** A white surface with a subtle border. Renders a <section> so it can carry a heading. */
export function Card({ className, ...props }: ComponentPropsWithRef<"section">) {
  return (
    <section
      className={cn("rounded-card border border-gray-200 bg-white shadow-card", className)}
      {...props}
    />
  );
}

export interface CardHeaderProps {
  title: ReactNode;
  description?: ReactNode;
  /** Buttons or badges on the right (below the title on narrow screens). */
  actions?: ReactNode;
  /** Heading level of the title; h2 by default. */
  as?: "h2" | "h3";
  /** Set on the title so the Card can use `aria-labelledby`. */
  titleId?: string;
  className?: string;
}

export function CardHeader({ title, description, actions, as: Heading = "h2", titleId, className }: CardHeaderProps) {
  return (
    <div
      className={cn(
        "flex flex-col gap-3 border-b border-gray-200 px-4 py-3.5 sm:flex-row sm:items-center sm:justify-between sm:px-5",
        className,
      )}
    >
      <div className="min-w-0">
        <Heading id={titleId} className="text-sm font-semibold text-gray-900">
          {title}
        </Heading>
        {description && <p className="mt-0.5 text-sm text-gray-600">{description}</p>}
      </div>
      {actions && <div className="flex shrink-0 flex-wrap items-center gap-2">{actions}</div>}
    </div>
  );
}

export function CardBody({ className, ...props }: ComponentPropsWithRef<"div">) {
  return <div className={cn("px-4 py-4 sm:px-5", className)} {...props} />;
}

export function CardFooter({ className, ...props }: ComponentPropsWithRef<"div">) {
  return (
    <div
      className={cn(
        "flex flex-wrap items-center justify-end gap-2 rounded-b-card border-t border-gray-200 bg-gray-50 px-4 py-3 sm:px-5",
        className,
      )}
      {...props}
    />
  );
}
