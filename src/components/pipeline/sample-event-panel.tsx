"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Badge, Button, Card, CardBody, CardHeader, ErrorState, FormAlert, inputClasses } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { ChainStepData, EventViewData } from "./types";
import { SAMPLE_EVENT } from "./config-form";
import { diffValue, eventDiff, type DiffKind } from "./event-diff";

/** What the panel shows of an event: the fields a transformation can change. */
function shown(event: EventViewData) {
  return { event: event.event, distinct_id: event.distinct_id, properties: event.properties };
}

function stepOutcome(step: ChainStepData, before: EventViewData | null): { label: string; tone: "neutral" | "brand" | "warning" | "danger" } {
  if (step.error) return { label: "error", tone: "danger" };
  if (!step.after) return { label: "dropped", tone: "warning" };
  return before && JSON.stringify(shown(before)) === JSON.stringify(shown(step.after)) ? { label: "unchanged", tone: "neutral" } : { label: "changed", tone: "brand" };
}

/** "Test on a sample event": the whole enabled chain on an event, before and after; nothing is stored. */
export function SampleEventPanel({ projectId, chainLength }: { projectId: number; chainLength: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const inputId = useId();
  const [text, setText] = useState(() => JSON.stringify(SAMPLE_EVENT, null, 2));
  const [parseError, setParseError] = useState<string | null>(null);
  const [loadingLatest, setLoadingLatest] = useState(false);
  const run = useMutation(trpc.transformations.testChain.mutationOptions());

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    let sample: unknown;
    try {
      sample = JSON.parse(text);
    } catch (error) {
      setParseError(`The sample is not valid JSON: ${(error as Error).message}`);
      // The result shown was for another sample: clear it rather than leave it under the error.
      run.reset();
      return;
    }
    setParseError(null);
    run.mutate({ projectId, event: sample as typeof SAMPLE_EVENT });
  }

  async function loadLatest() {
    setLoadingLatest(true);
    setParseError(null);
    try {
      const page = await queryClient.fetchQuery(trpc.events.list.queryOptions({ projectId, limit: 1 }));
      const latest = page.results[0];
      if (!latest) setParseError("The project has no events yet.");
      else setText(JSON.stringify({ event: latest.event, distinct_id: latest.distinct_id, properties: latest.properties }, null, 2));
    } catch (error) {
      setParseError(`Could not load the latest event: ${errorMessage(error)}`);
    } finally {
      setLoadingLatest(false);
    }
  }

  const result = run.data;
  return (
    <Card aria-labelledby="sample-title" data-testid="sample-panel">
      <CardHeader
        titleId="sample-title"
        title="Test on a sample event"
        description={`Runs the ${chainLength} enabled ${chainLength === 1 ? "transformation" : "transformations"} in order. Nothing is stored.`}
      />
      <CardBody className="flex flex-col gap-4">
        <form onSubmit={submit} className="flex flex-col gap-3">
          <label htmlFor={inputId} className="text-sm font-medium text-gray-800">
            Event (JSON: event, distinct_id, properties)
          </label>
          <textarea
            id={inputId}
            rows={10}
            spellCheck={false}
            className={inputClasses({ invalid: Boolean(parseError), className: "h-auto py-2 font-mono text-[13px]" })}
            value={text}
            onChange={(event) => setText(event.target.value)}
            data-testid="sample-input"
          />
          {parseError && <FormAlert testId="sample-error">{parseError}</FormAlert>}
          <div className="flex flex-wrap gap-2">
            <Button type="submit" loading={run.isPending} data-testid="sample-run">
              Run the chain
            </Button>
            <Button variant="secondary" onClick={() => void loadLatest()} loading={loadingLatest} data-testid="sample-latest">
              Use the latest event
            </Button>
            <Button
              variant="ghost"
              onClick={() => {
                setText(JSON.stringify(SAMPLE_EVENT, null, 2));
                setParseError(null);
              }}
            >
              Reset sample
            </Button>
          </div>
        </form>

        {run.isError && <ErrorState title="Could not run the chain" message={errorMessage(run.error)} />}
        {result && (
          <div className="flex flex-col gap-4" data-testid="sample-result" aria-live="polite">
            {result.steps.length > 0 && (
              <ol className="flex flex-wrap gap-2" aria-label="Steps">
                {result.steps.map((step, index) => {
                  const outcome = stepOutcome(step, index === 0 ? result.before : result.steps[index - 1]!.after);
                  return (
                    <li key={step.config_id} className="flex items-center gap-1.5 text-sm text-gray-700" data-testid="sample-step">
                      <span className="tabular-nums text-gray-500">{index + 1}.</span>
                      {step.name}
                      <Badge tone={outcome.tone} title={step.error ?? undefined}>
                        {outcome.label}
                      </Badge>
                    </li>
                  );
                })}
              </ol>
            )}
            <EventDiffList before={result.before} after={result.after} />
            <details className="group">
              <summary className="cursor-pointer text-sm font-medium text-gray-700 hover:text-gray-900">Whole event, before and after</summary>
              <div className="mt-3 grid gap-4 lg:grid-cols-2">
                <EventJson title="Before" event={result.before} testId="sample-before" />
                <EventJson title="After" event={result.after} testId="sample-after" />
              </div>
            </details>
          </div>
        )}
      </CardBody>
    </Card>
  );
}

function EventJson({ title, event, testId }: { title: string; event: EventViewData | null; testId: string }) {
  return (
    <figure className="min-w-0 overflow-hidden rounded-control border border-gray-200">
      <figcaption className="border-b border-gray-200 bg-gray-50 px-3 py-1.5 text-xs font-medium text-gray-700">{title}</figcaption>
      {event ? (
        <pre className="max-h-96 overflow-auto p-3 text-[13px] leading-relaxed text-gray-900" tabIndex={0} data-testid={testId}>
          {JSON.stringify(shown(event), null, 2)}
        </pre>
      ) : (
        <p className="p-3 text-sm text-gray-600" data-testid={testId}>
          Dropped: this event would not be stored.
        </p>
      )}
    </figure>
  );
}

const DIFF_STYLE: Record<DiffKind, { sign: string; label: string; row: string; sr: string }> = {
  added: { sign: "+", label: "added", row: "bg-green-50 text-green-900", sr: "Added" },
  removed: { sign: "−", label: "removed", row: "bg-red-50 text-red-900", sr: "Removed" },
  changed: { sign: "~", label: "changed", row: "bg-amber-50 text-amber-900", sr: "Changed" },
};

/** What the chain changed, one line per property: added green, removed red, changed amber with old → new. */
function EventDiffList({ before, after }: { before: EventViewData; after: EventViewData | null }) {
  if (!after) {
    return (
      <p className="rounded-control bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="sample-diff" data-state="dropped">
        Dropped: this event would not be stored.
      </p>
    );
  }
  const changes = eventDiff(shown(before), shown(after));
  if (changes.length === 0) {
    return (
      <p className="rounded-control bg-gray-50 px-3 py-2 text-sm text-gray-700" data-testid="sample-diff" data-state="unchanged">
        No changes: the event is stored as sent.
      </p>
    );
  }
  const counts = (kind: DiffKind) => changes.filter((change) => change.kind === kind).length;
  return (
    <figure className="min-w-0 overflow-hidden rounded-control border border-gray-200" data-testid="sample-diff" data-state="changed">
      <figcaption className="border-b border-gray-200 bg-gray-50 px-3 py-1.5 text-xs font-medium text-gray-700">
        Changes: {counts("added")} added, {counts("removed")} removed, {counts("changed")} changed
      </figcaption>
      <ul className="max-h-96 divide-y divide-gray-100 overflow-auto font-mono text-[13px]">
        {changes.map((change) => {
          const style = DIFF_STYLE[change.kind];
          return (
            <li key={change.path} className={`flex min-w-0 gap-2 px-3 py-1.5 ${style.row}`} data-testid="sample-diff-row" data-kind={change.kind}>
              <span aria-hidden="true" className="w-3 shrink-0 font-bold">
                {style.sign}
              </span>
              <span className="sr-only">{style.sr}:</span>
              <span className="min-w-0 break-all">
                <span className="font-semibold">{change.path.replace(/^properties\./, "")}</span>
                {change.kind === "changed" ? (
                  <>
                    {": "}
                    <del className="opacity-70">{diffValue(change.before)}</del> <span aria-hidden="true">→</span>
                    <span className="sr-only">becomes</span> <ins className="no-underline">{diffValue(change.after)}</ins>
                  </>
                ) : (
                  <>: {diffValue(change.kind === "added" ? change.after : change.before)}</>
                )}
              </span>
            </li>
          );
        })}
      </ul>
    </figure>
  );
}
