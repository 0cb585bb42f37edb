"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Badge, Card, CardBody, CardHeader, ErrorState, Spinner } from "@/components/ui";
import { useTRPC } from "@/trpc/react";

const TITLE_ID = "system-status-title";

/** Which database this instance uses and how much it holds, from `system.status`. */
export function SystemStatusCard() {
  const trpc = useTRPC();
  const status = useQuery(trpc.system.status.queryOptions());
  const state = status.isPending ? "loading" : status.isError ? "error" : "ready";

  return (
    <Card data-testid="system-status" data-state={state} aria-labelledby={TITLE_ID} aria-busy={status.isPending}>
      <CardHeader
        titleId={TITLE_ID}
        title="System status"
        description="The database this instance stores its data in."
        actions={
          state === "ready" ? (
            <Badge tone="success" dot>
              Connected
            </Badge>
          ) : state === "error" ? (
            <Badge tone="danger" dot>
              Unavailable
            </Badge>
          ) : (
            <Badge dot>Checking</Badge>
          )
        }
      />
      <CardBody>
        {status.isPending ? (
          <div className="flex items-center gap-3 py-6 text-sm text-gray-600">
            <Spinner label={null} className="text-brand-600" />
            <span role="status">Checking the database…</span>
          </div>
        ) : status.isError ? (
          <ErrorState
            title="Could not read the system status"
            message={status.error.message}
            onRetry={() => void status.refetch()}
            retrying={status.isFetching}
          />
        ) : (
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
            {status.data.database !== null && (
              <Stat label="Database" className="col-span-2" testId="status-database">
                <span className="block text-sm font-medium break-words text-gray-900 sm:text-base">
                  {status.data.database}
                </span>
              </Stat>
            )}
            <Stat label="Projects" testId="status-projects">
              <Count value={status.data.projects} />
            </Stat>
            <Stat label="Users" testId="status-users">
              <Count value={status.data.users} />
            </Stat>
          </dl>
        )}
      </CardBody>
    </Card>
  );
}

function Stat({
  label,
  testId,
  className,
  children,
}: {
  label: string;
  testId: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={`rounded-control border border-gray-200 bg-gray-25 px-4 py-3 ${className ?? ""}`}>
      <dt className="text-xs font-medium tracking-wide text-gray-500 uppercase">{label}</dt>
      <dd className="mt-1" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

function Count({ value }: { value: number }) {
  return (
    <span className="text-2xl font-semibold text-gray-900 tabular-nums">{value.toLocaleString("en-US")}</span>
  );
}
