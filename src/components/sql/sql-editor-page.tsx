"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useDeferredValue, useId, useMemo, useState } from "react";
import { Badge, Button, Card, Dialog, ErrorState, FormAlert, LoadingState, PageButtons, PageHeader, TextField } from "@/components/ui";
import { ProjectGate } from "@/components/settings/project-gate";
import { sourceOf } from "@/components/insights/query-source";
import { csvFileName, resultCsv } from "@/components/insights/result-csv";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { sqlInsightInput, sqlPropertiesInput, sqlRunInput } from "./page-queries";
import { CodeEditor } from "./code-editor";
import { ChartControls, ResultChart, type SqlChartKind } from "./result-chart";
import { numericColumns } from "./result-chart-data";

const PAGE_SIZE = 25;
const EXAMPLE = "SELECT event, count()\nFROM events\nGROUP BY event\nORDER BY count() DESC\nLIMIT 100";
/** The events table's own columns (hogql/compile.ts). */
const COLUMNS = [
  { name: "event", type: "String" },
  { name: "timestamp", type: "DateTime" },
  { name: "distinct_id", type: "String" },
  { name: "uuid", type: "UUID" },
  { name: "person_id", type: "UUID" },
] as const;

/** `/sql`: HogQL over the project's events — an editor, the schema, the result in pages, saved as an insight. */
export function SqlEditorPage() {
  return <ProjectGate testId="sql-project">{(project) => <SqlLoader projectId={project.id} />}</ProjectGate>;
}

function SqlLoader({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const shortId = useSearchParams().get("insight");
  const found = useQuery({ ...trpc.insights.list.queryOptions(sqlInsightInput(projectId, shortId ?? "")), enabled: Boolean(shortId) });
  if (!shortId) return <SqlEditor projectId={projectId} insight={null} />;
  if (found.isPending) return <LoadingState label="Loading the query…" />;
  if (found.isError) return <ErrorState title="Could not load this query" message={errorMessage(found.error)} onRetry={() => void found.refetch()} />;
  const insight = found.data.results[0];
  const source = insight ? sourceOf(insight.query) : null;
  if (!insight || source?.kind !== "HogQLQuery" || typeof source.query !== "string") {
    return <ErrorState title="No such SQL insight" message={<>No saved SQL query has the id {shortId}. <Link href="/sql" className="underline">Start a new one</Link>.</>} />;
  }
  return <SqlEditor key={insight.id} projectId={projectId} insight={{ id: insight.id, shortId: insight.short_id, name: insight.name ?? "", query: source.query }} />;
}

interface SavedSql {
  id: number;
  shortId: string;
  name: string;
  query: string;
}

function SqlEditor({ projectId, insight }: { projectId: number; insight: SavedSql | null }) {
  const trpc = useTRPC();
  const [text, setText] = useState(insight?.query ?? EXAMPLE);
  const [ran, setRan] = useState<string | null>(insight?.query ?? null);
  const [page, setPage] = useState(0);
  const [saving, setSaving] = useState(false);
  const [propertySearch, setPropertySearch] = useState("");
  const deferredSearch = useDeferredValue(propertySearch.trim());
  const eventProps = useQuery({ ...trpc.definitions.properties.queryOptions(sqlPropertiesInput(projectId, "event", deferredSearch)), placeholderData: keepPreviousData });
  const personProps = useQuery({ ...trpc.definitions.properties.queryOptions(sqlPropertiesInput(projectId, "person", deferredSearch)), placeholderData: keepPreviousData });
  const completions = useMemo(
    () => [...COLUMNS.map((column) => column.name), ...(eventProps.data ?? []).map((one) => `properties.${one.name}`), ...(personProps.data ?? []).map((one) => `person.properties.${one.name}`)],
    [eventProps.data, personProps.data],
  );
  const result = useQuery({
    ...trpc.query.run.queryOptions(sqlRunInput(projectId, ran ?? "")),
    enabled: ran !== null,
    retry: false,
    staleTime: Infinity,
  });
  const run = () => {
    setPage(0);
    if (text === ran) void result.refetch();
    else setRan(text);
  };
  const columns = (result.data?.columns as string[] | undefined) ?? [];
  const rows = (result.data?.results as unknown[][] | undefined) ?? [];
  // The chart of the result: a numeric column over the first (the first numeric one unless another is picked).
  const [chartKind, setChartKind] = useState<SqlChartKind>("table");
  const [chartY, setChartY] = useState<number | null>(null);
  const numeric = useMemo(() => numericColumns(columns, rows), [columns, rows]);
  const y = chartY !== null && numeric.includes(chartY) ? chartY : (numeric[0] ?? null);
  const drawn = chartKind !== "table" && y !== null ? chartKind : null;
  const shown = rows.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
  const dirty = insight !== null && text !== insight.query;

  const download = () => {
    const csv = resultCsv(rows, columns);
    if (!csv) return;
    const url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
    const link = Object.assign(document.createElement("a"), { href: url, download: csvFileName(insight?.name || "query") });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  const insert = (field: string) => setText((current) => `${current}${/\s$/.test(current) || current === "" ? "" : " "}${field}`);

  return (
    <div className="flex flex-col gap-6" data-testid="sql-editor">
      <PageHeader
        eyebrow={
          <Link href="/insights" className="hover:underline">
            Insights
          </Link>
        }
        title={
          <span className="flex flex-wrap items-center gap-3">
            <span data-testid="sql-title">{insight ? insight.name || "Untitled SQL insight" : "SQL"}</span>
            {insight && (dirty ? <Badge tone="warning">Unsaved changes</Badge> : <Badge tone="success">Saved</Badge>)}
          </span>
        }
        description="HogQL over this project's events: SELECT … FROM events with WHERE, GROUP BY, ORDER BY, LIMIT and OFFSET. Other projects' data and other tables are out of reach."
        actions={
          <Button variant="secondary" onClick={() => setSaving(true)} disabled={!text.trim()} data-testid="sql-save">
            {insight ? "Save" : "Save as insight"}
          </Button>
        }
      />
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]">
        <div className="flex min-w-0 flex-col gap-4">
          <Card className="flex flex-col gap-3 p-4">
            <CodeEditor value={text} onChange={setText} onRun={run} columns={completions} label="SQL query" testId="sql-input" />
            <div className="flex flex-wrap items-center gap-3">
              <Button onClick={run} loading={result.isFetching} data-testid="sql-run">
                Run
              </Button>
              <span className="text-xs text-gray-600">Ctrl + Enter (⌘ + Enter) runs it. Escape, then Tab, leaves the editor.</span>
            </div>
          </Card>
          <Card className="min-w-0 p-4" data-testid="sql-results" data-state={ran === null ? "idle" : result.isError ? "error" : result.isPending || result.isFetching ? "loading" : rows.length === 0 ? "empty" : "ready"}>
            <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
              <h2 className="text-base font-semibold text-gray-900">Result</h2>
              {rows.length > 0 && (
                <div className="flex items-center gap-3">
                  <span className="text-sm text-gray-600" data-testid="sql-row-count">
                    {rows.length} row{rows.length === 1 ? "" : "s"}
                  </span>
                  <Button size="sm" variant="secondary" onClick={download} data-testid="sql-export">
                    Export CSV
                  </Button>
                </div>
              )}
            </div>
            {ran === null ? (
              <p className="text-sm text-gray-600">Run the query to see its rows.</p>
            ) : result.isError ? (
              <FormAlert testId="sql-error">{errorMessage(result.error)}</FormAlert>
            ) : result.isPending ? (
              <LoadingState label="Running…" />
            ) : rows.length === 0 ? (
              <p className="text-sm text-gray-600" data-testid="sql-empty">
                No rows.
              </p>
            ) : (
              <>
                <ChartControls kind={drawn ?? "table"} onKind={setChartKind} columns={columns} numeric={numeric} y={y} onY={setChartY} />
                {drawn !== null && y !== null && <ResultChart kind={drawn} columns={columns} rows={rows} y={y} />}
                <div className="overflow-x-auto">
                  <table className="w-full text-left text-sm" data-testid="sql-table">
                    <thead className="border-b border-gray-200 bg-gray-50 text-xs font-medium text-gray-600">
                      <tr>
                        {columns.map((column, index) => (
                          <th key={`${column}-${index}`} scope="col" className="px-3 py-2 font-mono whitespace-nowrap">
                            {column}
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody className="divide-y divide-gray-100">
                      {shown.map((row, rowIndex) => (
                        <tr key={page * PAGE_SIZE + rowIndex} data-testid="sql-row">
                          {row.map((cell, index) => (
                            <td key={index} className="max-w-96 truncate px-3 py-1.5 font-mono text-[13px] text-gray-800" title={cellText(cell)}>
                              {cell === null ? <span className="text-gray-400">null</span> : cellText(cell)}
                            </td>
                          ))}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <div className="mt-3 flex flex-wrap items-center justify-between gap-2">
                  <PageButtons page={page} pageSize={PAGE_SIZE} count={rows.length} onPage={setPage} testId="sql-page" />
                  <span className="text-xs text-gray-600" data-testid="sql-page-range">
                    Rows {page * PAGE_SIZE + 1}–{page * PAGE_SIZE + shown.length}
                  </span>
                  {(result.data as { hasMore?: boolean } | undefined)?.hasMore && (
                    <span className="text-xs text-gray-600" data-testid="sql-has-more">
                      More rows follow: raise LIMIT (at most 10,000) or page with OFFSET.
                    </span>
                  )}
                </div>
              </>
            )}
          </Card>
        </div>
        <SchemaBrowser
          search={propertySearch}
          onSearch={setPropertySearch}
          eventProperties={(eventProps.data ?? []).map((one) => one.name)}
          personProperties={(personProps.data ?? []).map((one) => one.name)}
          onPick={insert}
        />
      </div>
      <SaveSqlDialog open={saving} onClose={() => setSaving(false)} projectId={projectId} insight={insight} query={text} />
    </div>
  );
}

const cellText = (cell: unknown) => (cell === null || cell === undefined ? "" : typeof cell === "object" ? JSON.stringify(cell) : String(cell));

function SchemaBrowser({
  search,
  onSearch,
  eventProperties,
  personProperties,
  onPick,
}: {
  search: string;
  onSearch: (value: string) => void;
  eventProperties: string[];
  personProperties: string[];
  onPick: (field: string) => void;
}) {
  const item = (field: string, type?: string) => (
    <li key={field}>
      <button
        type="button"
        onClick={() => onPick(field)}
        className="flex w-full items-center justify-between gap-2 rounded-sm px-2 py-1 text-left font-mono text-xs text-gray-800 hover:bg-gray-50 focus-visible:outline-2 focus-visible:outline-brand-600"
        title={`Insert ${field}`}
        data-testid="schema-field"
      >
        <span className="truncate">{field}</span>
        {type && <span className="shrink-0 text-[11px] text-gray-500">{type}</span>}
      </button>
    </li>
  );
  return (
    <Card className="flex min-w-0 flex-col gap-3 p-4 lg:sticky lg:top-4" data-testid="sql-schema">
      <h2 className="text-base font-semibold text-gray-900">Schema</h2>
      <section aria-labelledby="schema-events">
        <h3 id="schema-events" className="text-sm font-semibold text-gray-800">
          events
        </h3>
        <ul className="mt-1">{COLUMNS.map((column) => item(column.name, column.type))}</ul>
      </section>
      <TextField label="Properties" type="search" value={search} onChange={(event) => onSearch(event.target.value)} placeholder="Search properties" testId="schema-search" />
      <section aria-labelledby="schema-props">
        <h3 id="schema-props" className="text-sm font-semibold text-gray-800">
          Event properties
        </h3>
        <ul className="mt-1 max-h-64 overflow-y-auto">{eventProperties.length === 0 ? <li className="px-2 text-xs text-gray-500">None seen yet.</li> : eventProperties.map((name) => item(`properties.${name}`))}</ul>
      </section>
      <section aria-labelledby="schema-person">
        <h3 id="schema-person" className="text-sm font-semibold text-gray-800">
          Person properties
        </h3>
        <ul className="mt-1 max-h-40 overflow-y-auto">{personProperties.length === 0 ? <li className="px-2 text-xs text-gray-500">None seen yet.</li> : personProperties.map((name) => item(`person.properties.${name}`))}</ul>
      </section>
      <p className="text-xs text-gray-500">Functions: count(), toDate(). Persons and sessions are reached through person.properties and properties.$session_id.</p>
    </Card>
  );
}

function SaveSqlDialog({ open, onClose, projectId, insight, query }: { open: boolean; onClose: () => void; projectId: number; insight: SavedSql | null; query: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const formId = useId();
  const [name, setName] = useState(insight?.name ?? "");
  const onSaved = async (saved: { short_id: string }) => {
    await queryClient.invalidateQueries(trpc.insights.pathFilter());
    onClose();
    router.push(`/sql?insight=${saved.short_id}`);
  };
  const create = useMutation(trpc.insights.create.mutationOptions({ onSuccess: onSaved }));
  const update = useMutation(trpc.insights.update.mutationOptions({ onSuccess: onSaved }));
  const mutation = insight ? update : create;
  const node = { kind: "HogQLQuery", query };
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={insight ? "Save SQL insight" : "Save as insight"}
      description="It is listed with the other insights as SQL, and can be put on dashboards."
      testId="sql-save-dialog"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form={formId} loading={mutation.isPending} data-testid="sql-save-confirm">
            Save
          </Button>
        </>
      }
    >
      <form
        id={formId}
        className="flex flex-col gap-3"
        onSubmit={(event) => {
          event.preventDefault();
          const body = { name: name.trim() || null, query: node, saved: true };
          if (insight) update.mutate({ projectId, insightId: insight.id, ...body });
          else create.mutate({ projectId, ...body });
        }}
      >
        {mutation.isError && <FormAlert testId="sql-save-error">{errorMessage(mutation.error)}</FormAlert>}
        <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} maxLength={400} placeholder="e.g. Events by name" testId="sql-insight-name" autoFocus />
      </form>
    </Dialog>
  );
}
