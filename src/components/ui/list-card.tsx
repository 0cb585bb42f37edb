"use client";

import { useEffect, useRef, type ComponentPropsWithRef, type ReactNode } from "react";
import { Button } from "./button";
import { Card } from "./card";
import { cn } from "./cn";
import { ErrorState } from "./error-state";
import { LoadingState } from "./loading-state";

/** Which of its states a fetched list is in; ListCard sets it as `data-state` for tests. */
export type ListState = "loading" | "error" | "empty" | "ready";

/** What ListCard needs of a list's query (react-query's result has it all). */
export interface ListQueryStatus {
  isPending: boolean;
  isError: boolean;
  isRefetching: boolean;
  refetch: () => unknown;
}

export interface ListCardProps extends Omit<ComponentPropsWithRef<"section">, "children"> {
  query: ListQueryStatus;
  /** True when there are no rows to show. */
  empty: boolean;
  /** E.g. "Loading flags…". */
  loadingLabel: string;
  /** E.g. "Could not load feature flags". */
  errorTitle: string;
  /** The failure in words the reader can act on. */
  errorMessage?: string;
  /** Shown when the query succeeded with no rows: the first-use or the nothing-matches state. */
  emptyState: ReactNode;
  /** The rows, usually followed by a ListFooter. */
  children: ReactNode;
}

/**
 * A card holding a fetched list in one of its states: loading, failed (with a retry), empty,
 * or its rows. A failed refresh of rows already shown keeps them, with the error above.
 */
export function ListCard({ query, empty, loadingLabel, errorTitle, errorMessage, emptyState, children, className, ...props }: ListCardProps) {
  const state: ListState = query.isPending ? "loading" : query.isError && empty ? "error" : empty ? "empty" : "ready";
  const error = <ErrorState title={errorTitle} message={errorMessage} onRetry={() => void query.refetch()} retrying={query.isRefetching} />;
  return (
    <Card className={cn("overflow-hidden", className)} data-state={state} {...props}>
      {state === "loading" ? (
        <LoadingState label={loadingLabel} />
      ) : state === "error" ? (
        <div className="p-4">{error}</div>
      ) : state === "empty" ? (
        emptyState
      ) : (
        <>
          {query.isError && <div className="p-3">{error}</div>}
          {children}
        </>
      )}
    </Card>
  );
}

/** Below a list's rows: how many there are (and whether they are being refreshed), then e.g. the paging buttons. */
export function ListFooter({
  count,
  noun,
  refreshing = false,
  testId,
  summary,
  children,
}: {
  count: number;
  /** Words to show instead of "N things" (e.g. "Showing 50 of 1,234 matching events"). */
  summary?: string;
  /** The singular and plural of what is counted: ["flag", "flags"]. */
  noun: readonly [string, string];
  refreshing?: boolean;
  /** Test id of the count. */
  testId?: string;
  children?: ReactNode;
}) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 border-t border-gray-200 px-4 py-3 text-sm text-gray-600">
      <span data-testid={testId}>
        {summary ?? `${count} ${count === 1 ? noun[0] : noun[1]}`}
        {refreshing ? " · refreshing…" : ""}
      </span>
      {children}
    </div>
  );
}

export type PageButtonsProps = {
  page: number;
  onPage: (page: number) => void;
  /** `<testId>-previous` and `<testId>-next` on the buttons. */
  testId?: string;
} & (
  | { pageSize: number; count: number }
  /** A list that knows only whether another page follows (no total). */
  | { hasNext: boolean }
);

/**
 * Previous / Next for an offset-paged list; nothing when everything fits on one page. A button
 * that turns disabled under the keyboard's focus (Next on reaching the last page) hands the
 * focus to the other one instead of dropping it to the page.
 */
export function PageButtons({ page, onPage, testId, ...size }: PageButtonsProps) {
  const previous = useRef<HTMLButtonElement>(null);
  const next = useRef<HTMLButtonElement>(null);
  const hasNext = "hasNext" in size ? size.hasNext : (page + 1) * size.pageSize < size.count;
  const shown = "hasNext" in size ? page > 0 || size.hasNext : size.count > size.pageSize;
  const pressed = useRef<"previous" | "next" | null>(null);
  useEffect(() => {
    const [from, to] = pressed.current === "next" ? [next.current, previous.current] : [previous.current, next.current];
    if (!pressed.current || !from?.disabled || to?.disabled) return;
    pressed.current = null;
    if (document.activeElement === from || document.activeElement === document.body) to?.focus();
  }, [page, hasNext]);
  if (!shown) return null;
  const go = (which: "previous" | "next") => {
    pressed.current = which;
    onPage(which === "next" ? page + 1 : page - 1);
  };
  return (
    <div className="flex gap-2">
      <Button ref={previous} variant="secondary" size="sm" disabled={page === 0} onClick={() => go("previous")} data-testid={testId && `${testId}-previous`}>
        Previous
      </Button>
      <Button ref={next} variant="secondary" size="sm" disabled={!hasNext} onClick={() => go("next")} data-testid={testId && `${testId}-next`}>
        Next
      </Button>
    </div>
  );
}
