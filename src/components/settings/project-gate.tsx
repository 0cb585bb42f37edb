"use client";

import type { ReactNode } from "react";
import { useCurrentProject } from "@/components/account/use-current-project";
import { Card, EmptyState, ErrorState, Spinner } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";

type Project = NonNullable<ReturnType<typeof useCurrentProject>["project"]["data"]>;

/** Loading, error and "no project" states for pages about the current project. */
export function ProjectGate({ children, testId }: { children: (project: Project) => ReactNode; testId: string }) {
  const current = useCurrentProject();
  if (current.error) {
    return (
      <Card className="p-4" data-testid={testId} data-state="error">
        <ErrorState title="Could not load your project" message={errorMessage(current.error)} onRetry={current.refetch} />
      </Card>
    );
  }
  if (current.noProject) {
    return (
      <Card data-testid={testId} data-state="empty">
        <EmptyState title="No project yet" description="Your organization has no project. An admin can create one from the project menu." />
      </Card>
    );
  }
  const project = current.project.data;
  if (current.isPending || !project) {
    return (
      <Card className="flex items-center gap-3 px-5 py-8 text-sm text-gray-600" data-testid={testId} data-state="loading">
        <Spinner label={null} className="text-brand-600" />
        <span role="status">Loading…</span>
      </Card>
    );
  }
  return <>{children(project)}</>;
}
