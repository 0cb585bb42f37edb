"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { TestAccountsToggle } from "@/components/settings/test-accounts-toggle";
import { Button, inputClasses, SelectField, TextField } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { DATE_RANGES, goalFromParam, goalParam, pageGoalMatch, type DateRangeValue, type WebFilters, type WebGoal } from "./web-filters";

/** Events that are not goals: the views every goal is measured against, and the test event. */
const NOT_GOALS = new Set(["$pageview", "$screen", "$test_event"]);

/** The goal picker's entry that opens the page field (not a goal itself). */
const TYPE_A_PAGE = "type-a-page";

/**
 * The conversion goal: an action, an event, or a page (a `$pageview` of it: a path seen
 * lately, or one typed — a path or a full URL, see PagePicker); the overview and every table
 * then count conversions and their rate.
 */
function GoalPicker({ projectId, filters, paths, onChange }: { projectId: number; filters: WebFilters; paths: string[]; onChange: (next: WebFilters) => void }) {
  const trpc = useTRPC();
  const actions = useQuery(trpc.actions.list.queryOptions({ projectId, limit: 100 }));
  const events = useQuery(trpc.definitions.events.queryOptions({ projectId, limit: 50 }));
  const [typing, setTyping] = useState(false);
  const eventNames = (events.data ?? []).map((definition) => definition.name).filter((name) => !NOT_GOALS.has(name));
  const actionList = (actions.data?.results ?? []).map((action) => ({ id: action.id, name: action.name }));
  const goal = filters.goal;
  // A goal from a shared link (or typed) that the lists do not hold still shows as chosen.
  if (goal?.kind === "event" && !eventNames.includes(goal.event)) eventNames.unshift(goal.event);
  if (goal?.kind === "action" && !actionList.some((action) => action.id === goal.id)) actionList.unshift({ id: goal.id, name: `Action ${goal.id}` });
  const pages = goal?.kind === "page" && !paths.includes(goal.page) ? [goal.page, ...paths] : paths;
  const setGoal = (next: WebGoal | null) => {
    setTyping(false);
    if (JSON.stringify(next) !== JSON.stringify(goal)) onChange({ ...filters, goal: next, order: null });
  };
  return (
    <>
      <SelectField
        label="Conversion goal"
        value={typing ? TYPE_A_PAGE : goal ? goalParam(goal) : ""}
        onChange={(event) => (event.target.value === TYPE_A_PAGE ? setTyping(true) : setGoal(goalFromParam(event.target.value)))}
        hint={actions.isError || events.isError ? "Could not load every goal." : undefined}
        testId="web-filter-goal"
      >
        <option value="">No goal</option>
        {actionList.length > 0 && (
          <optgroup label="Actions">
            {actionList.map((action) => (
              <option key={action.id} value={goalParam({ kind: "action", id: action.id })}>
                {action.name}
              </option>
            ))}
          </optgroup>
        )}
        {eventNames.length > 0 && (
          <optgroup label="Events">
            {eventNames.map((name) => (
              <option key={name} value={goalParam({ kind: "event", event: name })}>
                {name}
              </option>
            ))}
          </optgroup>
        )}
        <optgroup label="Page visited">
          <option value={TYPE_A_PAGE}>Type a path or URL…</option>
          {pages.map((page) => (
            <option key={page} value={goalParam({ kind: "page", page })}>
              {page}
            </option>
          ))}
        </optgroup>
      </SelectField>
      {(typing || goal?.kind === "page") && (
        // Keyed on the goal's page, so Back and Forward reset what is typed.
        <PagePicker
          key={goal?.kind === "page" ? goal.page : ""}
          value={goal?.kind === "page" ? goal.page : null}
          focus={typing}
          onCommit={(page) => setGoal(page === null ? null : { kind: "page", page })}
          onCancel={() => setTyping(false)}
        />
      )}
    </>
  );
}

/** What a page goal matches, said under its field as it is typed. */
const PAGE_MATCH_HINT = {
  path: "Matches page views whose path ($pathname) is exactly this; * stands for any characters.",
  url: "Matches page views whose full URL ($current_url) contains this, as PostHog's page-view actions do; * stands for any characters.",
  none: "A path (/thanks) matches the page's path exactly; a full URL (https://…), or a path with ? or #, matches any URL containing it.",
} as const;

/** A typed page goal: a path or a full URL, set on Enter or when the field is left. */
function PagePicker({ value, focus, onCommit, onCancel }: { value: string | null; focus: boolean; onCommit: (page: string | null) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState(value ?? "");
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  // Enter, then the blur of the field going away, would send the same goal twice.
  const sent = useRef<{ page: string | null } | null>(null);
  useEffect(() => {
    if (focus) input.current?.focus();
  }, [focus]);
  const page = draft.trim();
  const match = pageGoalMatch(page);
  const commit = () => {
    if (page !== "" && !match) return setError("Give a path (/thanks) or a full URL (https://shop.example/thanks).");
    setError(null);
    const next = page === "" ? null : page;
    // Left empty with no page goal set: the field closes, the goal chosen before stays.
    if (next === null && value === null) return onCancel();
    if (sent.current?.page === next) return;
    sent.current = { page: next };
    onCommit(next);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    commit();
  };
  return (
    <form onSubmit={submit} className="min-w-0 sm:col-span-2" aria-label="Conversion goal page">
      <TextField
        label="Goal page"
        type="text"
        inputMode="url"
        placeholder="/thanks or https://shop.example/thanks"
        value={draft}
        maxLength={1000}
        ref={input}
        onChange={(event) => {
          setDraft(event.target.value);
          setError(null);
        }}
        onBlur={commit}
        hint={<span data-testid="web-goal-page-hint">{PAGE_MATCH_HINT[match ?? "none"]}</span>}
        error={error}
        testId="web-goal-page"
        data-match={match ?? "none"}
      />
    </form>
  );
}

/**
 * Host, path, range, goal and "Filter out internal and test users" (`testAccounts`: whether
 * the page's queries leave them out, off where the project has no filters). Each change is a
 * new URL, so Back undoes it.
 */
export function WebFiltersBar({ projectId, filters, testAccounts, onChange }: { projectId: number; filters: WebFilters; testAccounts: boolean; onChange: (next: WebFilters) => void }) {
  const trpc = useTRPC();
  const hosts = useQuery(trpc.events.values.queryOptions({ projectId, key: "$host", eventName: "$pageview" }));
  const paths = useQuery(trpc.events.values.queryOptions({ projectId, key: "$pathname", eventName: "$pageview" }));
  const hostNames = (hosts.data ?? []).map((row) => String(row.name));
  // A host from a shared link that this project has not seen lately still shows as chosen.
  if (filters.host && !hostNames.includes(filters.host)) hostNames.unshift(filters.host);
  const pathNames = (paths.data ?? []).map((row) => String(row.name));

  return (
    <div className="flex flex-col gap-3" data-testid="web-filters">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <SelectField
          label="Date range"
          value={filters.dateFrom}
          onChange={(event) => onChange({ ...filters, dateFrom: event.target.value as DateRangeValue })}
          testId="web-filter-date"
        >
          {DATE_RANGES.map((range) => (
            <option key={range.value} value={range.value}>
              {range.label}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Host"
          value={filters.host ?? ""}
          onChange={(event) => onChange({ ...filters, host: event.target.value || null })}
          hint={hosts.isError ? "Could not load the hosts." : undefined}
          testId="web-filter-host"
        >
          <option value="">All hosts</option>
          {hostNames.map((host) => (
            <option key={host} value={host}>
              {host}
            </option>
          ))}
        </SelectField>
        {/* Keyed on the URL's path, so Back and Forward reset what is typed. */}
        <PathFilter key={filters.path ?? ""} value={filters.path} suggestions={pathNames} onChange={(path) => onChange({ ...filters, path })} />
        <GoalPicker projectId={projectId} filters={filters} paths={pathNames} onChange={onChange} />
      </div>
      <TestAccountsToggle inline checked={testAccounts} onChange={(on) => onChange({ ...filters, filterTestAccounts: on })} />
    </div>
  );
}

function PathFilter({ value, suggestions, onChange }: { value: string | null; suggestions: string[]; onChange: (path: string | null) => void }) {
  const id = useId();
  const [draft, setDraft] = useState(value ?? "");
  const commit = () => {
    const next = draft.trim() || null;
    if (next !== value) onChange(next);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    commit();
  };
  return (
    <form onSubmit={submit} className="flex min-w-0 flex-col gap-1.5" role="search" aria-label="Filter by path">
      <label htmlFor={`${id}-path`} className="text-sm font-medium text-gray-800">
        Path
      </label>
      <div className="flex gap-2">
        <input
          id={`${id}-path`}
          type="text"
          inputMode="url"
          list={`${id}-paths`}
          placeholder="All paths, or /pricing"
          value={draft}
          maxLength={1000}
          onChange={(event) => setDraft(event.target.value)}
          onBlur={commit}
          className={inputClasses()}
          data-testid="web-filter-path"
        />
        {value ? (
          <Button
            variant="secondary"
            className="h-10"
            onClick={() => {
              setDraft("");
              onChange(null);
            }}
            aria-label="Clear the path filter"
            data-testid="web-filter-path-clear"
          >
            Clear
          </Button>
        ) : null}
      </div>
      <datalist id={`${id}-paths`}>
        {suggestions.map((path) => (
          <option key={path} value={path} />
        ))}
      </datalist>
    </form>
  );
}
