import { cn } from "@/components/ui";
import { resultKindOf } from "./query-source";

type IconKind = "trends" | "funnels" | "retention" | "paths" | "stickiness" | "lifecycle" | "sql" | "other";

/** The icon's kind of a stored query. */
export function iconKindOf(query: unknown): IconKind {
  const kind = resultKindOf(query);
  if (kind.startsWith("funnel")) return "funnels";
  if (kind === "hogql") return "sql";
  if (kind === "unknown") return "other";
  return kind as IconKind;
}

const PATHS: Record<IconKind, string> = {
  trends: "M3 17l5-6 4 3 6-8 3 3",
  funnels: "M4 5h16M7 10h10M10 15h4M11.5 20h1",
  retention: "M4 5h16v3H4zM4 11h11v3H4zM4 17h6v3H4z",
  paths: "M4 6h5l6 12h5M4 18h5l2-4M15 6h5",
  stickiness: "M5 20V10M10 20V6M15 20v-8M20 20v-4",
  lifecycle: "M4 12h16M7 12V6M12 12V4M17 12V8M7 12v4M12 12v6M17 12v3",
  sql: "M8 7l-4 5 4 5M16 7l4 5-4 5M13 5l-2 14",
  other: "M5 5h14v14H5z",
};

/** A small line icon of an insight's kind (decorative: its kind is also written beside it). */
export function KindIcon({ query, className }: { query: unknown; className?: string }) {
  const kind = iconKindOf(query);
  return (
    <span className={cn("inline-flex size-7 shrink-0 items-center justify-center rounded-control bg-brand-50 text-brand-700", className)} data-kind={kind} aria-hidden="true">
      <svg viewBox="0 0 24 24" className="size-4" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round">
        <path d={PATHS[kind]} />
      </svg>
    </span>
  );
}
