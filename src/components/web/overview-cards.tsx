"use client";

import { cn, ErrorState, Sparkline } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { changeText, changeTone, formatOverviewValue, overviewTitle } from "./web-format";
import type { OverviewItem, TrendSeries } from "./web-query";

const TONE_CLASSES = { good: "text-emerald-700", bad: "text-red-700", neutral: "text-gray-500" } as const;
const TONE_WORDS = { good: "better", bad: "worse", neutral: "" } as const;

const GRID = "grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5";
/** A goal's four cards: two rows of two on phones, one row of four from tablets. */
const GOAL_GRID = "grid grid-cols-2 gap-3 sm:grid-cols-4";

export interface OverviewCardsProps {
  items: OverviewItem[] | null | undefined;
  /** The sparklines, keyed by the overview item they belong to. */
  series: TrendSeries[] | null | undefined;
  error: unknown;
  loading: boolean;
  onRetry: () => void;
  /** "Last 7 days": what the change is against ("the 7 days before"). */
  period: string;
}

/** The overview: each figure with its change on the period before, and its sparkline. */
export function OverviewCards({ items, series, error, loading, onRetry, period }: OverviewCardsProps) {
  if (error && !items) {
    return <ErrorState title="Could not load the overview" message={errorMessage(error)} onRetry={onRetry} className="bg-red-50" />;
  }
  if (!items) {
    return (
      <div className={GRID} data-testid="web-overview" data-state="loading" aria-busy="true">
        <span role="status" className="sr-only">
          Loading the overview…
        </span>
        {Array.from({ length: 5 }, (_, index) => (
          <div key={index} className={cn("h-[7.5rem] animate-pulse motion-reduce:animate-none rounded-card border border-gray-200 bg-white p-4", index === 4 && "col-span-2 sm:col-span-1")}>
            <div className="h-3 w-16 rounded bg-gray-200" />
            <div className="mt-3 h-6 w-20 rounded bg-gray-200" />
            <div className="mt-5 h-5 w-full rounded bg-gray-100" />
          </div>
        ))}
      </div>
    );
  }
  return (
    <div className={cn(items.length === 4 ? GOAL_GRID : GRID, loading && "opacity-70 transition-opacity")} data-testid="web-overview" data-state="ready" aria-busy={loading || undefined}>
      {items.map((item, index) => {
        const tone = changeTone(item);
        const change = changeText(item.changeFromPreviousPct);
        const line = series?.find((s) => s.key === item.key);
        const title = overviewTitle(item.key);
        const id = `overview-${item.key.replace(/\W+/g, "-")}`;
        return (
          <section
            key={item.key}
            aria-labelledby={id}
            className={cn("flex min-w-0 flex-col rounded-card border border-gray-200 bg-white p-4 shadow-card", index === items.length - 1 && items.length % 2 === 1 && "col-span-2 sm:col-span-1")}
            data-testid={`web-overview-${item.key.replace(/\W+/g, "-")}`}
            data-value={item.value ?? ""}
          >
            <h3 id={id} className="truncate text-xs font-medium tracking-wide text-gray-600 uppercase">
              {title}
            </h3>
            <p className="mt-1 text-2xl font-semibold tracking-tight text-gray-900 tabular-nums" data-testid="overview-value">
              {formatOverviewValue(item)}
            </p>
            <p className="mt-0.5 min-h-5 text-xs text-gray-500">
              {change ? (
                <>
                  <span className={cn("font-medium", TONE_CLASSES[tone])} data-testid="overview-change" data-tone={tone}>
                    {change}
                    {TONE_WORDS[tone] && <span className="sr-only"> ({TONE_WORDS[tone]})</span>}
                  </span>{" "}
                  vs. previous {period.replace(/^Last /, "")}
                </>
              ) : item.previous === null ? (
                "No earlier period to compare"
              ) : (
                `Previously ${formatOverviewValue({ kind: item.kind, value: item.previous })}`
              )}
            </p>
            {line ? (
              <div className="mt-auto pt-3">
                <Sparkline
                  data={line.data}
                  label={`${title} over the range`}
                  format={(value) => formatOverviewValue({ kind: item.kind, value })}
                  className="text-brand-600"
                  testId="overview-sparkline"
                />
              </div>
            ) : null}
          </section>
        );
      })}
    </div>
  );
}
