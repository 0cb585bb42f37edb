"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";

/**
 * The signed-in user's current project: `account.me` names it, `account.project` describes
 * it (key, organization, the user's level). Switching projects invalidates both.
 */
export function useCurrentProject() {
  const trpc = useTRPC();
  const me = useQuery(trpc.account.me.queryOptions());
  const projectId = me.data?.current_project_id ?? null;
  const project = useQuery(trpc.account.project.queryOptions(projectId === null ? skipToken : { projectId }));
  const noProject = me.isSuccess && projectId === null;
  return {
    me,
    project,
    projectId,
    /** The user belongs to no project (an organization without any). */
    noProject,
    isPending: me.isPending || (projectId !== null && project.isPending),
    error: me.error ?? project.error,
    refetch: () => {
      void me.refetch();
      if (projectId !== null) void project.refetch();
    },
  };
}
