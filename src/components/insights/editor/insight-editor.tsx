"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { Badge, Button, buttonClasses, Card, cn, ErrorState, formatDateTime, LoadingState, PageHeader } from "@/components/ui";
import { ProjectGate } from "@/components/settings/project-gate";
import type { ActorsSelection } from "@/components/insights/actors-query";
import { InsightResultView } from "@/components/insights/insight-result-view";
import { PersonsDialog } from "@/components/insights/persons-dialog";
import { resultKindOf, sourceOf } from "@/components/insights/query-source";
import { InsightActions, insightTitle, type SavedInsight as Insight } from "@/components/insights/insight-actions";
import { InsightAlerts } from "@/components/alerts/insight-alerts";
import { SubscriptionsDialog } from "@/components/subscriptions/subscriptions-dialog";
import { runnableNode } from "@/server/query/contract";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import {
  decodeQuery,
  defaultState,
  EDITOR_KINDS,
  encodeQuery,
  KIND_LABELS,
  nodeFromState,
  problemsOf,
  SERIES_KINDS,
  stateFromNode,
  type EditorKind,
  type EditorState,
} from "./editor-state";
import { useLeaveGuard } from "./leave-guard";
import { SaveDialog } from "./save-dialog";
import { TestAccountsToggle } from "@/components/settings/test-accounts-toggle";
import { BreakdownSection, DateSection, DisplaySection, FilterGroupsEditor, FunnelSection, PathsSection, RetentionSection, Section, SeriesSection, StickinessSection, type Update } from "./query-panels";

/** How long the editor waits after an edit before it runs the query and writes the URL. */
const DEBOUNCE_MS = 400;

/** `/insights/new` and `/insights/:short_id`: the editor, on a saved insight once it is loaded. */
export function InsightEditorPage({ shortId }: { shortId?: string }) {
  return (
    <ProjectGate testId="insight-project">
      {(project) => (shortId ? <SavedInsight projectId={project.id} shortId={shortId} /> : <InsightEditor projectId={project.id} insight={null} />)}
    </ProjectGate>
  );
}

function SavedInsight({ projectId, shortId }: { projectId: number; shortId: string }) {
  const trpc = useTRPC();
  const found = useQuery(trpc.insights.list.queryOptions({ projectId, short_id: shortId, limit: 1 }));
  if (found.isPending) return <LoadingState label="Loading insight…" />;
  if (found.isError) return <ErrorState title="Could not load this insight" message={errorMessage(found.error)} onRetry={() => void found.refetch()} retrying={found.isRefetching} />;
  const insight = found.data.results[0];
  if (!insight) {
    return (
      <ErrorState
        title="Insight not found"
        message={
          <>
            No insight has the id {shortId}. <Link href="/insights" className="underline">See all insights</Link>.
          </>
        }
      />
    );
  }
  if (!stateFromNode(insight.query)) {
    const kind = runnableNode(insight.query)?.node.kind;
    if (kind === "HogQLQuery") {
      return (
        <ErrorState
          title={`${insightTitle(insight)} is a SQL query`}
          message={
            <>
              <Link href={`/sql?insight=${insight.short_id}`} className="font-medium text-brand-700 underline" data-testid="open-in-sql">
                Open it in the SQL editor
              </Link>
              .
            </>
          }
        />
      );
    }
    return (
      <ErrorState
        title={`${insight.name || insight.derived_name || "This insight"} cannot be edited here`}
        message={`Its query (${typeof kind === "string" ? kind : "unknown"}) is not one of the kinds this editor builds; edit it through the API.`}
      />
    );
  }
  return <InsightEditor key={insight.id} projectId={projectId} insight={insight} />;
}

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

/**
 * The editor: the kind's panels beside a live chart. The query lives in the URL (`?q=`,
 * lz-string) once it differs from what was saved, so a link shares it and back/forward
 * step through edits; `?dashboard=<id>` is the dashboard to return to after saving.
 */
export function InsightEditor({ projectId, insight }: { projectId: number; insight: Insight | null }) {
  const trpc = useTRPC();
  const searchParams = useSearchParams();
  const q = searchParams.get("q");
  const dashboardParam = searchParams.get("dashboard");
  const returnTo = dashboardParam && /^\d{1,9}$/.test(dashboardParam) ? Number(dashboardParam) : null;

  const saved = useMemo(() => (insight ? stateFromNode(insight.query) : null), [insight]);
  // What the editor does not edit is kept from the stored query, or for a new insight from the
  // link it was opened with (`/insights/new?q=…`, shared or written by hand): not from later URLs,
  // which the editor wrote itself.
  const [opened] = useState(() => decodeQuery(q));
  const build = (next: EditorState) => nodeFromState(next, insight ? insight.query : opened);
  const baseline = saved ?? defaultState("trends");
  const fromParam = (param: string | null): EditorState => stateFromNode(decodeQuery(param)) ?? baseline;
  const [state, setState] = useState<EditorState>(() => fromParam(q));
  const update: Update = (change) => setState((current) => change(current));

  // What the URL says now: the parameter, and the query it reads as (written back unchanged).
  const written = useRef<{ param: string | null; encoded: string }>({ param: q, encoded: encodeQuery(build(fromParam(q))) });
  useEffect(() => {
    if (q === written.current.param) return;
    // Back/forward (or a link): the URL's query replaces the form's.
    const next = fromParam(q);
    written.current = { param: q, encoded: encodeQuery(build(next)) };
    setState(next);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new URL replaces the form
  }, [q]);

  const debounced = useDebounced(state, DEBOUNCE_MS);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- `build` changes only with the insight
  const runNode = useMemo(() => build(debounced), [debounced]);
  useEffect(() => {
    const encoded = encodeQuery(runNode);
    if (encoded === written.current.encoded) return;
    const unchanged = encoded === encodeQuery(build(baseline));
    const param = unchanged ? null : encoded;
    const params = new URLSearchParams(window.location.search);
    if (param === null) params.delete("q");
    else params.set("q", param);
    const search = params.toString();
    written.current = { param, encoded };
    window.history.pushState(null, "", `${window.location.pathname}${search ? `?${search}` : ""}`);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- written on each settled edit
  }, [runNode]);

  const problems = useMemo(() => problemsOf(state), [state]);
  const runProblems = useMemo(() => problemsOf(debounced), [debounced]);
  const run = useQuery({
    ...trpc.query.run.queryOptions({ projectId, request: { query: runNode } }),
    enabled: runProblems.length === 0,
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 30_000,
  });
  // The node each shown result answers (a placeholder answers the previous one).
  const [shown, setShown] = useState<{ node: unknown; results: unknown; columns?: unknown; personlessVisitors?: unknown } | null>(null);
  useEffect(() => {
    if (run.data && !run.isPlaceholderData) setShown({ node: runNode, results: run.data.results, columns: run.data.columns, personlessVisitors: run.data.personlessVisitors });
  }, [run.data, run.isPlaceholderData, runNode]);

  const pending = state !== debounced || run.isFetching;
  // A saved insight's edits, or a new insight's query once it is not the default one.
  const dirty = encodeQuery(build(state)) !== encodeQuery(build(baseline));
  const guard = useLeaveGuard(dirty);
  const router = useRouter();
  const [saving, setSaving] = useState(false);
  const [subscribing, setSubscribing] = useState(false);
  /** The point (funnel step, retention cell, …) whose persons the dialog lists. */
  const [persons, setPersons] = useState<ActorsSelection | null>(null);
  const title = insight ? insightTitle(insight) : "New insight";

  return (
    <div className="flex flex-col gap-6" data-testid="insight-editor">
      <PageHeader
        eyebrow={
          returnTo !== null ? (
            <Link href={`/dashboards/${returnTo}`} className="hover:underline" data-testid="back-to-dashboard">
              ← Back to dashboard
            </Link>
          ) : (
            <Link href="/insights" className="hover:underline">
              Insights
            </Link>
          )
        }
        title={
          <span className="flex flex-wrap items-center gap-3">
            <span data-testid="insight-title">{title}</span>
            {dirty ? (
              <Badge tone="warning">Unsaved changes</Badge>
            ) : (
              insight && (
                <Badge tone="success" data-testid="insight-saved-badge">
                  Saved
                </Badge>
              )
            )}
          </span>
        }
        description={
          insight ? (
            <span className="flex flex-col gap-1">
              {insight.description && <span>{insight.description}</span>}
              <span className="text-xs text-gray-500" data-testid="insight-saved-meta">
                {KIND_LABELS[saved?.kind ?? "trends"]} · last modified {formatDateTime(insight.last_modified_at)}
                {insight.last_modified_by ? ` by ${insight.last_modified_by.first_name || insight.last_modified_by.email}` : ""}
                {insight.dashboards.length > 0 ? ` · on ${insight.dashboards.length} dashboard${insight.dashboards.length === 1 ? "" : "s"}` : ""}
              </span>
            </span>
          ) : undefined
        }
        actions={
          <>
            {insight && !dirty && <InsightAlerts projectId={projectId} insight={insight} />}
            {insight && (
              <Button variant="secondary" onClick={() => setSubscribing(true)} data-testid="open-subscriptions">
                Subscribe
              </Button>
            )}
            {insight && (
              <InsightActions
                projectId={projectId}
                insight={insight}
                shown={dirty ? null : shown}
                onDeleted={(one) => {
                  guard.release();
                  router.push(`/insights?${new URLSearchParams({ deleted: String(one.id), title: insightTitle(one) })}`);
                }}
                onDuplicated={(copy) => {
                  if (!dirty) router.push(`/insights/${copy.short_id}`);
                }}
              />
            )}
            <Link href={returnTo !== null ? `/dashboards/${returnTo}` : "/insights"} className={buttonClasses({ variant: "secondary" })} data-testid="cancel-edit">
              Cancel
            </Link>
            <Button onClick={() => setSaving(true)} disabled={problems.length > 0} data-testid="save-insight">
              {insight ? "Save" : "Save insight"}
            </Button>
          </>
        }
      />

      <KindTabs kind={state.kind} onChange={(kind) => update((current) => ({ ...current, kind }))} />

      <div
        role="tabpanel"
        id="insight-kind-panel"
        aria-labelledby={`insight-kind-${state.kind}`}
        className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(22rem,28rem)_minmax(0,1fr)]"
        data-testid="kind-panel"
        data-kind={state.kind}
      >
        <Card className="flex min-w-0 flex-col gap-4 p-4" data-testid="query-panels">
          <h2 className="sr-only">Query</h2>
          {SERIES_KINDS.has(state.kind) && <SeriesSection projectId={projectId} state={state} update={update} />}
          <RetentionSection projectId={projectId} state={state} update={update} />
          <PathsSection projectId={projectId} state={state} update={update} />
          <FunnelSection projectId={projectId} state={state} update={update} />
          <StickinessSection state={state} update={update} />
          <Section title="Filters" testId="filters-section">
            <FilterGroupsEditor
              projectId={projectId}
              groups={state.properties}
              onChange={(properties) => update((current) => ({ ...current, properties }))}
              eventNames={SERIES_KINDS.has(state.kind) ? state.series.flatMap((one) => (one.event ? [one.event] : [])) : undefined}
            />
            <TestAccountsToggle checked={state.filterTestAccounts} onChange={(filterTestAccounts) => update((current) => ({ ...current, filterTestAccounts }))} />
          </Section>
          <BreakdownSection projectId={projectId} state={state} update={update} />
          <DateSection state={state} update={update} />
          <DisplaySection state={state} update={update} />
        </Card>

        <Card className="min-w-0 p-4 lg:sticky lg:top-4" data-testid="insight-chart-card">
          <div className="mb-3 flex items-center justify-between gap-2">
            <h2 className="text-base font-semibold text-gray-900">{KIND_LABELS[state.kind]}</h2>
            <span className="text-xs text-gray-500" role="status" aria-live="polite" data-testid="chart-status">
              {problems.length > 0 ? "" : pending ? "Updating…" : run.data ? "Up to date" : ""}
            </span>
          </div>
          <ChartArea
            problems={problems}
            error={run.isError && !pending ? errorMessage(run.error) : null}
            shown={shown}
            pending={pending}
            loading={run.isPending && runProblems.length === 0}
            onSelect={setPersons}
          />
          <PersonsDialog projectId={projectId} selection={persons} onClose={() => setPersons(null)} />
        </Card>
      </div>

      <SaveDialog
        open={saving}
        onClose={() => setSaving(false)}
        projectId={projectId}
        insight={insight}
        query={build(state)}
        returnTo={returnTo}
        onSaving={guard.release}
      />
      {insight && (
        <SubscriptionsDialog projectId={projectId} subject={{ kind: "insight", insightId: insight.id, name: insightTitle(insight) }} open={subscribing} onClose={() => setSubscribing(false)} />
      )}
    </div>
  );
}

/** The chart, or why there is none: the form's problems, the server's refusal, loading. A stale chart is dimmed, never shown under an error. */
function ChartArea({
  problems,
  error,
  shown,
  pending,
  loading,
  onSelect,
}: {
  onSelect: (selection: ActorsSelection) => void;
  problems: string[];
  error: string | null;
  shown: { node: unknown; results: unknown; columns?: unknown; personlessVisitors?: unknown } | null;
  pending: boolean;
  loading: boolean;
}) {
  if (problems.length > 0) {
    return (
      <div className="rounded-control bg-amber-50 p-4 text-sm text-amber-900 ring-1 ring-amber-200 ring-inset" data-testid="chart-area" data-state="invalid">
        <p className="font-semibold">Finish the query to see the chart</p>
        <ul className="mt-2 list-disc pl-5" data-testid="query-problems">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      </div>
    );
  }
  if (error) {
    return (
      <div data-testid="chart-area" data-state="error">
        <ErrorState title="This query cannot run" message={<span data-testid="query-error">{error}</span>} />
      </div>
    );
  }
  if (!shown || loading) {
    return (
      <div data-testid="chart-area" data-state="loading">
        <LoadingState label="Computing…" />
      </div>
    );
  }
  return (
    <div
      className={cn("min-w-0 transition-opacity", fillsHeight(shown.node) && "h-80 sm:h-[26rem]", pending && "opacity-60")}
      data-testid="chart-area" data-state={pending ? "stale" : "ready"} aria-busy={pending || undefined}>
      <InsightResultView query={shown.node} response={{ results: shown.results, columns: shown.columns, personlessVisitors: shown.personlessVisitors }} onSelect={pending ? undefined : onSelect} />
    </div>
  );
}

/** Charts that fill the height they are given (as in a tile) rather than having their own: the area gives them one. */
function fillsHeight(node: unknown): boolean {
  const kind = resultKindOf(node);
  if (kind === "trends") return (sourceOf(node).trendsFilter as { display?: unknown } | undefined)?.display !== "ActionsTable";
  return kind === "lifecycle" || kind === "stickiness" || kind === "funnel-time" || kind === "funnel-trends";
}

/** The kinds as a tablist: arrow keys, Home and End move between them and choose. */
function KindTabs({ kind, onChange }: { kind: EditorKind; onChange: (kind: EditorKind) => void }) {
  const refs = useRef<Partial<Record<EditorKind, HTMLButtonElement | null>>>({});
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = EDITOR_KINDS.indexOf(kind);
    const next =
      event.key === "ArrowRight" ? (index + 1) % EDITOR_KINDS.length
      : event.key === "ArrowLeft" ? (index - 1 + EDITOR_KINDS.length) % EDITOR_KINDS.length
      : event.key === "Home" ? 0
      : event.key === "End" ? EDITOR_KINDS.length - 1
      : null;
    if (next === null) return;
    event.preventDefault();
    const target = EDITOR_KINDS[next]!;
    onChange(target);
    refs.current[target]?.focus();
  };
  return (
    <div role="tablist" aria-label="Insight type" className="flex flex-wrap gap-1 border-b border-gray-200" onKeyDown={onKeyDown} data-testid="kind-tabs">
      {EDITOR_KINDS.map((one) => (
        <button
          key={one}
          ref={(element) => {
            refs.current[one] = element;
          }}
          type="button"
          role="tab"
          id={`insight-kind-${one}`}
          aria-selected={one === kind}
          aria-controls="insight-kind-panel"
          tabIndex={one === kind ? 0 : -1}
          onClick={() => onChange(one)}
          className={cn(
            "-mb-px border-b-2 px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-brand-600",
            one === kind ? "border-brand-600 text-brand-700" : "border-transparent text-gray-600 hover:border-gray-300 hover:text-gray-900",
          )}
          data-testid={`kind-tab-${one}`}
        >
          {KIND_LABELS[one]}
        </button>
      ))}
    </div>
  );
}
