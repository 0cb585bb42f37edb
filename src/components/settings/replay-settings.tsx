"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { isAdmin } from "@/components/account/levels";
import { Button, Card, CardBody, CardHeader, FormAlert, inputClasses, LoadingState, SelectField, Switch, TextField } from "@/components/ui";
import type { RecordingSettings } from "@/server/recordings/contract";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

interface Draft {
  samplePercent: string;
  minimumSeconds: string;
  linkedFlag: string;
  triggers: string;
  blocklist: string;
  retention: RecordingSettings["session_recording_retention_period"];
  budgetMb: string;
}

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((url) => ({ url, matching: "regex" as const }));

function draftOf(settings: RecordingSettings): Draft {
  return {
    samplePercent: String(Math.round((settings.session_recording_sample_rate ?? 1) * 100)),
    minimumSeconds: String((settings.session_recording_minimum_duration_milliseconds ?? 0) / 1000),
    linkedFlag: settings.session_recording_linked_flag?.key ?? "",
    triggers: settings.session_recording_url_trigger_config.map((t) => t.url).join("\n"),
    blocklist: settings.session_recording_url_blocklist_config.map((t) => t.url).join("\n"),
    retention: settings.session_recording_retention_period,
    budgetMb: String(Math.round(settings.session_recording_storage_budget_bytes / 1_000_000)),
  };
}

/** Session replay: on/off, what is recorded and how much is kept. Admins change it (PostHog's team fields). */
export function ReplaySettings({ project }: { project: { id: number; membershipLevel: number } }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.recordings.settings.queryOptions({ projectId: project.id }));
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (settings.data) setDraft(draftOf(settings.data));
  }, [settings.data]);
  const update = useMutation(
    trpc.account.updateProject.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.recordings.settings.queryKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.recordings.usage.queryKey() });
      },
    }),
  );
  const admin = isAdmin(project.membershipLevel);
  const editable = admin && !update.isPending;

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!draft) return;
    setSaved(false);
    const rate = Number(draft.samplePercent) / 100;
    update.mutate(
      {
        projectId: project.id,
        session_recording_sample_rate: rate >= 1 ? null : Math.round(rate * 100) / 100,
        session_recording_minimum_duration_milliseconds: Math.round(Number(draft.minimumSeconds) * 1000) || null,
        session_recording_linked_flag: draft.linkedFlag.trim() ? { key: draft.linkedFlag.trim() } : null,
        session_recording_url_trigger_config: lines(draft.triggers),
        session_recording_url_blocklist_config: lines(draft.blocklist),
        session_recording_retention_period: draft.retention,
        session_recording_storage_budget_bytes: Math.round(Number(draft.budgetMb) * 1_000_000),
      },
      { onSuccess: () => setSaved(true) },
    );
  }

  const data = settings.data;
  const toggles = data
    ? ([
        ["session_recording_opt_in", "Record sessions", "posthog-js records what visitors see and do, and sends it to /s/. Off: nothing is recorded or stored.", data.session_recording_opt_in],
        ["capture_console_log_opt_in", "Capture console logs", "Console output of recorded pages, shown beside the player.", data.capture_console_log_opt_in],
      ] as const)
    : [];
  const maskAll = data?.session_recording_masking_config?.maskAllInputs ?? true;
  return (
    <Card aria-labelledby="replay-settings-title" data-testid="replay-settings" id="replay">
      <CardHeader titleId="replay-settings-title" title="Session replay" description={admin ? "posthog-js picks changes up when a page next loads (within a minute)." : "Only organization admins can change these."} />
      <CardBody className="flex flex-col gap-4">
        {settings.isPending ? <LoadingState label="Loading replay settings…" /> : null}
        {settings.isError ? <FormAlert>{errorMessage(settings.error)}</FormAlert> : null}
        {update.error ? <FormAlert testId="replay-settings-error">{errorMessage(update.error)}</FormAlert> : null}
        {toggles.map(([field, title, description, checked]) => (
          <div key={field} className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between sm:gap-6">
            <div className="min-w-0">
              <p className="text-sm font-medium text-gray-900">{title}</p>
              <p className="text-sm text-gray-600">{description}</p>
            </div>
            <Switch label={title} checked={checked} text={["On", "Off"]} disabled={!editable} onChange={(value) => update.mutate({ projectId: project.id, [field]: value })} testId={`setting-${field}`} />
          </div>
        ))}
        {data ? (
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between sm:gap-6">
            <div className="min-w-0">
              <p className="text-sm font-medium text-gray-900">Mask all inputs</p>
              <p className="text-sm text-gray-600">What visitors type is replaced by asterisks in the browser, before it is sent.</p>
            </div>
            <Switch
              label="Mask all inputs"
              checked={maskAll}
              text={["On", "Off"]}
              disabled={!editable}
              onChange={(value) => update.mutate({ projectId: project.id, session_recording_masking_config: { ...data.session_recording_masking_config, maskAllInputs: value } })}
              testId="setting-mask-inputs"
            />
          </div>
        ) : null}
        {draft ? (
          <form onSubmit={save} className="grid gap-4 border-t border-gray-100 pt-4 sm:grid-cols-2" aria-label="Recording rules">
            <TextField label="Sample rate (%)" type="number" min={0} max={100} step={1} value={draft.samplePercent} disabled={!admin} onChange={(e) => setDraft({ ...draft, samplePercent: e.target.value })} testId="setting-sample-rate" />
            <TextField label="Minimum duration (seconds)" hint="Shorter sessions are not sent (0–30)." type="number" min={0} max={30} step={0.5} value={draft.minimumSeconds} disabled={!admin} onChange={(e) => setDraft({ ...draft, minimumSeconds: e.target.value })} testId="setting-min-duration" />
            <TextField label="Linked feature flag" hint="Record only while this flag is on for the visitor." value={draft.linkedFlag} maxLength={400} disabled={!admin} onChange={(e) => setDraft({ ...draft, linkedFlag: e.target.value })} testId="setting-linked-flag" />
            <SelectField label="Keep recordings for" value={draft.retention} disabled={!admin} onChange={(e) => setDraft({ ...draft, retention: e.target.value as Draft["retention"] })} testId="setting-retention">
              <option value="30d">30 days</option>
              <option value="90d">90 days</option>
              <option value="1y">1 year</option>
              <option value="5y">5 years</option>
            </SelectField>
            <label className="flex flex-col gap-1.5 text-sm font-medium text-gray-800">
              Start recording on URLs matching (one regex a line)
              <textarea className={inputClasses({ className: "min-h-20 font-mono" })} value={draft.triggers} disabled={!admin} onChange={(e) => setDraft({ ...draft, triggers: e.target.value })} data-testid="setting-url-triggers" />
            </label>
            <label className="flex flex-col gap-1.5 text-sm font-medium text-gray-800">
              Never record URLs matching (one regex a line)
              <textarea className={inputClasses({ className: "min-h-20 font-mono" })} value={draft.blocklist} disabled={!admin} onChange={(e) => setDraft({ ...draft, blocklist: e.target.value })} data-testid="setting-url-blocklist" />
            </label>
            <TextField label="Storage budget (MB)" hint="Past it, the oldest recordings are deleted first." type="number" min={0} step={1} value={draft.budgetMb} disabled={!admin} onChange={(e) => setDraft({ ...draft, budgetMb: e.target.value })} testId="setting-budget" />
            <div className="flex items-end gap-3">
              <Button type="submit" disabled={!editable} loading={update.isPending} data-testid="replay-settings-save">
                Save replay rules
              </Button>
              {saved ? (
                <span role="status" className="pb-2 text-sm text-emerald-700">
                  Saved
                </span>
              ) : null}
            </div>
          </form>
        ) : null}
      </CardBody>
    </Card>
  );
}
