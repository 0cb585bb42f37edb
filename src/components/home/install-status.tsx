"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useCurrentProject } from "@/components/account/use-current-project";
import { TestEventButton } from "@/components/install/test-event-button";
import { buttonClasses, Card, CardBody, CardHeader, ErrorState, LocalTime, Sparkline, Spinner } from "@/components/ui";
import { formatCount } from "@/components/web/web-format";
import { errorMessage } from "@/trpc/errors";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { dailyEvents, homeCountInput, homeCountKey, latestEventInput, uniqueVisitors } from "./page-queries";

/** How often Home looks for a first event, and for newer ones once events arrive. */
const WAITING_POLL_MS = 2_000;
const LIVE_POLL_MS = 15_000;

const INSTALL_HREF = "/settings/project#install";

interface Series {
  data: number[];
  aggregated_value?: number;
}

function firstSeries(response: unknown): Series | null {
  const results = (response as { results?: unknown } | undefined)?.results;
  const first = Array.isArray(results) ? (results[0] as Series | undefined) : undefined;
  return first && Array.isArray(first.data) ? first : null;
}

/**
 * Home's install state, live: "Waiting for your first event…" (looked for every two
 * seconds) until one arrives, then the project's events and visitors of the last 30 days.
 */
export function InstallStatus() {
  const current = useCurrentProject();
  const projectId = current.projectId;
  if (current.noProject || current.error || projectId === null) return null;
  return <InstallStatusCard projectId={projectId} />;
}

function InstallStatusCard({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const latest = useQuery({
    ...trpc.events.list.queryOptions(latestEventInput(projectId)),
    refetchInterval: (query) => (query.state.data?.results.length ? LIVE_POLL_MS : WAITING_POLL_MS),
    // Looked for again on every visit, but not right after the server's render brought it.
    staleTime: WAITING_POLL_MS,
  });
  const newest = latest.data?.results[0];
  const state = latest.isError && !latest.data ? "error" : !latest.data ? "loading" : newest ? "arrived" : "waiting";

  return (
    <Card aria-labelledby="install-status-title" data-testid="install-status" data-state={state}>
      <CardHeader
        titleId="install-status-title"
        title={state === "arrived" ? "Your events" : "Get your first event"}
        description={state === "arrived" ? "Everything this project received in the last 30 days." : "Install PostHog's snippet or an SDK pointed at this server."}
        actions={
          state === "arrived" ? (
            <Link href="/web" className={buttonClasses({ variant: "secondary", size: "sm" })}>
              Web analytics
            </Link>
          ) : null
        }
      />
      <CardBody>
        {state === "error" ? (
          <ErrorState title="Could not look for events" message={errorMessage(latest.error)} onRetry={() => void latest.refetch()} />
        ) : state === "loading" ? (
          <div className="flex items-center gap-3 py-2 text-sm text-gray-600">
            <Spinner label={null} className="text-brand-600" />
            <span role="status">Looking for events…</span>
          </div>
        ) : state === "waiting" ? (
          <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
            <div className="flex items-start gap-3">
              <span aria-hidden="true" className="relative mt-1.5 flex size-3 shrink-0">
                <span className="absolute inline-flex size-full animate-ping rounded-full bg-brand-400 opacity-60 motion-reduce:hidden" />
                <span className="relative inline-flex size-3 rounded-full bg-brand-500" />
              </span>
              <div>
                <p className="text-base font-semibold text-gray-900" role="status" data-testid="install-waiting">
                  Waiting for your first event…
                </p>
                <p className="mt-0.5 text-sm text-gray-600">This updates by itself as soon as one arrives.</p>
              </div>
            </div>
            <div className="flex flex-wrap items-center gap-2">
              <Link href={INSTALL_HREF} className={buttonClasses()} data-testid="install-snippet-link">
                Install the snippet
              </Link>
              <TestEventButton projectId={projectId} />
            </div>
          </div>
        ) : (
          <Arrived projectId={projectId} newest={newest!} />
        )}
      </CardBody>
    </Card>
  );
}

/** The event "Send a test event" stores (server: db/events/test-event.ts). */
const TEST_EVENT_NAME = "$test_event";

function Arrived({ projectId, newest }: { projectId: number; newest: { id: string; event: string; timestamp: string } }) {
  // Counted again, past the server's short result cache, whenever a newer event arrives.
  const trpcClient = useTRPCClient();
  const count = (query: object) => ({
    queryKey: homeCountKey(projectId, newest.id, query),
    queryFn: () => trpcClient.query.run.query(homeCountInput(projectId, query)),
    staleTime: 60_000,
    placeholderData: keepPreviousData,
  });
  const events = useQuery(count(dailyEvents));
  const visitors = useQuery(count(uniqueVisitors));
  const daily = firstSeries(events.data);
  const eventCount = daily ? daily.data.reduce((sum, n) => sum + n, 0) : null;
  const visitorSeries = firstSeries(visitors.data);
  const visitorCount = visitorSeries ? (visitorSeries.aggregated_value ?? visitorSeries.data.reduce((sum, n) => sum + n, 0)) : null;
  const failed = events.error ?? visitors.error;

  return (
    <div className="flex flex-col gap-4" data-testid="install-arrived">
      <div className="grid grid-cols-2 gap-4 sm:grid-cols-[auto_auto_1fr] sm:items-end sm:gap-8">
        <Figure label="Events" value={eventCount} testId="home-event-count" />
        <Figure label="Visitors" value={visitorCount} testId="home-visitor-count" />
        <div className="col-span-2 min-w-0 sm:col-span-1">
          {daily ? <Sparkline data={daily.data} label="Events per day, last 30 days" className="h-12 text-brand-600" testId="home-sparkline" /> : <div className="h-12 animate-pulse motion-reduce:animate-none rounded bg-gray-100" />}
        </div>
      </div>
      {failed ? <p className="text-sm text-red-700">Could not count the events: {errorMessage(failed)}</p> : null}
      <p className="text-sm text-gray-600" data-testid="home-latest-event">
        Latest: <span className="font-mono text-[13px] text-gray-800">{newest.event}</span> at <LocalTime value={newest.timestamp} />
      </p>
      {newest.event === TEST_EVENT_NAME && (
        <p className="rounded-control bg-brand-50 px-3 py-2 text-sm text-gray-800" data-testid="home-test-event-note">
          Your test event arrived: the server receives events. Test events are left out of these counts and every chart;{" "}
          <Link href={INSTALL_HREF} className="font-medium text-brand-700 underline">
            install the snippet
          </Link>{" "}
          to see real visitors.
        </p>
      )}
    </div>
  );
}

function Figure({ label, value, testId }: { label: string; value: number | null; testId: string }) {
  return (
    <div>
      <p className="text-xs font-medium tracking-wide text-gray-600 uppercase">{label}</p>
      <p className="mt-1 text-3xl font-semibold tracking-tight text-gray-900 tabular-nums" data-testid={testId} data-value={value ?? ""}>
        {value === null ? <span className="inline-block h-8 w-16 animate-pulse motion-reduce:animate-none rounded bg-gray-100 align-middle" /> : formatCount(value)}
      </p>
    </div>
  );
}
