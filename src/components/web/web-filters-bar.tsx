"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Button, inputClasses, SelectField } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { DATE_RANGES, type DateRangeValue, type WebFilters } from "./web-filters";

/** Host, path and range. Each change is a new URL, so Back undoes it. */
export function WebFiltersBar({ projectId, filters, onChange }: { projectId: number; filters: WebFilters; onChange: (next: WebFilters) => void }) {
  const trpc = useTRPC();
  const hosts = useQuery(trpc.events.values.queryOptions({ projectId, key: "$host", eventName: "$pageview" }));
  const paths = useQuery(trpc.events.values.queryOptions({ projectId, key: "$pathname", eventName: "$pageview" }));
  const hostNames = (hosts.data ?? []).map((row) => String(row.name));
  // A host from a shared link that this project has not seen lately still shows as chosen.
  if (filters.host && !hostNames.includes(filters.host)) hostNames.unshift(filters.host);

  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-3" data-testid="web-filters">
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
      <PathFilter key={filters.path ?? ""} value={filters.path} suggestions={(paths.data ?? []).map((row) => String(row.name))} onChange={(path) => onChange({ ...filters, path })} />
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
