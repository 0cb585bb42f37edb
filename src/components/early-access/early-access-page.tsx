"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, Card, FormAlert, inputClasses, ListPage, PageHeader } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { earlyAccessListInput } from "./page-queries";
import { EAF_STAGES, isReleaseStage, type EafResource, type EarlyAccessStage } from "@/server/early-access/contract";

const STAGE_LABELS: Record<EarlyAccessStage, string> = { draft: "Draft", concept: "Concept", alpha: "Alpha", beta: "Beta", "general-availability": "General availability", archived: "Archived" };

/**
 * `/early-access`: the project's early-access features, each with its flag, the persons who
 * opted in (posthog-js `updateEarlyAccessFeatureEnrollment`), and its stage to promote.
 */
export function EarlyAccessPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="early-access-page">
      <PageHeader
        title="Early access"
        description="Features your users can opt into from your product (posthog-js getEarlyAccessFeatures). Opting in turns the feature's flag on for that person; promote a feature stage by stage."
      />
      <ProjectGate testId="early-access-project">
        {(project) => (
          <>
            <NewFeature projectId={project.id} />
            <Features projectId={project.id} />
          </>
        )}
      </ProjectGate>
    </div>
  );
}

function NewFeature({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState({ name: "", description: "", stage: "beta" as EarlyAccessStage });
  const create = useMutation(
    trpc.earlyAccess.create.mutationOptions({
      onSuccess: async () => {
        setDraft({ name: "", description: "", stage: "beta" });
        await queryClient.invalidateQueries({ queryKey: trpc.earlyAccess.pathKey() });
      },
    }),
  );
  return (
    <Card className="p-4">
      <form
        className="grid items-end gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,2fr)_12rem_auto]"
        data-testid="eaf-form"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate({ projectId, feature: draft });
        }}
      >
        <label className="flex flex-col gap-1 text-sm font-medium text-gray-800">
          Name
          <input className={inputClasses()} required maxLength={200} value={draft.name} onChange={(event) => setDraft({ ...draft, name: event.target.value })} data-testid="eaf-name" />
        </label>
        <label className="flex flex-col gap-1 text-sm font-medium text-gray-800">
          Description
          <input className={inputClasses()} maxLength={10_000} value={draft.description} onChange={(event) => setDraft({ ...draft, description: event.target.value })} data-testid="eaf-description" />
        </label>
        <StageSelect value={draft.stage} onChange={(stage) => setDraft({ ...draft, stage })} testId="eaf-stage" />
        <Button type="submit" loading={create.isPending} data-testid="eaf-create">
          Add feature
        </Button>
      </form>
      {create.error && <FormAlert className="mt-3" testId="eaf-error">{errorMessage(create.error)}</FormAlert>}
    </Card>
  );
}

function StageSelect({ value, onChange, testId, label = "Stage" }: { value: EarlyAccessStage; onChange: (stage: EarlyAccessStage) => void; testId: string; label?: string }) {
  return (
    <label className="flex flex-col gap-1 text-sm font-medium text-gray-800">
      {label}
      <select className={inputClasses()} value={value} onChange={(event) => onChange(event.target.value as EarlyAccessStage)} data-testid={testId}>
        {EAF_STAGES.map((stage) => (
          <option key={stage} value={stage}>
            {STAGE_LABELS[stage]}
          </option>
        ))}
      </select>
    </label>
  );
}

function Features({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.earlyAccess.list.queryOptions(earlyAccessListInput(projectId)));
  const features = list.data?.results ?? [];
  return (
    <ListPage
      noun={["feature", "features"]}
      label="Early-access features"
      testId="eaf"
      query={list}
      empty={features.length === 0}
      filtered={false}
      nothingMatches={{ description: "" }}
      nothingYet={{ description: "Add one above: a flag is made with it, off for everyone until people opt in." }}
      count={list.data?.count ?? 0}
    >
      <ul className="divide-y divide-gray-200">
        {features.map((feature) => (
          <FeatureRow key={feature.id} projectId={projectId} feature={feature} />
        ))}
      </ul>
    </ListPage>
  );
}

function FeatureRow({ projectId, feature }: { projectId: number; feature: EafResource }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const enrolled = useQuery(trpc.earlyAccess.enrolled.queryOptions({ projectId, id: feature.id }));
  const update = useMutation(trpc.earlyAccess.update.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.earlyAccess.pathKey() }) }));
  const next = EAF_STAGES[EAF_STAGES.indexOf(feature.stage) + 1];
  const persons = enrolled.data?.results ?? [];
  return (
    <li className="flex flex-col gap-3 px-4 py-4" data-testid="eaf-row" data-name={feature.name}>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <p className="flex flex-wrap items-center gap-2 text-sm font-semibold text-gray-900">
            {feature.name}
            <Badge tone={isReleaseStage(feature.stage) ? "success" : "neutral"} dot data-testid="eaf-stage-badge">
              {STAGE_LABELS[feature.stage]}
            </Badge>
          </p>
          {feature.description && <p className="mt-0.5 text-sm text-gray-600">{feature.description}</p>}
          <p className="mt-0.5 text-xs text-gray-500">
            Flag{" "}
            <Link href={`/feature-flags/${feature.feature_flag.id}`} className="font-mono text-brand-700 hover:underline">
              {feature.feature_flag.key}
            </Link>
          </p>
        </div>
        <div className="flex flex-wrap items-end gap-2">
          <StageSelect label="Stage" value={feature.stage} onChange={(stage) => update.mutate({ projectId, id: feature.id, patch: { stage } })} testId="eaf-row-stage" />
          {next && next !== "archived" && (
            <Button variant="secondary" onClick={() => update.mutate({ projectId, id: feature.id, patch: { stage: next } })} loading={update.isPending} data-testid="eaf-promote">
              Promote to {STAGE_LABELS[next]}
            </Button>
          )}
        </div>
      </div>
      {update.error && <FormAlert testId="eaf-update-error">{errorMessage(update.error)}</FormAlert>}
      <div className="text-sm" data-testid="eaf-enrolled">
        <p className="font-medium text-gray-800">
          Opted in: {enrolled.isPending ? "…" : `${persons.length}${enrolled.data?.more ? "+" : ""}`}
        </p>
        {persons.length > 0 && (
          <ul className="mt-1 flex flex-wrap gap-2">
            {persons.map((person) => (
              <li key={person.uuid}>
                <Link href={`/persons/${person.uuid}`} className="rounded bg-gray-100 px-2 py-0.5 text-xs text-gray-800 hover:underline" data-testid="eaf-person">
                  {person.name || person.distinct_id}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
    </li>
  );
}
