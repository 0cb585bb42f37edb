"use client";

import { useRef, useState, type ComponentPropsWithRef, type ReactNode } from "react";
import { errorMessage } from "@/trpc/errors";
import { Button } from "./button";
import { Card } from "./card";
import { cn } from "./cn";
import { EmptyState } from "./empty-state";
import { TextField } from "./field";
import { ListCard, ListFooter, type ListQueryStatus } from "./list-card";

/** What ListPage needs of a list's query (react-query's result has it all). */
export interface ListPageQuery extends ListQueryStatus {
  isFetching: boolean;
  error: unknown;
}

export interface ListPageProps extends Omit<ComponentPropsWithRef<"section">, "children" | "aria-label"> {
  /**
   * What the list holds, singular and plural: ["feature flag", "feature flags"]. Its states
   * say it the same way on every page: "Loading feature flags…", "Could not load feature
   * flags", "No feature flags yet", "No feature flags match", "3 feature flags".
   */
  noun: readonly [string, string];
  /** The list's accessible name: "Feature flags". */
  label: string;
  /** `<testId>-list` on the list, `<testId>-count` on its count, `<testId>-clear` on the nothing-matches state's button. */
  testId: string;
  query: ListPageQuery;
  /** Above the list: its search and filters (ListSearch, or a page's own form). */
  filters?: ReactNode;
  /** True when there are no rows to show. */
  empty: boolean;
  /** True when a search or filter narrows the list: an empty list then says nothing matches. */
  filtered: boolean;
  /** The first-use state: what the list will hold, and usually how to add the first one. `title` replaces "No <plural> yet". */
  nothingYet: { title?: string; description?: ReactNode; action?: ReactNode };
  /** The nothing-matches state: what to try instead. */
  nothingMatches: { description: ReactNode };
  /** Clears the search and filters; the nothing-matches state offers it, and the first filter field has the focus after. */
  onClearFilters?: () => void;
  /** Rows counted in the footer (the total, or those shown when the total is unknown). */
  count: number;
  /** Words instead of "N <plural>" in the footer. */
  summary?: string;
  /** Whether the footer says "refreshing…" (default: while the query fetches). */
  refreshing?: boolean;
  /** The footer's paging: PageButtons, or a "Load more". */
  pager?: ReactNode;
  /** The rows. */
  children: ReactNode;
}

/**
 * The body of a list page: its filters, then a ListCard of the rows in its states (loading,
 * failed, nothing yet, nothing matches, rows) with a footer that counts them and pages.
 */
export function ListPage({
  noun,
  label,
  testId,
  query,
  filters,
  empty,
  filtered,
  nothingYet,
  nothingMatches,
  onClearFilters,
  count,
  summary,
  refreshing = query.isFetching,
  pager,
  children,
  ...props
}: ListPageProps) {
  const plural = noun[1];
  const filterArea = useRef<HTMLDivElement>(null);
  const clear = onClearFilters
    ? () => {
        onClearFilters();
        // The button goes with the state it is in: give the keyboard the search back.
        filterArea.current?.querySelector<HTMLElement>("input:not([disabled]), select:not([disabled])")?.focus();
      }
    : undefined;
  return (
    <div className="flex flex-col gap-4">
      {filters && (
        <div ref={filterArea} className="flex flex-col gap-4">
          {filters}
        </div>
      )}
      <ListCard
        aria-label={label}
        data-testid={`${testId}-list`}
        query={query}
        empty={empty}
        loadingLabel={`Loading ${plural}…`}
        errorTitle={`Could not load ${plural}`}
        errorMessage={query.isError ? errorMessage(query.error) : undefined}
        emptyState={
          filtered ? (
            <EmptyState
              title={`No ${plural} match`}
              description={nothingMatches.description}
              action={
                clear && (
                  <Button variant="secondary" onClick={clear} data-testid={`${testId}-clear`}>
                    Clear filters
                  </Button>
                )
              }
            />
          ) : (
            <EmptyState title={nothingYet.title ?? `No ${plural} yet`} description={nothingYet.description} action={nothingYet.action} />
          )
        }
        {...props}
      >
        {children}
        <ListFooter count={count} noun={noun} summary={summary} refreshing={refreshing} testId={`${testId}-count`}>
          {pager}
        </ListFooter>
      </ListCard>
    </div>
  );
}

export interface ListSearchProps {
  /** The search region's accessible name: "Filter feature flags". */
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** What the search looks in: "Key or description". */
  placeholder: string;
  testId: string;
  /** Filters beside the search (a SelectField). */
  children?: ReactNode;
}

/** A list's search box, with its filters beside it on wide screens and below it on narrow ones. */
export function ListSearch({ label, value, onChange, placeholder, testId, children }: ListSearchProps) {
  return (
    <Card className="p-4">
      <div role="search" aria-label={label} className={cn("grid gap-3", children ? "sm:grid-cols-[1fr_12rem]" : "max-w-md")}>
        <TextField type="search" label="Search" placeholder={placeholder} value={value} onChange={(event) => onChange(event.target.value)} testId={testId} />
        {children}
      </div>
    </Card>
  );
}

/**
 * A list's search and filters with its page: a change of any filter goes back to the first
 * page, and `clear` empties them all (ListPage's onClearFilters).
 */
export function useListFilters<Filters extends Record<string, string>>(empty: Filters) {
  const [filters, setFilters] = useState(empty);
  const [page, setPage] = useState(0);
  return {
    filters,
    page,
    setPage,
    /** Whether a filter narrows the list (ListPage's `filtered`). */
    filtered: Object.values(filters).some((value) => value.trim() !== ""),
    change: (patch: Partial<Filters>) => {
      setFilters((current) => ({ ...current, ...patch }));
      setPage(0);
    },
    clear: () => {
      setFilters(empty);
      setPage(0);
    },
  };
}
