"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Button, Card, FormAlert, PageHeader, RemoveButton, SelectField, TextField } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { ExperimentCreateInput } from "@/server/experiments/contract";
import { experimentPlan, funnelSampleSizePerVariant } from "@/server/experiments/planning";
import { EMPTY_METRIC_DRAFT, metricOf } from "./metric-draft";
import { MetricFields } from "./metric-fields";
import { SharedMetricPicker } from "./shared-metrics";

const backLink = (
  <Link href="/experiments" className="hover:underline">
    Experiments
  </Link>
);

interface VariantDraft {
  key: string;
  rollout_percentage: number;
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 60);

export function NewExperimentPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="new-experiment-page">
      <PageHeader eyebrow={backLink} title="New experiment" description="Saved as a draft: its flag stays off until you launch it." />
      <ProjectGate testId="experiment-project">{(project) => <ExperimentForm projectId={project.id} />}</ProjectGate>
    </div>
  );
}

function ExperimentForm({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [hypothesis, setHypothesis] = useState("");
  const [flagKey, setFlagKey] = useState<string | null>(null);
  const [variants, setVariants] = useState<VariantDraft[]>([
    { key: "control", rollout_percentage: 50 },
    { key: "test", rollout_percentage: 50 },
  ]);
  const [metric, setMetric] = useState(EMPTY_METRIC_DRAFT);
  const [exposureEvent, setExposureEvent] = useState("");
  const [shared, setShared] = useState<Record<number, "primary" | "secondary">>({});
  const [method, setMethod] = useState<"bayesian" | "frequentist">("bayesian");
  const [baselineRate, setBaselineRate] = useState(10);
  const [mde, setMde] = useState(5);
  const [dailyExposures, setDailyExposures] = useState(0);
  const create = useMutation(
    trpc.experiments.create.mutationOptions({
      onSuccess: async (experiment) => {
        await queryClient.invalidateQueries({ queryKey: trpc.experiments.pathKey() });
        router.push(`/experiments/${experiment.id}`);
      },
    }),
  );
  const key = flagKey ?? slug(name);
  const total = variants.reduce((sum, variant) => sum + (Number.isFinite(variant.rollout_percentage) ? variant.rollout_percentage : 0), 0);
  const perVariant = funnelSampleSizePerVariant(baselineRate, mde);
  const plan = experimentPlan(perVariant, variants.length, dailyExposures > 0 ? dailyExposures : null);
  const splitEvenly = () => {
    const share = Math.floor((100 / variants.length) * 100) / 100;
    setVariants(variants.map((variant, i) => ({ ...variant, rollout_percentage: i === 0 ? Math.round((100 - share * (variants.length - 1)) * 100) / 100 : share })));
  };

  const submit = () => {
    const body: ExperimentCreateInput = {
      name,
      description: hypothesis,
      feature_flag_key: key,
      parameters: { feature_flag_variants: variants, minimum_detectable_effect: mde, recommended_sample_size: plan.sample_size },
      metrics: metric.event.trim() ? [metricOf(metric)] : [],
      saved_metrics_ids: Object.entries(shared).map(([id, type]) => ({ id: Number(id), metadata: { type } })),
      exposure_criteria: exposureEvent ? { exposure_config: { kind: "ExperimentEventExposureConfig", event: exposureEvent, properties: [] } } : {},
      stats_config: { method },
    };
    create.mutate({ projectId, experiment: body });
  };

  return (
    <form
      className="flex flex-col gap-6"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      data-testid="experiment-form"
    >
      {create.isError && <FormAlert>{errorMessage(create.error)}</FormAlert>}
      <Card className="flex flex-col gap-4 p-4">
        <h2 className="text-base font-semibold text-gray-900">What you are testing</h2>
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} required testId="experiment-name" />
        <TextField label="Hypothesis" hint="What you expect the change to do, and why." value={hypothesis} onChange={(e) => setHypothesis(e.target.value)} testId="experiment-hypothesis" />
        <TextField label="Feature flag key" hint="A new multivariate flag, or an existing one whose first variant is control." value={key} onChange={(e) => setFlagKey(e.target.value)} required testId="experiment-flag-key" />
      </Card>
      <Card className="flex flex-col gap-3 p-4">
        <div className="flex items-center justify-between">
          <h2 className="text-base font-semibold text-gray-900">Variants</h2>
          <Button type="button" variant="ghost" size="sm" onClick={splitEvenly} data-testid="split-evenly">
            Split evenly
          </Button>
        </div>
        {variants.map((variant, index) => (
          <div key={index} className="flex items-end gap-3" data-testid="variant-row">
            <TextField
              label={index === 0 ? "Key (the first is the control)" : "Key"}
              value={variant.key}
              readOnly={index === 0}
              onChange={(e) => setVariants(variants.map((v, i) => (i === index ? { ...v, key: e.target.value } : v)))}
              className="flex-1"
              testId={`variant-key-${index}`}
            />
            <TextField
              label="Split %"
              type="number"
              min={0}
              max={100}
              value={String(variant.rollout_percentage)}
              onChange={(e) => setVariants(variants.map((v, i) => (i === index ? { ...v, rollout_percentage: Number(e.target.value) } : v)))}
              className="w-28"
              testId={`variant-split-${index}`}
            />
            {index > 1 && <RemoveButton label={`Remove ${variant.key}`} onClick={() => setVariants(variants.filter((_, i) => i !== index))} />}
          </div>
        ))}
        <div className="flex items-center gap-3 text-sm">
          <Button type="button" variant="secondary" size="sm" onClick={() => setVariants([...variants, { key: `test-${variants.length}`, rollout_percentage: 0 }])} disabled={variants.length >= 20} data-testid="add-variant">
            Add variant
          </Button>
          <span className={total === 100 ? "text-gray-600" : "text-red-700"} data-testid="split-total">
            Total {total}%{total === 100 ? "" : " — must be 100%"}
          </span>
        </div>
      </Card>
      <Card className="flex flex-col gap-4 p-4">
        <h2 className="text-base font-semibold text-gray-900">Primary metric and exposure</h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <MetricFields draft={metric} onChange={setMetric} testIdPrefix="metric" eventHint="Counted from each person's first exposure." />
          <TextField
            label="Exposure event"
            hint="Empty: $feature_flag_called, sent when the SDK reads the flag. A custom event carries the variant in $feature/<flag key>."
            value={exposureEvent}
            onChange={(e) => setExposureEvent(e.target.value)}
            placeholder="$feature_flag_called"
            testId="exposure-event"
          />
          <SelectField label="Statistics" value={method} onChange={(e) => setMethod(e.target.value as "bayesian" | "frequentist")} testId="stats-method">
            <option value="bayesian">Bayesian: chance to win</option>
            <option value="frequentist">Frequentist: p-value</option>
          </SelectField>
        </div>
        <SharedMetricPicker projectId={projectId} value={shared} onChange={setShared} />
      </Card>
      <Card className="flex flex-col gap-4 p-4" data-testid="sample-size">
        <h2 className="text-base font-semibold text-gray-900">Sample size estimate</h2>
        <div className="grid gap-4 sm:grid-cols-3">
          <TextField label="Baseline conversion %" type="number" min={0} max={100} step="any" value={String(baselineRate)} onChange={(e) => setBaselineRate(Number(e.target.value))} testId="baseline-rate" />
          <TextField label="Minimum detectable effect (points)" type="number" min={0} step="any" value={String(mde)} onChange={(e) => setMde(Number(e.target.value))} testId="mde" />
          <TextField label="Exposures per day (optional)" type="number" min={0} value={String(dailyExposures)} onChange={(e) => setDailyExposures(Number(e.target.value))} testId="daily-exposures" />
        </div>
        <p className="text-sm text-gray-700" data-testid="sample-size-estimate">
          {perVariant > 0
            ? `About ${perVariant.toLocaleString("en-US")} persons per variant, ${plan.sample_size.toLocaleString("en-US")} in all${plan.days ? `: about ${plan.days} days` : ""} (80% power, 5% significance).`
            : "Give a minimum detectable effect to see the sample it needs."}
        </p>
      </Card>
      <div className="flex justify-end">
        <Button type="submit" disabled={create.isPending || !name || !key || total !== 100} data-testid="save-experiment">
          {create.isPending ? "Saving…" : "Save draft"}
        </Button>
      </div>
    </form>
  );
}
