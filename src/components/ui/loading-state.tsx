import { cn } from "./cn";
import { Spinner } from "./spinner";

/** A load in progress, announced to screen readers: a spinner and what is loading. */
export function LoadingState({ label, className }: { label: string; className?: string }) {
  return (
    <div className={cn("flex items-center gap-3 px-5 py-8 text-sm text-gray-600", className)}>
      <Spinner label={null} className="text-brand-600" />
      <span role="status">{label}</span>
    </div>
  );
}
