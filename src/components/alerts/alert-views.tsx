"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Badge, Button, ConfirmDialog, ErrorState, formatDateTime, LoadingState, Switch } from "@/components/ui";
import type { AlertResource } from "@/server/alerts/contract";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { describeThreshold, formatValue, INTERVAL_LABELS, STATE_TONES } from "./alert-shared";
import { AlertSnooze, snoozedNow } from "./alert-snooze";

/** A state; "Snoozed until …" when `until` is given. */
export function StateBadge({ state, until }: { state: AlertResource["state"]; until?: string | null }) {
  return (
    <Badge tone={STATE_TONES[state]} dot data-testid="alert-state" data-state={state}>
      <span>
        {state}
        {until ? <span data-testid="alert-snoozed-until"> until {formatDateTime(until)}</span> : null}
      </span>
    </Badge>
  );
}

function targetsOf(check: AlertResource["checks"][number]): string {
  const parts: string[] = [];
  for (const hook of check.targets_notified.webhooks ?? []) parts.push(hook.error ? `webhook failed: ${hook.error}` : `webhook (HTTP ${hook.status})`);
  if (check.targets_notified.users?.length) parts.push(`e-mailed ${check.targets_notified.users.join(", ")}`);
  if (check.targets_notified.email_error) parts.push(`e-mail not sent: ${check.targets_notified.email_error}`);
  return parts.join("; ") || "—";
}

/** An alert's newest checks: when, the value, the state it led to, the error, who was told. */
export function CheckHistory({ projectId, alert }: { projectId: number; alert: AlertResource }) {
  const trpc = useTRPC();
  const checks = useQuery(trpc.alerts.get.queryOptions({ projectId, id: alert.id, checksLimit: 20 }));
  if (checks.isPending) return <LoadingState label="Loading checks…" />;
  if (checks.isError) return <ErrorState title="Could not load the checks" message={errorMessage(checks.error)} onRetry={() => void checks.refetch()} retrying={checks.isRefetching} />;
  if (checks.data.checks.length === 0) return <p className="px-4 py-3 text-sm text-gray-600" data-testid="alert-no-checks">Not checked yet: the first check comes within a minute, or use Check now.</p>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm" data-testid="alert-checks">
        <caption className="sr-only">Checks of {alert.name}, newest first</caption>
        <thead className="text-xs text-gray-500">
          <tr>
            <th scope="col" className="px-4 py-2 font-medium">Checked</th>
            <th scope="col" className="px-4 py-2 font-medium">Value</th>
            <th scope="col" className="px-4 py-2 font-medium">State</th>
            <th scope="col" className="px-4 py-2 font-medium">Notified / error</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-gray-100">
          {checks.data.checks.map((check) => (
            <tr key={check.id} data-testid="alert-check" data-state={check.state}>
              <td className="px-4 py-2 whitespace-nowrap text-gray-700">{formatDateTime(check.created_at)}</td>
              <td className="px-4 py-2 font-mono text-gray-900" data-testid="alert-check-value">
                {formatValue(check.calculated_value, alert)}
              </td>
              <td className="px-4 py-2">
                <StateBadge state={check.state} />
              </td>
              <td className="px-4 py-2 break-words text-gray-600">{check.error ? <span className="text-red-700">{check.error.message}</span> : targetsOf(check)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One alert as a row: its state, threshold, schedule, last check; on/off, Snooze, Check now, Edit, Delete, and its history. */
export function AlertRow({ projectId, alert, onEdit, showInsight = false }: { projectId: number; alert: AlertResource; onEdit?: (alert: AlertResource) => void; showInsight?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const refresh = () => queryClient.invalidateQueries(trpc.alerts.pathFilter());
  const checkNow = useMutation(trpc.alerts.checkNow.mutationOptions({ onSuccess: async () => { await refresh(); setOpen(true); } }));
  const remove = useMutation(trpc.alerts.delete.mutationOptions({ onSuccess: refresh }));
  const toggle = useMutation(trpc.alerts.update.mutationOptions({ onSuccess: refresh }));
  const snoozed = snoozedNow(alert);
  const last = alert.checks[0];
  const historyId = `alert-history-${alert.id}`;
  return (
    <li className="flex flex-col" data-testid="alert-row" data-name={alert.name} data-enabled={alert.enabled}>
      <div className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:flex-wrap sm:items-center sm:gap-x-4">
        <div className="min-w-0 flex-1 sm:min-w-72">
          <div className="flex flex-wrap items-center gap-2">
            <span className="text-sm font-semibold break-words text-gray-900">{alert.name}</span>
            <StateBadge state={snoozed ? "Snoozed" : alert.state} until={snoozed ? alert.snoozed_until : null} />
            {!alert.enabled && <Badge tone="neutral">Disabled</Badge>}
          </div>
          <p className="mt-0.5 text-xs text-gray-600">
            {showInsight && (
              <>
                <Link href={`/insights/${alert.insight.short_id}`} className="font-medium text-brand-700 hover:underline" data-testid="alert-insight-link">
                  {alert.insight.name}
                </Link>
                {" · "}
              </>
            )}
            {describeThreshold(alert)} · {INTERVAL_LABELS[alert.calculation_interval]}
            {last ? ` · last checked ${formatDateTime(alert.last_checked_at ?? last.created_at)} (${formatValue(last.calculated_value, alert)})` : " · not checked yet"}
            {alert.skip_weekend ? " · not on weekends" : ""}
          </p>
          {checkNow.isError && <p className="mt-1 text-xs text-red-700">{errorMessage(checkNow.error)}</p>}
          {toggle.isError && <p className="mt-1 text-xs text-red-700">{errorMessage(toggle.error)}</p>}
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Switch
            checked={alert.enabled}
            onChange={(enabled) => toggle.mutate({ projectId, id: alert.id, patch: { enabled } })}
            label={`${alert.name} enabled`}
            disabled={toggle.isPending}
            testId="alert-enabled"
          />
          <AlertSnooze projectId={projectId} alert={alert} />
          <Button size="sm" variant="secondary" onClick={() => checkNow.mutate({ projectId, id: alert.id })} loading={checkNow.isPending} data-testid="alert-check-now">
            Check now
          </Button>
          {onEdit && (
            <Button size="sm" variant="secondary" onClick={() => onEdit(alert)} data-testid="alert-edit">
              Edit
            </Button>
          )}
          <Button size="sm" variant="ghost" aria-expanded={open} aria-controls={historyId} onClick={() => setOpen(!open)} data-testid="alert-history-toggle">
            {open ? "Hide history" : "History"}
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setDeleting(true)} data-testid="alert-delete">
            Delete
          </Button>
        </div>
      </div>
      {open && (
        <div id={historyId} className="border-t border-gray-100 bg-gray-50/60">
          <CheckHistory projectId={projectId} alert={alert} />
        </div>
      )}
      <ConfirmDialog
        open={deleting}
        onCancel={() => setDeleting(false)}
        onConfirm={() => remove.mutate({ projectId, id: alert.id }, { onSettled: () => setDeleting(false) })}
        title={`Delete the alert "${alert.name}"?`}
        description="Its check history goes with it."
        confirmLabel="Delete alert"
        pending={remove.isPending}
      />
    </li>
  );
}
