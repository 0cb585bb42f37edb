"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, Card, ConfirmDialog, ErrorState, FormAlert, LoadingState, PageHeader, SelectField } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { ExperimentResource } from "@/server/experiments/contract";
import { experimentMetrics } from "@/server/experiments/present";
import { IntervalChart } from "./interval-chart";
import { statusOf, STATUS_TONE } from "./status";
import { verdictOf, type ResultRow } from "./verdict";

const backLink = (
  <Link href="/experiments" className="hover:underline">
    Experiments
  </Link>
);

/** `/experiments/:id`: launch and stop, the primary metric's results, the verdict, ship a variant. */
export function ExperimentPage({ id }: { id: number }) {
  return (
    <div className="flex flex-col gap-6" data-testid="experiment-page">
      <ProjectGate testId="experiment-project">{(project) => <ExperimentView projectId={project.id} id={id} />}</ProjectGate>
    </div>
  );
}

function ExperimentView({ projectId, id }: { projectId: number; id: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const experiment = useQuery(trpc.experiments.get.queryOptions({ projectId, id }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.experiments.pathKey() });
  const update = useMutation(trpc.experiments.update.mutationOptions({ onSuccess: refresh }));
  if (experiment.isPending) {
    return (
      <Card data-state="loading">
        <LoadingState label="Loading experiment…" />
      </Card>
    );
  }
  if (experiment.isError) {
    return (
      <>
        <PageHeader eyebrow={backLink} title="Experiment" />
        <Card className="p-4" data-state="error">
          <ErrorState title="Could not load this experiment" message={errorMessage(experiment.error)} onRetry={() => void experiment.refetch()} retrying={experiment.isRefetching} />
        </Card>
      </>
    );
  }
  const current = experiment.data;
  const status = statusOf(current);
  const now = () => new Date().toISOString();
  return (
    <>
      <PageHeader
        eyebrow={backLink}
        title={current.name}
        description={current.description || undefined}
        actions={
          <div className="flex items-center gap-2">
            <Badge tone={STATUS_TONE[status]} data-testid="experiment-status">
              {status}
            </Badge>
            {status === "draft" && (
              <Button onClick={() => update.mutate({ projectId, id, patch: { start_date: now() } })} loading={update.isPending} data-testid="launch-experiment">
                Launch
              </Button>
            )}
            {status === "running" && (
              <Button variant="secondary" onClick={() => update.mutate({ projectId, id, patch: { end_date: now() } })} loading={update.isPending} data-testid="stop-experiment">
                Stop
              </Button>
            )}
          </div>
        }
      />
      {update.isError && <FormAlert>{errorMessage(update.error)}</FormAlert>}
      <Card className="flex flex-wrap gap-x-8 gap-y-2 p-4 text-sm text-gray-700" data-testid="experiment-setup">
        <span>
          Flag <code className="font-mono text-gray-900">{current.feature_flag_key}</code>
        </span>
        <span>Variants {((current.parameters.feature_flag_variants as { key: string; rollout_percentage: number }[] | undefined) ?? []).map((v) => `${v.key} ${v.rollout_percentage}%`).join(" · ")}</span>
        <span>Statistics {String(current.stats_config.method ?? "bayesian")}</span>
        {current.holdout && <span>Holdout {current.holdout.name}</span>}
      </Card>
      {experimentMetrics(current, false).length + experimentMetrics(current, true).length === 0 ? (
        <Card className="p-4 text-sm text-gray-600">This experiment has no metric: add one through the API, or link a shared metric, to see results.</Card>
      ) : status === "draft" ? (
        <Card className="p-4 text-sm text-gray-600" data-testid="draft-note">
          Launch the experiment to start counting exposures: its flag is off until then.
        </Card>
      ) : (
        <Results projectId={projectId} experiment={current} />
      )}
    </>
  );
}

/** Which metric's results are shown: the experiment's own and shared ones, primary then secondary. */
function MetricPicker({ experiment, value, onChange }: { experiment: ExperimentResource; value: string; onChange: (value: string) => void }) {
  const options = (["primary", "secondary"] as const).flatMap((kind) =>
    experimentMetrics(experiment, kind === "secondary").map((metric, index) => ({
      value: `${kind}:${index}`,
      label: `${String(metric.name || (metric.metric_type === "funnel" ? "Conversion" : "Mean"))}${metric.isSharedMetric ? " (shared)" : ""}${kind === "secondary" ? " — secondary" : ""}`,
    })),
  );
  if (options.length < 2) return null;
  return (
    <Card className="p-4">
      <SelectField label="Metric" value={value} onChange={(e) => onChange(e.target.value)} testId="results-metric">
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </SelectField>
    </Card>
  );
}

function Results({ projectId, experiment }: { projectId: number; experiment: ExperimentResource }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState(experimentMetrics(experiment, false).length > 0 ? "primary:0" : "secondary:0");
  const [kind, index] = chosen.split(":");
  const results = useQuery(trpc.experiments.results.queryOptions({ projectId, id: experiment.id, secondary: kind === "secondary", index: Number(index) }));
  const picker = <MetricPicker experiment={experiment} value={chosen} onChange={setChosen} />;
  const [shipping, setShipping] = useState<string | null>(null);
  const ship = useMutation(
    trpc.experiments.ship.mutationOptions({
      onSuccess: async () => {
        setShipping(null);
        await queryClient.invalidateQueries({ queryKey: trpc.experiments.pathKey() });
      },
    }),
  );
  if (results.isPending) {
    return (
      <>
        {picker}
        <Card data-state="loading">
          <LoadingState label="Computing results…" />
        </Card>
      </>
    );
  }
  if (results.isError || !results.data) {
    return (
      <>
        {picker}
        <Card className="p-4" data-state="error">
          <ErrorState title="Could not compute the results" message={results.isError ? errorMessage(results.error) : "No metric."} onRetry={() => void results.refetch()} retrying={results.isRefetching} />
        </Card>
      </>
    );
  }
  const answer = results.data as unknown as { baseline: ResultRow; variant_results: ResultRow[]; srm: { mismatch: boolean; p_value: number } | null; metric: { metric_type: string; name?: string | null; goal?: "increase" | "decrease" | null } };
  const verdict = verdictOf(answer.baseline, answer.variant_results, answer.metric.goal ?? "increase");
  const funnel = answer.metric.metric_type === "funnel";
  const rows = [answer.baseline, ...answer.variant_results];
  const shippedTo = shippedVariant(experiment);
  return (
    <>
      {picker}
      <Card className="flex flex-col gap-2 p-4" data-testid="verdict">
        <p className="text-lg font-semibold text-gray-900" data-testid="verdict-headline">
          {verdict.headline}
        </p>
        <ul className="list-disc pl-5 text-sm text-gray-700">
          {verdict.lines.map((line) => (
            <li key={line.key} data-testid="verdict-line" data-outcome={line.outcome}>
              <strong>{line.key}</strong>: {line.text}
            </li>
          ))}
        </ul>
        {answer.srm?.mismatch && (
          <FormAlert testId="srm-warning">
            Sample ratio mismatch: the exposures do not follow the configured split (p = {answer.srm.p_value.toExponential(2)}). Check how the flag is read before trusting these results.
          </FormAlert>
        )}
      </Card>
      <Card className="overflow-x-auto" data-testid="results-table">
        <table className="w-full text-left text-sm">
          <caption className="px-4 pt-3 text-left text-sm font-semibold text-gray-900">{answer.metric.name || (funnel ? "Conversion" : "Mean")}</caption>
          <thead className="text-xs text-gray-500 uppercase">
            <tr>
              <th className="px-4 py-2">Variant</th>
              <th className="px-4 py-2 text-right">Exposures</th>
              <th className="px-4 py-2 text-right">{funnel ? "Conversions" : "Total"}</th>
              <th className="px-4 py-2 text-right">{funnel ? "Rate" : "Mean"}</th>
              <th className="px-4 py-2 text-right">{rows[1]?.method === "frequentist" ? "p-value" : "Chance to win"}</th>
              <th className="px-4 py-2" />
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-100">
            {rows.map((row, index) => (
              <tr key={row.key} data-testid="result-row" data-variant={row.key}>
                <td className="px-4 py-2 font-medium text-gray-900">{row.key}</td>
                <td className="px-4 py-2 text-right tabular-nums">{row.number_of_samples.toLocaleString("en-US")}</td>
                <td className="px-4 py-2 text-right tabular-nums">{row.sum.toLocaleString("en-US")}</td>
                <td className="px-4 py-2 text-right tabular-nums">{row.number_of_samples > 0 ? (funnel ? `${((row.sum / row.number_of_samples) * 100).toFixed(1)}%` : (row.sum / row.number_of_samples).toFixed(2)) : "—"}</td>
                <td className="px-4 py-2 text-right tabular-nums">{index === 0 ? "baseline" : row.method === "frequentist" ? (row.p_value?.toFixed(3) ?? "—") : row.chance_to_win === null || row.chance_to_win === undefined ? "—" : `${(row.chance_to_win * 100).toFixed(1)}%`}</td>
                <td className="px-4 py-2 text-right">
                  {shippedTo === row.key ? (
                    <Badge tone="success">shipped</Badge>
                  ) : (
                    <Button size="sm" variant={row.key === verdict.winner ? "primary" : "ghost"} onClick={() => setShipping(row.key)} data-testid={`ship-${row.key}`}>
                      Ship
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
      <Card className="p-4" data-testid="interval-chart">
        <h2 className="mb-2 text-sm font-semibold text-gray-900">{rows[1]?.method === "frequentist" ? "95% confidence intervals" : "95% credible intervals"} of the change against control</h2>
        <IntervalChart rows={answer.variant_results} />
      </Card>
      <ConfirmDialog
        open={shipping !== null}
        onCancel={() => setShipping(null)}
        onConfirm={() => shipping && ship.mutate({ projectId, id: experiment.id, ship: { variant_key: shipping } })}
        title={`Ship ${shipping ?? ""}?`}
        description="Everyone the flag matches gets this variant, and the experiment stops."
        confirmLabel="Ship variant"
        pending={ship.isPending}
        error={ship.isError ? errorMessage(ship.error) : undefined}
        testId="ship-dialog"
      />
    </>
  );
}

/** The variant the flag serves to everyone after a ship (100 % of the split), if any. */
function shippedVariant(experiment: ExperimentResource): string | null {
  if (experiment.end_date === null) return null;
  const variants = ((experiment.feature_flag.filters.multivariate as { variants?: { key: string; rollout_percentage: number }[] } | null)?.variants ?? []);
  return variants.find((variant) => variant.rollout_percentage === 100)?.key ?? null;
}
