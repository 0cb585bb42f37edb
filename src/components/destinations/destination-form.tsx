"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Button, Card, ErrorState, FormAlert, inputClasses, LoadingState, PageHeader, SelectField, Switch, TextField } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { WEBHOOK_METHODS, type HogFunctionCreateInput } from "@/server/destinations/contract";
import type { HogFunctionResource } from "@/server/destinations/present";

const DEFAULT_BODY = JSON.stringify({ event: "{event.event}", distinct_id: "{event.distinct_id}", properties: "{event.properties}", email: "{person.properties.email}", project: "{project.name}" }, null, 2);

interface Draft {
  name: string;
  url: string;
  method: (typeof WEBHOOK_METHODS)[number];
  headers: string;
  body: string;
  events: string;
  enabled: boolean;
}

/** `Name: value` lines → headers (a line without a colon is an error the server would not explain as well). */
function headersOf(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf(":");
    if (at <= 0) throw new Error(`Header “${line}” needs a name, a colon and a value.`);
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return headers;
}

const NEW_DRAFT: Draft = { name: "", url: "", method: "POST", headers: "Content-Type: application/json", body: DEFAULT_BODY, events: "", enabled: true };

/** A saved destination as the form edits it: secret headers arrive masked, and a masked value sent back keeps the stored one. */
export function draftOf(destination: HogFunctionResource): Draft {
  const value = (name: string) => destination.inputs[name]?.value;
  const headers = value("headers");
  const method = String(value("method") ?? "POST");
  const events = (destination.filters.events as { id?: string | null }[] | undefined) ?? [];
  return {
    name: destination.name,
    url: String(value("url") ?? ""),
    method: (WEBHOOK_METHODS as readonly string[]).includes(method) ? (method as Draft["method"]) : "POST",
    headers: headers && typeof headers === "object" ? Object.entries(headers).map(([name, v]) => `${name}: ${String(v)}`).join("\n") : "",
    body: JSON.stringify(value("body") ?? {}, null, 2),
    events: events.map((entry) => entry.id).filter((id): id is string => typeof id === "string").join(", "),
    enabled: destination.enabled,
  };
}

function bodyOf(draft: Draft): HogFunctionCreateInput {
  let body: unknown;
  try {
    body = JSON.parse(draft.body);
  } catch {
    throw new Error("The body must be JSON (placeholders like {event.event} go inside strings).");
  }
  const events = draft.events.split(",").map((e) => e.trim()).filter(Boolean);
  return {
    type: "destination",
    name: draft.name,
    enabled: draft.enabled,
    template_id: "template-webhook",
    inputs: { url: { value: draft.url }, method: { value: draft.method }, headers: { value: headersOf(draft.headers) }, body: { value: body } },
    filters: { events: events.map((id) => ({ id, type: "events" as const })), actions: [] },
  };
}

/** `/destinations/:id/edit`: the same form over the saved destination. */
export function EditDestinationPage({ id }: { id: string }) {
  const router = useRouter();
  return (
    <div className="flex flex-col gap-6" data-testid="edit-destination-page">
      <ProjectGate testId="destination-project">{(project) => <EditDestination projectId={project.id} id={id} onSaved={() => router.push(`/destinations/${id}`)} />}</ProjectGate>
    </div>
  );
}

function EditDestination({ projectId, id, onSaved }: { projectId: number; id: string; onSaved: () => void }) {
  const trpc = useTRPC();
  const destination = useQuery(trpc.destinations.get.queryOptions({ projectId, id }));
  const header = (title: string) => (
    <PageHeader
      eyebrow={
        <Link href={`/destinations/${id}`} className="hover:underline">
          Destination
        </Link>
      }
      title={title}
      description="Changes apply to events ingested from now on; queued deliveries keep the request they were given."
    />
  );
  if (destination.isPending) {
    return (
      <>
        {header("Edit destination")}
        <Card data-state="loading">
          <LoadingState label="Loading destination…" />
        </Card>
      </>
    );
  }
  if (destination.isError) {
    return (
      <>
        {header("Edit destination")}
        <Card className="p-4" data-state="error">
          <ErrorState title="Could not load this destination" message={errorMessage(destination.error)} onRetry={() => void destination.refetch()} retrying={destination.isRefetching} />
        </Card>
      </>
    );
  }
  return (
    <>
      {header(`Edit ${destination.data.name}`)}
      <DestinationForm projectId={projectId} existing={destination.data} onSaved={onSaved} />
    </>
  );
}

export function NewDestinationPage() {
  const router = useRouter();
  return (
    <div className="flex flex-col gap-6" data-testid="new-destination-page">
      <PageHeader
        eyebrow={
          <Link href="/destinations" className="hover:underline">
            Destinations
          </Link>
        }
        title="New webhook destination"
        description="Each matching event is sent as one request, retried with backoff until the receiver answers 2xx."
      />
      <ProjectGate testId="destination-project">{(project) => <DestinationForm projectId={project.id} onSaved={(id) => router.push(`/destinations/${id}`)} />}</ProjectGate>
    </div>
  );
}

/** Creates a destination, or with `existing` edits it (filters the form does not show, such as actions and properties, are kept). */
function DestinationForm({ projectId, existing, onSaved }: { projectId: number; existing?: HogFunctionResource; onSaved: (id: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => (existing ? draftOf(existing) : NEW_DRAFT));
  const [local, setLocal] = useState<string | null>(null);
  const invalidate = { onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.destinations.pathKey() }) };
  const create = useMutation(trpc.destinations.create.mutationOptions(invalidate));
  const update = useMutation(trpc.destinations.update.mutationOptions(invalidate));
  const saving = existing ? update : create;
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const submit = async () => {
    setLocal(null);
    let body: HogFunctionCreateInput;
    try {
      body = bodyOf(draft);
    } catch (error) {
      return setLocal((error as Error).message);
    }
    try {
      if (existing) {
        const { type: _type, template_id: _template, ...patch } = body;
        await update.mutateAsync({ projectId, id: existing.id, patch: { ...patch, filters: { ...existing.filters, events: body.filters?.events ?? [] } } });
        onSaved(existing.id);
      } else {
        onSaved((await create.mutateAsync({ projectId, destination: body })).id);
      }
    } catch {
      // Shown below from the mutation's error.
    }
  };
  const error = local ?? (saving.error ? errorMessage(saving.error) : null);
  return (
    <form
      className="flex max-w-3xl flex-col gap-4"
      data-testid="destination-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Card className="flex flex-col gap-4 p-4">
        <TextField label="Name" value={draft.name} required maxLength={400} onChange={(e) => set({ name: e.target.value })} testId="destination-name" />
        <div className="grid gap-4 sm:grid-cols-[8rem_minmax(0,1fr)]">
          <SelectField label="Method" value={draft.method} onChange={(e) => set({ method: e.target.value as Draft["method"] })} testId="destination-method">
            {WEBHOOK_METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </SelectField>
          <TextField
            label="Webhook URL"
            value={draft.url}
            required
            type="url"
            placeholder="https://hooks.example.com/burrow"
            hint="Private and loopback addresses are refused unless BURROW_OUTBOUND_ALLOWLIST lists them."
            onChange={(e) => set({ url: e.target.value })}
            testId="destination-url"
          />
        </div>
        <TextField
          label="Events"
          value={draft.events}
          placeholder="signed_up, $pageview"
          hint="Comma-separated event names; empty sends every event."
          onChange={(e) => set({ events: e.target.value })}
          testId="destination-events"
        />
        <label className="flex flex-col gap-1 text-sm font-medium text-gray-800">
          Headers
          <span className="text-xs font-normal text-gray-500">One “Name: value” per line. Authorization, tokens and keys are stored encrypted and shown masked.</span>
          <textarea className={inputClasses({ className: "h-auto min-h-20 py-2 font-mono text-xs" })} value={draft.headers} onChange={(e) => set({ headers: e.target.value })} data-testid="destination-headers" />
        </label>
        <label className="flex flex-col gap-1 text-sm font-medium text-gray-800">
          JSON body
          <span className="text-xs font-normal text-gray-500">
            Placeholders: {"{event.event}"}, {"{event.properties.x}"}, {"{person.properties.x}"}, {"{project.name}"}; alone in a string, they keep their type.
          </span>
          <textarea className={inputClasses({ className: "h-auto min-h-40 py-2 font-mono text-xs" })} value={draft.body} onChange={(e) => set({ body: e.target.value })} data-testid="destination-body" />
        </label>
        <Switch checked={draft.enabled} onChange={(enabled) => set({ enabled })} label="Enabled" text={["Sends events", "Paused"]} testId="destination-enabled" />
      </Card>
      {error && <FormAlert testId="destination-error">{error}</FormAlert>}
      <div className="flex gap-2">
        <Button type="submit" loading={saving.isPending} data-testid="destination-save">
          {existing ? "Save changes" : "Create destination"}
        </Button>
        <Link href={existing ? `/destinations/${existing.id}` : "/destinations"} className="inline-flex items-center px-3 text-sm text-gray-700 hover:underline">
          Cancel
        </Link>
      </div>
    </form>
  );
}
