"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { buttonClasses, ListPage, PageButtons, PageHeader } from "@/components/ui";
import { ProjectGate } from "@/components/settings/project-gate";
import { alertableInsight, type AlertResource } from "@/server/alerts/contract";
import { useTRPC } from "@/trpc/react";
import { AlertForm } from "./alert-form";
import { AlertRow } from "./alert-views";

const PAGE_SIZE = 50;

export function AlertsPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="alerts-page">
      <PageHeader
        title="Alerts"
        description="Thresholds on trends insights, checked hourly, daily, weekly or monthly: their state, their last check and each check's history."
        actions={
          <Link href="/insights" className={buttonClasses({ variant: "secondary" })}>
            Open an insight to add one
          </Link>
        }
      />
      <ProjectGate testId="alerts-project">{(project) => <AlertsList projectId={project.id} />}</ProjectGate>
    </div>
  );
}

function AlertsList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const [page, setPage] = useState(0);
  const [editing, setEditing] = useState<AlertResource | null>(null);
  const list = useQuery({ ...trpc.alerts.list.queryOptions({ projectId, limit: PAGE_SIZE, offset: page * PAGE_SIZE }), placeholderData: keepPreviousData });
  // The form needs the edited alert's insight (its series names).
  const insight = useQuery({ ...trpc.insights.get.queryOptions({ projectId, insightId: editing?.insight.id ?? 0 }), enabled: editing !== null });
  const alertable = insight.data ? alertableInsight(insight.data.query) : null;
  const alerts = list.data?.results ?? [];
  return (
    <>
      <ListPage
        noun={["alert", "alerts"]}
        label="Alerts"
        testId="alerts"
        query={list}
        empty={alerts.length === 0}
        filtered={false}
        nothingMatches={{ description: "" }}
        nothingYet={{
          description: "Open a trends insight and choose Alerts to be told when a series crosses a threshold.",
          action: (
            <Link href="/insights" className={buttonClasses()} data-testid="alerts-empty-insights">
              Go to insights
            </Link>
          ),
        }}
        count={list.data?.count ?? 0}
        pager={<PageButtons page={page} pageSize={PAGE_SIZE} count={list.data?.count ?? 0} onPage={setPage} />}
      >
        <ul className="divide-y divide-gray-200">
          {alerts.map((alert) => (
            <AlertRow key={alert.id} projectId={projectId} alert={alert} onEdit={setEditing} showInsight />
          ))}
        </ul>
      </ListPage>
      {editing && alertable && (
        <AlertForm
          projectId={projectId}
          insightId={editing.insight.id}
          seriesNames={alertable.seriesNames}
          timeSeries={alertable.timeSeries}
          alert={editing}
          open
          onClose={() => setEditing(null)}
        />
      )}
    </>
  );
}
