"use client";

import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { Suspense, useEffect, useMemo, useState, type FormEvent } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Button, buttonClasses, Card, inputClasses, ListPage, LoadingState, PageHeader, SelectField, TextField } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { EventNameCombobox, PropertyKeyCombobox, PropertyValueCombobox } from "@/components/definitions";
import { useTRPC } from "@/trpc/react";
import type { EventResource } from "@/server/events/present";
import { EventDrawer } from "./event-drawer";
import { EventTable } from "./event-table";
import { eventsCountInput, eventsListOptions } from "./page-queries";
import { isCohortRow, VALUELESS, type EventFilters, type FilterRowInput, type PropertyFilterInput } from "@/server/events/contract";
import { csvExportHref, explorerHref, filtersFromSearch, matchSummary, OPERATOR_LABELS, TIME_RANGES } from "./filter-params";

const REFRESH_MS = 5_000;

interface Draft {
  event: string;
  distinctId: string;
  after: string;
  /** Set only by a link (a person's "view events", a hand-written URL): carried through, cleared by Reset. */
  before: string;
  personId: string;
  properties: (FilterRowInput & { id: number })[];
}

/** What the cohort rows offer: the project's cohorts, or why there are none to show. */
type CohortChoices = { state: "loading" } | { state: "error"; message: string } | { state: "ready"; cohorts: { id: number; name: string }[] };

const EMPTY_DRAFT: Draft = { event: "", distinctId: "", after: "", before: "", personId: "", properties: [] };

const rowId = () => Date.now() + Math.random();

function filtersOf(draft: Draft): EventFilters {
  return {
    event: draft.event,
    distinctId: draft.distinctId,
    after: draft.after,
    before: draft.before,
    personId: draft.personId,
    properties: draft.properties.map(({ id: _, ...row }) => row),
  };
}

/** The filter bar showing `filters` (what the URL says is applied). */
function draftOf(filters: EventFilters): Draft {
  return {
    event: filters.event ?? "",
    distinctId: filters.distinctId ?? "",
    after: filters.after ?? "",
    before: filters.before ?? "",
    personId: filters.personId ?? "",
    properties: (filters.properties ?? []).map((row) => ({ ...row, id: rowId() })),
  };
}

export function EventsExplorer() {
  return (
    <div className="flex flex-col gap-6" data-testid="events-page">
      <PageHeader title="Events" description="Everything your project has captured, newest first." />
      <ProjectGate testId="events-project">
        {(project) => (
          // The applied filters live in the URL (useSearchParams needs a Suspense boundary).
          <Suspense fallback={<LoadingState label="Loading events…" />}>
            <Explorer projectId={project.id} />
          </Suspense>
        )}
      </ProjectGate>
    </div>
  );
}

function Explorer({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const searchParams = useSearchParams();
  const search = searchParams.toString();
  // The applied filters are the URL's: a link shows the same list, Back and Forward step through filters.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const applied = useMemo(() => filtersFromSearch(new URLSearchParams(search)), [search]);
  const [draft, setDraft] = useState<Draft>(() => draftOf(applied));
  useEffect(() => setDraft(draftOf(applied)), [applied]);
  const setApplied = (filters: EventFilters) => router.push(explorerHref(filters), { scroll: false });
  const [live, setLive] = useState(false);
  const [selected, setSelected] = useState<EventResource | null>(null);

  const list = useInfiniteQuery({
    ...eventsListOptions(trpc, projectId, applied),
    placeholderData: keepPreviousData,
    refetchInterval: live ? REFRESH_MS : false,
  });
  // Rows of earlier filters (kept while the new ones load) must not stand under an error about the new ones.
  const stale = list.isError && list.isPlaceholderData;
  const events = stale ? [] : (list.data?.pages.flatMap((page) => page.results) ?? []);
  const count = useQuery({ ...trpc.events.count.queryOptions(eventsCountInput(projectId, applied)), refetchInterval: live ? REFRESH_MS : false });
  const filtered = Boolean(
    applied.event || applied.distinctId || applied.after || applied.before || applied.personId || (applied.properties ?? []).some((p) => (isCohortRow(p) ? p.cohortId > 0 : p.key.trim())),
  );
  const cohortQuery = useQuery(trpc.events.cohorts.queryOptions({ projectId }));
  const cohorts: CohortChoices = cohortQuery.data
    ? { state: "ready", cohorts: cohortQuery.data }
    : cohortQuery.isError
      ? { state: "error", message: errorMessage(cohortQuery.error) }
      : { state: "loading" };

  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setApplied(filtersOf(draft));
  }

  function reset() {
    setDraft(EMPTY_DRAFT);
    setApplied(filtersOf(EMPTY_DRAFT));
  }

  return (
    <>
      <ListPage
        noun={["event", "events"]}
        label="Events"
        testId="events"
        query={list}
        filters={
          <Card className="p-4" aria-label="Filters">
            <form onSubmit={apply} className="flex flex-col gap-4" data-testid="events-filters" aria-label="Event filters">
              <div className="grid gap-3 sm:grid-cols-3">
                <EventNameCombobox label="Event name" projectId={projectId} value={draft.event} onChange={(event) => setDraft({ ...draft, event })} placeholder="e.g. $pageview" testId="filter-event" />
                <TextField label="Distinct ID" value={draft.distinctId} onChange={(event) => setDraft({ ...draft, distinctId: event.target.value })} placeholder="Any user" testId="filter-distinct-id" />
                <SelectField
                  label="Time range"
                  value={draft.after}
                  testId="filter-time-range"
                  onChange={(event) => {
                    const next = { ...draft, after: event.target.value };
                    setDraft(next);
                    setApplied(filtersOf(next));
                  }}
                >
                  {TIME_RANGES.map((range) => (
                    <option key={range.value} value={range.value}>
                      {range.label}
                    </option>
                  ))}
                </SelectField>
              </div>

              {(draft.personId || draft.before) && (
                <p className="text-sm text-gray-600" data-testid="filter-link-only">
                  {draft.personId && <>Only the events of person <span className="font-mono">{draft.personId}</span>. </>}
                  {draft.before && <>Only events before {draft.before}. </>}
                  Reset clears {draft.personId && draft.before ? "these" : "this"}.
                </p>
              )}

              <fieldset className="min-w-0">
                <legend className="text-sm font-medium text-gray-800">Property filters</legend>
                <ul className="mt-2 flex flex-col gap-2" data-testid="property-filters">
                  {draft.properties.map((row, index) => (
                    <PropertyRow
                      key={row.id}
                      index={index}
                      row={row}
                      cohorts={cohorts}
                      onChange={(changed) => setDraft({ ...draft, properties: draft.properties.map((p) => (p.id === row.id ? { ...changed, id: row.id } : p)) })}
                      onRemove={() => setDraft({ ...draft, properties: draft.properties.filter((p) => p.id !== row.id) })}
                    />
                  ))}
                </ul>
                <Button
                  variant="ghost"
                  size="sm"
                  className="mt-2"
                  data-testid="add-property-filter"
                  onClick={() =>
                    setDraft({ ...draft, properties: [...draft.properties, { id: rowId(), key: "", operator: "exact", value: "", type: "event" }] })
                  }
                >
                  + Add property filter
                </Button>
              </fieldset>

              <div className="flex flex-wrap items-center gap-2 border-t border-gray-100 pt-4">
                <Button type="submit" data-testid="apply-filters">
                  Apply filters
                </Button>
                <Button
                  variant="secondary"
                  data-testid="reset-filters"
                  onClick={reset}
                >
                  Reset
                </Button>
                <div className="ml-auto flex flex-wrap items-center gap-3">
                  <label className="flex items-center gap-2 text-sm text-gray-700">
                    <input type="checkbox" className="size-4 accent-brand-600" checked={live} onChange={(event) => setLive(event.target.checked)} data-testid="auto-refresh" />
                    Auto-refresh
                    {live && <span className="text-xs text-gray-500">(every 5 s)</span>}
                  </label>
                  <a href={csvExportHref(projectId, applied)} download="events.csv" className={buttonClasses({ variant: "secondary" })} data-testid="export-csv">
                    Export CSV
                  </a>
                </div>
              </div>
            </form>
          </Card>
        }
        empty={events.length === 0}
        filtered={filtered}
        nothingMatches={{ description: "Widen the time range or remove a filter." }}
        onClearFilters={reset}
        nothingYet={{
          description: "Send some with the snippet in Project settings.",
          action: (
            <Link href="/settings/project" className={buttonClasses()} data-testid="events-empty-settings">
              Open Project settings
            </Link>
          ),
        }}
        count={events.length}
        summary={matchSummary(events.length, count.data && !count.isPlaceholderData ? count.data : null)}
        refreshing={list.isFetching && !list.isFetchingNextPage}
        pager={
          list.hasNextPage && (
            <Button variant="secondary" size="sm" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()} data-testid="load-more">
              Load more
            </Button>
          )
        }
      >
        <EventTable events={events} onOpen={setSelected} dimmed={list.isPlaceholderData} />
      </ListPage>

      <EventDrawer projectId={projectId} event={selected} onClose={() => setSelected(null)} />
    </>
  );
}

function PropertyRow({
  row,
  index,
  cohorts,
  onChange,
  onRemove,
}: {
  row: FilterRowInput;
  index: number;
  cohorts: CohortChoices;
  onChange: (row: FilterRowInput) => void;
  onRemove: () => void;
}) {
  const n = index + 1;
  const remove = (
    <Button variant="ghost" aria-label={`Remove filter ${n}`} onClick={onRemove} data-testid="property-filter-remove" className="px-2.5">
      <svg aria-hidden="true" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" className="size-4">
        <path d="M5 5l10 10M15 5 5 15" />
      </svg>
    </Button>
  );
  const kind = (
    <select
      aria-label={`Filter ${n}: what it tests`}
      className={inputClasses({ className: "col-span-2 pr-8 sm:col-span-1" })}
      value={row.type ?? "event"}
      onChange={(event) => {
        const type = event.target.value as "event" | "person" | "cohort";
        if (type === "cohort") onChange({ type, cohortId: 0, operator: "in" });
        else onChange(isCohortRow(row) ? { type, key: "", operator: "exact", value: "" } : { ...row, type });
      }}
      data-testid="property-filter-type"
    >
      <option value="event">Event</option>
      <option value="person">Person</option>
      <option value="cohort">Cohort</option>
    </select>
  );
  if (isCohortRow(row)) {
    return (
      <li className="grid grid-cols-[1fr_auto] gap-2 sm:grid-cols-[7rem_1fr_11rem_1fr_auto]" data-testid={`property-filter-${index}`}>
        {kind}
        <select
          aria-label={`Filter ${n}: cohort`}
          className={inputClasses({ className: "col-span-2 pr-8 sm:col-span-1" })}
          value={row.cohortId}
          disabled={cohorts.state !== "ready"}
          onChange={(event) => onChange({ ...row, cohortId: Number(event.target.value) })}
          data-testid="property-filter-cohort"
        >
          {cohorts.state === "loading" && <option value={0}>Loading cohorts…</option>}
          {cohorts.state === "error" && <option value={0}>Could not load cohorts: {cohorts.message}</option>}
          {cohorts.state === "ready" && <option value={0}>{cohorts.cohorts.length === 0 ? "No cohorts yet" : "Choose a cohort…"}</option>}
          {cohorts.state === "ready" &&
            cohorts.cohorts.map((cohort) => (
              <option key={cohort.id} value={cohort.id}>
                {cohort.name || `Cohort ${cohort.id}`}
              </option>
            ))}
        </select>
        <select
          aria-label={`Filter ${n}: membership`}
          className={inputClasses({ className: "pr-8" })}
          value={row.operator ?? "in"}
          onChange={(event) => onChange({ ...row, operator: event.target.value as "in" | "not_in" })}
          data-testid="property-filter-operator"
        >
          <option value="in">person is in</option>
          <option value="not_in">person is not in</option>
        </select>
        <div aria-hidden="true" className="hidden sm:block" />
        {remove}
      </li>
    );
  }
  return (
    <li className="grid grid-cols-[1fr_auto] gap-2 sm:grid-cols-[7rem_1fr_11rem_1fr_auto]" data-testid={`property-filter-${index}`}>
      {kind}
      <PropertyKeyCombobox
        aria-label={`Filter ${n}: property key`}
        className="col-span-2 sm:col-span-1"
        type={row.type === "person" ? "person" : "event"}
        value={row.key}
        onChange={(key) => onChange({ ...row, key })}
        testId="property-filter-key"
      />
      <select
        aria-label={`Filter ${n}: operator`}
        className={inputClasses({ className: "col-span-2 pr-8 sm:col-span-1" })}
        value={row.operator}
        onChange={(event) => onChange({ ...row, operator: event.target.value as PropertyFilterInput["operator"] })}
        data-testid="property-filter-operator"
      >
        {Object.entries(OPERATOR_LABELS).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      <PropertyValueCombobox
        aria-label={`Filter ${n}: value`}
        propertyKey={row.key}
        type={row.type === "person" ? "person" : "event"}
        placeholder={VALUELESS.has(row.operator) ? "No value needed" : "Value"}
        disabled={VALUELESS.has(row.operator)}
        value={VALUELESS.has(row.operator) ? "" : (row.value ?? "")}
        onChange={(value) => onChange({ ...row, value })}
        testId="property-filter-value"
      />
      {remove}
    </li>
  );
}
