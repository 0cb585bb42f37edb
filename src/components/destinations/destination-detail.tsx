"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, Button, buttonClasses, Card, ConfirmDialog, ErrorState, FormAlert, formatDateTime, LoadingState, PageHeader, Switch } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { HogFunctionResource } from "@/server/destinations/present";
import { DELIVERY_TONES, stateBadge, urlOf } from "./destination-shared";

const backLink = (
  <Link href="/destinations" className="hover:underline">
    Destinations
  </Link>
);

/** `/destinations/:id`: its state, totals and delivery log (refreshed while open). */
export function DestinationPage({ id }: { id: string }) {
  return (
    <div className="flex flex-col gap-6" data-testid="destination-page">
      <ProjectGate testId="destination-project">{(project) => <DestinationDetail projectId={project.id} id={id} />}</ProjectGate>
    </div>
  );
}

function DestinationDetail({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const destination = useQuery({ ...trpc.destinations.get.queryOptions({ projectId, id }), refetchInterval: 3_000 });
  const router = useRouter();
  const [deleting, setDeleting] = useState(false);
  const update = useMutation(trpc.destinations.update.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.destinations.pathKey() }) }));
  const remove = useMutation(
    trpc.destinations.delete.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.destinations.pathKey() });
        router.push("/destinations");
      },
    }),
  );
  if (destination.isPending) {
    return (
      <Card data-state="loading">
        <LoadingState label="Loading destination…" />
      </Card>
    );
  }
  if (destination.isError) {
    return (
      <>
        <PageHeader eyebrow={backLink} title="Destination" />
        <Card className="p-4" data-state="error">
          <ErrorState title="Could not load this destination" message={errorMessage(destination.error)} onRetry={() => void destination.refetch()} retrying={destination.isRefetching} />
        </Card>
      </>
    );
  }
  const current = destination.data;
  const state = stateBadge(current);
  return (
    <>
      <PageHeader
        eyebrow={backLink}
        title={<span className="break-words">{current.name}</span>}
        description={<span className="font-mono text-xs break-all">{`${String(current.inputs.method?.value ?? "POST")} ${urlOf(current)}`}</span>}
        actions={
          <div className="flex items-center gap-3">
            <Badge tone={state.tone} dot data-testid="destination-state">
              {state.label}
            </Badge>
            <Switch
              checked={current.enabled}
              disabled={update.isPending}
              onChange={(enabled) => update.mutate({ projectId, id, patch: { enabled } })}
              label="Enabled"
              text={["Sends events", "Paused"]}
              testId="destination-toggle"
            />
            <Link href={`/destinations/${id}/edit`} className={buttonClasses({ variant: "secondary", size: "sm" })} data-testid="destination-edit">
              Edit
            </Link>
            <Button variant="ghost" size="sm" onClick={() => setDeleting(true)} data-testid="destination-delete">
              Delete
            </Button>
          </div>
        }
      />
      <ConfirmDialog
        open={deleting}
        onCancel={() => setDeleting(false)}
        onConfirm={() => remove.mutate({ projectId, id })}
        title="Delete this destination?"
        description="It stops receiving events at once and leaves the list. Deleting is soft, as in PostHog: the API can restore it (PATCH deleted: false), queued events included."
        confirmLabel="Delete destination"
        pending={remove.isPending}
        error={remove.isError ? errorMessage(remove.error) : null}
        testId="destination-delete-dialog"
      />
      {update.error && <FormAlert>{errorMessage(update.error)}</FormAlert>}
      <Totals projectId={projectId} id={id} />
      <Filters destination={current} />
      <Deliveries projectId={projectId} id={id} />
    </>
  );
}

function Totals({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const totals = useQuery({ ...trpc.destinations.totals.queryOptions({ projectId, id }), refetchInterval: 3_000 });
  const values = totals.data?.totals ?? {};
  const items: [string, string][] = [
    ["delivered", "Delivered"],
    ["retrying", "Retried"],
    ["failed", "Failed"],
    ["pending", "Waiting"],
  ];
  return (
    <div className="grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="destination-totals">
      {items.map(([key, label]) => (
        <Card key={key} className="p-4">
          <p className="text-xs font-medium text-gray-600">{key === "pending" ? `${label} now` : `${label} · 7 days`}</p>
          <p className="mt-1 text-2xl font-semibold text-gray-900 tabular-nums" data-testid={`total-${key}`}>
            {totals.isPending ? "…" : (values[key] ?? 0)}
          </p>
        </Card>
      ))}
    </div>
  );
}

function Filters({ destination }: { destination: HogFunctionResource }) {
  const events = (destination.filters.events as { id: string | null }[] | undefined) ?? [];
  const actions = (destination.filters.actions as unknown[] | undefined) ?? [];
  const headers = (destination.inputs.headers?.value ?? {}) as Record<string, string>;
  return (
    <Card className="grid gap-4 p-4 text-sm sm:grid-cols-2">
      <div>
        <h2 className="font-semibold text-gray-900">Sends</h2>
        <p className="mt-1 text-gray-700">
          {events.length === 0 && actions.length === 0 ? "Every event" : [...events.map((e) => e.id ?? "All events"), ...(actions.length > 0 ? [`${actions.length} action(s)`] : [])].join(", ")}
        </p>
      </div>
      <div>
        <h2 className="font-semibold text-gray-900">Headers</h2>
        <ul className="mt-1 font-mono text-xs text-gray-700" data-testid="destination-header-list">
          {Object.entries(headers).map(([name, value]) => (
            <li key={name}>
              {name}: {value}
            </li>
          ))}
        </ul>
      </div>
    </Card>
  );
}

function Deliveries({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const deliveries = useQuery({ ...trpc.destinations.deliveries.queryOptions({ projectId, id, query: { limit: 100 } }), refetchInterval: 3_000 });
  const rows = deliveries.data?.results ?? [];
  return (
    <Card className="overflow-hidden" data-testid="destination-deliveries">
      <div className="border-b border-gray-200 px-4 py-3">
        <h2 className="text-sm font-semibold text-gray-900">Delivery log</h2>
        <p className="text-xs text-gray-600">Each attempt, newest first. Failures are retried with growing pauses; after 8 attempts an event is given up.</p>
      </div>
      {deliveries.isPending ? (
        <LoadingState label="Loading deliveries…" />
      ) : deliveries.isError ? (
        <div className="p-4">
          <ErrorState title="Could not load the delivery log" message={errorMessage(deliveries.error)} onRetry={() => void deliveries.refetch()} retrying={deliveries.isRefetching} />
        </div>
      ) : rows.length === 0 ? (
        <p className="px-4 py-6 text-sm text-gray-600" data-testid="deliveries-empty">
          No deliveries yet: matching events appear here as they are sent.
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="bg-gray-50 text-xs text-gray-600">
              <tr>
                <th className="px-4 py-2 font-medium">When</th>
                <th className="px-4 py-2 font-medium">Status</th>
                <th className="px-4 py-2 font-medium">Attempt</th>
                <th className="px-4 py-2 font-medium">Response</th>
                <th className="px-4 py-2 font-medium">Duration</th>
                <th className="px-4 py-2 font-medium">Error</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-gray-100">
              {rows.map((row) => (
                <tr key={row.id} data-testid="delivery-row" data-status={row.status}>
                  <td className="px-4 py-2 whitespace-nowrap text-gray-700">{formatDateTime(row.created_at)}</td>
                  <td className="px-4 py-2">
                    <Badge tone={DELIVERY_TONES[row.status] ?? "neutral"}>{row.status}</Badge>
                  </td>
                  <td className="px-4 py-2 tabular-nums">{row.attempt}</td>
                  <td className="px-4 py-2 tabular-nums">{row.response_code ?? "—"}</td>
                  <td className="px-4 py-2 tabular-nums">{row.duration_ms} ms</td>
                  <td className="max-w-md truncate px-4 py-2 text-xs text-gray-700" title={row.error ?? undefined}>
                    {row.error ?? ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
