"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { isAdmin } from "@/components/account/levels";
import { cn, Popover, popoverItemClasses, Spinner } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { NewProjectDialog } from "./new-project-dialog";

const chevron = (
  <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-4 shrink-0 text-gray-400">
    <path
      fillRule="evenodd"
      d="M10 3a.75.75 0 0 1 .55.24l3.25 3.5a.75.75 0 1 1-1.1 1.02L10 4.85 7.3 7.76a.75.75 0 0 1-1.1-1.02l3.25-3.5A.75.75 0 0 1 10 3Zm-3.76 9.2a.75.75 0 0 1 1.06.04l2.7 2.91 2.7-2.9a.75.75 0 1 1 1.1 1.02l-3.25 3.5a.75.75 0 0 1-1.1 0l-3.25-3.5a.75.75 0 0 1 .04-1.06Z"
      clipRule="evenodd"
    />
  </svg>
);

/** Shows the current project; opens a list of the user's projects to switch to, and "New project" for admins. */
export function ProjectSwitcher({ className }: { className?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.account.me.queryOptions());
  const projects = useQuery(trpc.account.projects.queryOptions());
  const [creatingIn, setCreatingIn] = useState<{ id: string; name: string } | null>(null);

  const switchProject = useMutation(
    trpc.account.switchProject.mutationOptions({
      onSuccess: async () => {
        // Everything on screen belongs to the old project.
        await queryClient.invalidateQueries();
        router.refresh();
      },
    }),
  );

  const currentId = me.data?.current_project_id ?? null;
  const current = projects.data?.flatMap((group) => group.projects).find((project) => project.id === currentId);
  const label = current?.name ?? (projects.isPending || me.isPending ? "Loading…" : "No project");

  return (
    <>
      <Popover
        className={className}
        buttonTestId="project-switcher"
        panelTestId="project-switcher-menu"
        buttonClassName="flex h-9 w-full max-w-[15rem] min-w-0 items-center gap-2 rounded-control px-2 text-sm text-gray-900 hover:bg-gray-100 sm:px-2.5"
        button={
          <>
            <span className="sr-only">Current project: </span>
            <span className="truncate font-medium" data-testid="current-project-name">
              {label}
            </span>
            {switchProject.isPending ? <Spinner size="sm" label={null} className="text-gray-400" /> : chevron}
          </>
        }
        panelClassName="w-72 max-w-[calc(100vw-1.5rem)]"
      >
        {(close) =>
          projects.isError ? (
            <p className="px-3.5 py-2 text-sm text-red-700">Could not load your projects: {errorMessage(projects.error)}</p>
          ) : !projects.data ? (
            <p className="flex items-center gap-2 px-3.5 py-2 text-sm text-gray-600">
              <Spinner size="sm" label={null} /> Loading projects…
            </p>
          ) : (
            <>
              {switchProject.isError && (
                <p className="px-3.5 py-2 text-sm text-red-700">Could not switch: {errorMessage(switchProject.error)}</p>
              )}
              {projects.data.map((group, index) => (
                <div key={group.organization.id} className={cn(index > 0 && "mt-1 border-t border-gray-200 pt-1")}>
                  <p className="truncate px-3.5 pt-2 pb-1 text-xs font-medium tracking-wide text-gray-500 uppercase">
                    {group.organization.name}
                  </p>
                  <ul aria-label={`Projects of ${group.organization.name}`}>
                    {group.projects.map((project) => {
                      const isCurrent = project.id === currentId;
                      return (
                        <li key={project.id}>
                          <button
                            type="button"
                            className={cn(popoverItemClasses, isCurrent && "font-medium")}
                            aria-current={isCurrent ? "true" : undefined}
                            data-testid="project-option"
                            onClick={() => {
                              close();
                              if (!isCurrent) switchProject.mutate({ projectId: project.id });
                            }}
                          >
                            <span aria-hidden="true" className="flex size-4 shrink-0 items-center justify-center text-brand-600">
                              {isCurrent && (
                                <svg viewBox="0 0 20 20" fill="currentColor" className="size-4">
                                  <path fillRule="evenodd" d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.6l7.3-7.3a1 1 0 0 1 1.4 0Z" clipRule="evenodd" />
                                </svg>
                              )}
                            </span>
                            <span className="truncate">{project.name}</span>
                          </button>
                        </li>
                      );
                    })}
                  </ul>
                  {isAdmin(group.level) && (
                    <button
                      type="button"
                      className={cn(popoverItemClasses, "text-brand-700")}
                      data-testid="new-project"
                      onClick={() => {
                        close();
                        setCreatingIn(group.organization);
                      }}
                    >
                      <span aria-hidden="true" className="flex size-4 shrink-0 items-center justify-center text-base leading-none">
                        +
                      </span>
                      New project
                      {projects.data.length > 1 && <span className="sr-only"> in {group.organization.name}</span>}
                    </button>
                  )}
                </div>
              ))}
            </>
          )
        }
      </Popover>
      <NewProjectDialog organization={creatingIn} onClose={() => setCreatingIn(null)} />
    </>
  );
}
