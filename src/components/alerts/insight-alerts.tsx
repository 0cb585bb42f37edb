"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Button, Dialog, ErrorState, LoadingState } from "@/components/ui";
import { alertableInsight, type AlertResource } from "@/server/alerts/contract";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { AlertForm } from "./alert-form";
import { AlertRow } from "./alert-views";

/** "Alerts" on a saved trends insight's page: its alerts, their states and checks, and the form to add or edit one. */
export function InsightAlerts({ projectId, insight }: { projectId: number; insight: { id: number; query?: unknown } }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState<AlertResource | "new" | null>(null);
  const alertable = alertableInsight(insight.query);
  const alerts = useQuery({ ...trpc.alerts.list.queryOptions({ projectId, insight: insight.id, limit: 100 }), enabled: alertable !== null });
  if (!alertable) return null;
  const count = alerts.data?.count ?? 0;
  const firing = alerts.data?.results.filter((a) => a.state === "Firing").length ?? 0;
  return (
    <>
      <Button variant="secondary" onClick={() => setOpen(true)} data-testid="insight-alerts" aria-haspopup="dialog">
        Alerts{count > 0 ? ` (${count})` : ""}
        {firing > 0 && <span className="ml-1 inline-block size-2 rounded-full bg-red-600" aria-label={`${firing} firing`} />}
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title="Alerts on this insight"
        description="Get told by e-mail or webhook when a series crosses a threshold."
        testId="insight-alerts-dialog"
        className="sm:max-w-3xl"
        footer={
          <>
            <Link href="/alerts" className="mr-auto self-center text-sm font-medium text-brand-700 hover:underline">
              All alerts
            </Link>
            <Button variant="secondary" onClick={() => setOpen(false)}>
              Close
            </Button>
            <Button onClick={() => setEditing("new")} data-testid="new-alert">
              New alert
            </Button>
          </>
        }
      >
        {alerts.isPending ? (
          <LoadingState label="Loading alerts…" />
        ) : alerts.isError ? (
          <ErrorState title="Could not load the alerts" message={errorMessage(alerts.error)} onRetry={() => void alerts.refetch()} retrying={alerts.isRefetching} />
        ) : alerts.data.results.length === 0 ? (
          <p className="rounded-control bg-gray-50 px-4 py-6 text-center text-sm text-gray-600" data-testid="insight-alerts-empty">
            No alerts on this insight yet. Create one to be told when a series goes above or below a threshold.
          </p>
        ) : (
          <ul className="-mx-5 divide-y divide-gray-200 border-y border-gray-200">
            {alerts.data.results.map((alert) => (
              <AlertRow key={alert.id} projectId={projectId} alert={alert} onEdit={setEditing} />
            ))}
          </ul>
        )}
      </Dialog>
      {editing !== null && (
        <AlertForm
          projectId={projectId}
          insightId={insight.id}
          seriesNames={alertable.seriesNames}
          timeSeries={alertable.timeSeries}
          alert={editing === "new" ? null : editing}
          open
          onClose={() => setEditing(null)}
        />
      )}
    </>
  );
}
