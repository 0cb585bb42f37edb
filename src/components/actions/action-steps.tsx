"use client";

import { useQuery } from "@tanstack/react-query";
import { Button, Card, LoadingState } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { ActionResource, StringMatching } from "@/server/actions/contract";
import { emptyStep, type StepDraft } from "./action-draft";

const INPUT = "w-full rounded-md border border-gray-300 px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-brand-600";
const MATCHINGS: [StringMatching, string][] = [
  ["contains", "contains"],
  ["exact", "is exactly"],
  ["regex", "matches regex"],
];

function MatchingField({ label, value, matching, onValue, onMatching, placeholder, testId }: { label: string; value: string; matching: StringMatching; onValue: (value: string) => void; onMatching: (matching: StringMatching) => void; placeholder: string; testId: string }) {
  return (
    <fieldset className="flex flex-col gap-1">
      <legend className="text-sm font-medium text-gray-800">{label}</legend>
      <div className="flex flex-col gap-2 sm:flex-row">
        <select className={`${INPUT} sm:w-40`} value={matching} onChange={(event) => onMatching(event.target.value as StringMatching)} aria-label={`${label}: how to match`} data-testid={`${testId}-matching`}>
          {MATCHINGS.map(([key, text]) => (
            <option key={key} value={key}>
              {text}
            </option>
          ))}
        </select>
        <input className={INPUT} value={value} placeholder={placeholder} onChange={(event) => onValue(event.target.value)} aria-label={label} data-testid={testId} />
      </div>
    </fieldset>
  );
}

/** The steps of an action: any one matching is enough; every filled field of a step must match. */
export function StepsEditor({ steps, onChange }: { steps: StepDraft[]; onChange: (steps: StepDraft[]) => void }) {
  const set = (index: number, patch: Partial<StepDraft>) => onChange(steps.map((step, i) => (i === index ? { ...step, ...patch } : step)));
  return (
    <div className="flex flex-col gap-3" data-testid="action-steps">
      {steps.map((step, index) => (
        <div key={index} className="flex flex-col gap-3">
          {index > 0 && <p className="text-center text-xs font-semibold tracking-wide text-gray-500 uppercase">or</p>}
          <Card className="flex flex-col gap-3 p-4" data-testid="action-step">
            <div className="flex items-center justify-between gap-2">
              <h3 className="text-sm font-semibold text-gray-900">Match group {index + 1}</h3>
              {steps.length > 1 && (
                <Button type="button" variant="ghost" size="sm" onClick={() => onChange(steps.filter((_, i) => i !== index))} data-testid="action-step-remove">
                  Remove
                </Button>
              )}
            </div>
            <div className="flex flex-wrap gap-2" role="group" aria-label="Kind of event">
              {[
                ["$pageview", "Pageview"],
                ["$autocapture", "Autocapture (click, submit…)"],
              ].map(([event, text]) => (
                <Button key={event} type="button" size="sm" variant={step.event === event ? "secondary" : "ghost"} aria-pressed={step.event === event} onClick={() => set(index, { event: event! })}>
                  {text}
                </Button>
              ))}
            </div>
            <label className="flex flex-col gap-1 text-sm font-medium text-gray-800">
              Event name <span className="text-xs font-normal text-gray-500">empty: any event</span>
              <input className={INPUT} value={step.event} onChange={(event) => set(index, { event: event.target.value })} data-testid="action-step-event" />
            </label>
            <MatchingField
              label="Page URL"
              value={step.url}
              matching={step.url_matching}
              onValue={(url) => set(index, { url })}
              onMatching={(url_matching) => set(index, { url_matching })}
              placeholder="/pricing"
              testId="action-step-url"
            />
            {step.event === "$autocapture" && (
              <>
                <label className="flex flex-col gap-1 text-sm font-medium text-gray-800">
                  CSS selector of the element
                  <input className={`${INPUT} font-mono`} value={step.selector} placeholder="div.card > button.buy" onChange={(event) => set(index, { selector: event.target.value })} data-testid="action-step-selector" />
                </label>
                <MatchingField label="Element text" value={step.text} matching={step.text_matching} onValue={(text) => set(index, { text })} onMatching={(text_matching) => set(index, { text_matching })} placeholder="Buy now" testId="action-step-text" />
                <MatchingField label="Link target (href)" value={step.href} matching={step.href_matching} onValue={(href) => set(index, { href })} onMatching={(href_matching) => set(index, { href_matching })} placeholder="/signup" testId="action-step-href" />
                <label className="flex flex-col gap-1 text-sm font-medium text-gray-800">
                  Element tag
                  <input className={`${INPUT} font-mono sm:w-40`} value={step.tag_name} placeholder="button" onChange={(event) => set(index, { tag_name: event.target.value })} data-testid="action-step-tag" />
                </label>
              </>
            )}
            {step.properties && step.properties.length > 0 && <p className="text-xs text-gray-600">Also {step.properties.length === 1 ? "1 property filter" : `${step.properties.length} property filters`} (kept as set through the API).</p>}
          </Card>
        </div>
      ))}
      <Button type="button" variant="secondary" className="self-start" onClick={() => onChange([...steps, emptyStep()])} disabled={steps.length >= 20} data-testid="action-step-add">
        Add match group
      </Button>
    </div>
  );
}

/** How many events the saved action matched in the last 30 days, by day (a trends query over its ActionsNode). */
export function ActionMatches({ projectId, action }: { projectId: number; action: ActionResource }) {
  const trpc = useTRPC();
  const request = { query: { kind: "TrendsQuery", series: [{ kind: "ActionsNode", id: action.id }], dateRange: { date_from: "-30d" }, interval: "day" } };
  const result = useQuery(trpc.query.run.queryOptions({ projectId, request }));
  const series = (result.data?.results as { count: number; data: number[] }[] | undefined)?.[0];
  return (
    <Card className="flex flex-col gap-2 p-4" data-testid="action-matches">
      <h2 className="text-sm font-semibold text-gray-900">Matched in the last 30 days</h2>
      {result.isPending ? (
        <LoadingState label="Counting…" />
      ) : result.isError ? (
        <p className="text-sm text-red-700">{errorMessage(result.error)}</p>
      ) : (
        <>
          <p className="text-2xl font-semibold text-gray-900 tabular-nums" data-testid="action-matches-count">
            {(series?.count ?? 0).toLocaleString("en")}
          </p>
          <p className="text-xs text-gray-500">events, counted with the steps as saved</p>
        </>
      )}
    </Card>
  );
}
