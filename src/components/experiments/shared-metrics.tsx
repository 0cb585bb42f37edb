"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Card, FormAlert, SelectField, TextField } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { SavedMetricResource } from "@/server/experiments/contract";

/** A one-event metric as the pages build it: a conversion, or per person a count or a property's sum. */
export function simpleMetric(type: "funnel" | "mean", event: string, property: string) {
  return type === "funnel"
    ? { kind: "ExperimentMetric" as const, metric_type: "funnel" as const, name: event, series: [{ kind: "EventsNode" as const, event: event || null }] }
    : {
        kind: "ExperimentMetric" as const,
        metric_type: "mean" as const,
        name: property ? `${event} ${property}` : event,
        source: { kind: "EventsNode" as const, event: event || null, ...(property ? { math: "sum" as const, math_property: property } : { math: "total" as const }) },
      };
}

/** What a shared metric measures, in a few words. */
export function describeMetric(metric: SavedMetricResource): string {
  const query = metric.query as { metric_type?: string; series?: { event?: string | null; kind?: string; id?: number }[]; source?: { event?: string | null; kind?: string; id?: number; math?: string; math_property?: string } };
  const node = (entry?: { event?: string | null; kind?: string; id?: number }) => (entry?.kind === "ActionsNode" ? `action ${entry.id}` : (entry?.event ?? "any event"));
  if (query.metric_type === "funnel") return `Conversion: ${(query.series ?? []).map(node).join(" → ")}`;
  if (query.source?.math === "sum") return `Mean: sum of ${query.source.math_property} on ${node(query.source)}`;
  return `Mean: count of ${node(query.source)}`;
}

/** The experiments page's section: the project's shared metrics, and a small form for a new one. */
export function SharedMetricsSection({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const metrics = useQuery(trpc.experiments.savedMetrics.queryOptions({ projectId }));
  const [name, setName] = useState("");
  const [type, setType] = useState<"funnel" | "mean">("funnel");
  const [event, setEvent] = useState("");
  const [property, setProperty] = useState("");
  const create = useMutation(
    trpc.experiments.createSavedMetric.mutationOptions({
      onSuccess: async () => {
        setName("");
        setEvent("");
        setProperty("");
        await queryClient.invalidateQueries({ queryKey: trpc.experiments.savedMetrics.pathKey() });
      },
    }),
  );
  const list = metrics.data ?? [];
  return (
    <Card className="flex flex-col gap-4 p-4" data-testid="shared-metrics">
      <div>
        <h2 className="text-base font-semibold text-gray-900">Shared metrics</h2>
        <p className="mt-1 text-sm text-gray-600">Defined once, picked by any experiment as a primary or secondary metric; an edit reaches every experiment using it.</p>
      </div>
      {metrics.isError && <FormAlert>{errorMessage(metrics.error)}</FormAlert>}
      {list.length > 0 ? (
        <ul className="divide-y divide-gray-100 text-sm" data-testid="shared-metric-list">
          {list.map((metric) => (
            <li key={metric.id} className="flex flex-wrap items-baseline gap-x-3 py-2" data-testid="shared-metric-row" data-name={metric.name}>
              <span className="font-medium text-gray-900">{metric.name}</span>
              <span className="text-gray-600">{describeMetric(metric)}</span>
              {metric.description && <span className="text-gray-500">— {metric.description}</span>}
            </li>
          ))}
        </ul>
      ) : (
        metrics.isSuccess && <p className="text-sm text-gray-600">None yet.</p>
      )}
      <form
        className="grid gap-3 sm:grid-cols-[1fr_1fr_1fr_1fr_auto] sm:items-end"
        aria-label="New shared metric"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ projectId, metric: { name, query: simpleMetric(type, event, type === "mean" ? property : "") } });
        }}
      >
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} required testId="shared-metric-name" />
        <SelectField label="Type" value={type} onChange={(e) => setType(e.target.value as "funnel" | "mean")} testId="shared-metric-type">
          <option value="funnel">Conversion</option>
          <option value="mean">Mean per person</option>
        </SelectField>
        <TextField label="Event" value={event} onChange={(e) => setEvent(e.target.value)} placeholder="purchase" testId="shared-metric-event" />
        <TextField label="Sum of property" value={property} onChange={(e) => setProperty(e.target.value)} placeholder={type === "mean" ? "amount (empty: count)" : "—"} disabled={type !== "mean"} testId="shared-metric-property" />
        <Button type="submit" variant="secondary" loading={create.isPending} disabled={!name || !event} data-testid="shared-metric-save">
          Add
        </Button>
      </form>
      {create.isError && <FormAlert testId="shared-metric-error">{errorMessage(create.error)}</FormAlert>}
    </Card>
  );
}

/** The form's picker: each shared metric unused, primary or secondary. */
export function SharedMetricPicker({ projectId, value, onChange }: { projectId: number; value: Record<number, "primary" | "secondary">; onChange: (next: Record<number, "primary" | "secondary">) => void }) {
  const trpc = useTRPC();
  const metrics = useQuery(trpc.experiments.savedMetrics.queryOptions({ projectId }));
  const list = metrics.data ?? [];
  if (list.length === 0) return null;
  return (
    <div className="flex flex-col gap-2" data-testid="shared-metric-picker">
      <h3 className="text-sm font-semibold text-gray-900">Shared metrics</h3>
      {list.map((metric) => (
        <SelectField
          key={metric.id}
          label={`${metric.name} (${describeMetric(metric)})`}
          value={value[metric.id] ?? ""}
          onChange={(e) => {
            const next = { ...value };
            if (e.target.value) next[metric.id] = e.target.value as "primary" | "secondary";
            else delete next[metric.id];
            onChange(next);
          }}
          testId={`shared-metric-use-${metric.id}`}
        >
          <option value="">Not used</option>
          <option value="primary">Primary</option>
          <option value="secondary">Secondary</option>
        </SelectField>
      ))}
    </div>
  );
}
