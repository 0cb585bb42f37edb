"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useEffect, useState, type FormEvent } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, Card, inputClasses, ListPage, LocalTime, PageButtons, PageHeader } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { personsListInput, personsListParams } from "./page-queries";
import type { PersonListItem } from "@/server/persons/present";
import { propertyText } from "./property-text";

/** Property columns shown before the reader picks their own. */
const DEFAULT_COLUMNS = ["email"];
const MAX_COLUMNS = 8;

/** The reader's columns, per project, in this browser: a view preference, not something to share in a link. */
function useColumns(projectId: number): [string[], (columns: string[]) => void] {
  const key = `burrow.persons.columns.${projectId}`;
  const [columns, setColumns] = useState<string[]>(DEFAULT_COLUMNS);
  useEffect(() => {
    try {
      const stored: unknown = JSON.parse(window.localStorage.getItem(key) ?? "null");
      if (Array.isArray(stored) && stored.every((c) => typeof c === "string")) setColumns(stored.slice(0, MAX_COLUMNS));
    } catch {
      // A broken entry: keep the defaults.
    }
  }, [key]);
  return [
    columns,
    (next) => {
      setColumns(next);
      try {
        window.localStorage.setItem(key, JSON.stringify(next));
      } catch {
        // Storage full or disabled: the columns last for this visit.
      }
    },
  ];
}

export function PersonsPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="persons-page">
      <PageHeader title="Persons" description="The people behind your events: everyone who has sent one, newest first." />
      <ProjectGate testId="persons-project">
        {(project) => (
          <Suspense>
            <PersonsList projectId={project.id} />
          </Suspense>
        )}
      </ProjectGate>
    </div>
  );
}

/** The search and page live in the URL, so a search can be linked to and Back returns to it. */
function PersonsList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const { search, page } = personsListParams(params);
  const [draft, setDraft] = useState(search);
  const [columns, setColumns] = useColumns(projectId);
  const [newColumn, setNewColumn] = useState("");
  useEffect(() => setDraft(search), [search]);

  const list = useQuery({
    ...trpc.persons.list.queryOptions(personsListInput(projectId, { search, page })),
    placeholderData: keepPreviousData,
  });
  const persons = list.data?.results ?? [];

  function go(next: { q?: string; page?: number }) {
    const query = new URLSearchParams();
    const q = next.q ?? search;
    if (q) query.set("q", q);
    if (next.page) query.set("page", String(next.page));
    router.replace(query.size ? `${pathname}?${query}` : pathname);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    go({ q: draft.trim(), page: 0 });
  }

  function addColumn(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const key = newColumn.trim();
    if (key && !columns.includes(key) && columns.length < MAX_COLUMNS) setColumns([...columns, key]);
    setNewColumn("");
  }

  return (
    <ListPage
      noun={["person", "persons"]}
      label="Persons"
      testId="persons"
      query={list}
      filters={
        <Card className="flex flex-col gap-4 p-4">
          <form role="search" onSubmit={submit} className="flex w-full max-w-2xl gap-2" aria-label="Search persons">
            <div className="min-w-0 flex-1">
              <label htmlFor="persons-search" className="text-sm font-medium text-gray-800">
                Search
              </label>
              <input
                id="persons-search"
                type="search"
                className={inputClasses({ className: "mt-1.5" })}
                placeholder="E-mail, distinct ID or person UUID"
                value={draft}
                onChange={(event) => setDraft(event.target.value)}
                data-testid="persons-search"
              />
            </div>
            <Button type="submit" className="self-end" data-testid="persons-search-submit">
              Search
            </Button>
          </form>
          <form onSubmit={addColumn} className="flex flex-wrap items-center gap-2 border-t border-gray-100 pt-4" aria-label="Property columns">
            <label htmlFor="persons-add-column" className="w-full text-sm font-medium text-gray-800 sm:mr-1 sm:w-auto">
              Property columns
            </label>
            <div className="flex min-w-0 flex-1 flex-wrap items-center gap-2">
              {columns.map((column) => (
                <span key={column} className="inline-flex items-center gap-1 rounded-full bg-gray-100 py-0.5 pr-1 pl-2.5 text-xs font-medium text-gray-800">
                  {column}
                  <button
                    type="button"
                    className="rounded-full p-0.5 text-gray-500 hover:bg-gray-200 hover:text-gray-900 focus-visible:outline-2 focus-visible:outline-brand-600"
                    aria-label={`Remove column ${column}`}
                    onClick={() => setColumns(columns.filter((c) => c !== column))}
                    data-testid="persons-remove-column"
                  >
                    <svg aria-hidden="true" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" className="size-3">
                      <path d="M5 5l10 10M15 5 5 15" />
                    </svg>
                  </button>
                </span>
              ))}
              <span className="flex min-w-0 gap-2">
                <span className="w-44 min-w-0 shrink">
                  <input
                    id="persons-add-column"
                    className={inputClasses()}
                    placeholder="Add a property"
                    value={newColumn}
                    maxLength={200}
                    onChange={(event) => setNewColumn(event.target.value)}
                    disabled={columns.length >= MAX_COLUMNS}
                    data-testid="persons-add-column"
                  />
                </span>
                <Button type="submit" variant="secondary" disabled={!newColumn.trim() || columns.length >= MAX_COLUMNS}>
                  Add
                </Button>
              </span>
            </div>
          </form>
        </Card>
      }
      empty={persons.length === 0}
      filtered={Boolean(search)}
      nothingMatches={{ description: `Nobody's e-mail contains "${search}", and it is no distinct ID or person UUID.` }}
      onClearFilters={() => go({ q: "", page: 0 })}
      nothingYet={
        page > 0
          ? { title: "No more persons", action: <Button onClick={() => go({ page: 0 })}>Back to the first page</Button> }
          : { description: "A person appears with the first event sent for a new distinct ID." }
      }
      count={persons.length}
      summary={`${persons.length} ${persons.length === 1 ? "person" : "persons"} on this page`}
      pager={<PageButtons page={page} hasNext={Boolean(list.data?.more)} onPage={(next) => go({ page: next })} testId="persons" />}
    >
      <PersonTable persons={persons} columns={columns} />
    </ListPage>
  );
}

function PersonTable({ persons, columns }: { persons: PersonListItem[]; columns: string[] }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full min-w-[36rem] text-sm" data-testid="persons-table">
        <thead className="bg-gray-50 text-xs font-medium tracking-wide whitespace-nowrap text-gray-500 uppercase">
          <tr>
            <th scope="col" className="px-4 py-2 text-left font-medium">
              Person
            </th>
            {columns.map((column) => (
              <th key={column} scope="col" className="px-4 py-2 text-left font-medium normal-case">
                {column}
              </th>
            ))}
            <th scope="col" className="px-4 py-2 text-left font-medium">
              First seen
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-gray-200">
          {persons.map((person) => (
            <tr key={person.uuid} className="hover:bg-gray-50" data-testid="person-row">
              <td className="max-w-72 px-4 py-2.5">
                <Link
                  href={`/persons/${person.uuid}`}
                  className="block truncate font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600"
                  data-testid="person-link"
                >
                  {person.name}
                </Link>
                <div className="mt-0.5 flex items-center gap-2 truncate text-xs text-gray-500">
                  <span className="truncate font-mono">{person.distinct_ids[0]}</span>
                  {person.distinct_ids.length > 1 && <span className="shrink-0">+{person.distinct_ids.length - 1}</span>}
                  {!person.is_identified && <Badge tone="neutral">Anonymous</Badge>}
                </div>
              </td>
              {columns.map((column) => (
                <td key={column} className="max-w-56 truncate px-4 py-2.5 text-gray-700">
                  {propertyText(person.properties[column]) || <span className="text-gray-400">—</span>}
                </td>
              ))}
              <td className="px-4 py-2.5 whitespace-nowrap text-gray-600 tabular-nums"><LocalTime value={person.created_at} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
