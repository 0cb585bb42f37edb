"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { isAdmin, levelName } from "@/components/account/levels";
import { useCurrentProject } from "@/components/account/use-current-project";
import {
  Badge,
  buttonClasses,
  Card,
  CardBody,
  CardHeader,
  CopyField,
  Detail,
  EmptyState,
  ErrorState,
  Spinner,
} from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { InstallStatus } from "./install-status";
import { RecentWork } from "./recent-work";

const QUICK_LINKS = [
  {
    href: "/settings/project#install",
    title: "Send your first events",
    description: "The project API key, PostHog's HTML snippet, posthog-js and posthog-node.",
  },
  {
    href: "/settings/organization",
    title: "Invite your team",
    description: "Members of your organization, and invite links for new ones.",
    /** What a member without invite rights sees instead (only admins and owners invite). */
    forMembers: { title: "Your team", description: "Who is in your organization. Admins and owners invite new people." },
  },
  {
    href: "/settings/personal-api-keys",
    title: "Personal API keys",
    description: "Keys for scripts and tools that call Burrow's management API.",
  },
] as const;

/** The signed-in home: the current project and where to go next. */
export function HomeOverview() {
  const { project } = useCurrentProject();
  // Until the level is known, offer no invite: a member must never see one they cannot use.
  const canInvite = isAdmin(project.data?.membershipLevel);
  return (
    <div className="flex flex-col gap-6">
      <InstallStatus />
      {project.data && <RecentWork projectId={project.data.id} />}
      <div className="grid gap-6 lg:grid-cols-5">
        <CurrentProjectCard />
        <Card aria-labelledby="quick-links-title" className="lg:col-span-2" data-testid="quick-links">
          <CardHeader titleId="quick-links-title" title="Quick links" />
          <ul className="divide-y divide-gray-200">
            {QUICK_LINKS.map((quick) => {
              const link = "forMembers" in quick && !canInvite ? { ...quick, ...quick.forMembers } : quick;
              return (
                <li key={link.href} data-testid={`quick-link-${link.title.toLowerCase().replace(/\W+/g, "-")}`}>
                  <Link
                    href={link.href}
                    className="group flex items-center gap-3 px-4 py-3.5 hover:bg-gray-50 focus-visible:-outline-offset-2 sm:px-5"
                  >
                    <span className="min-w-0 flex-1">
                      <span className="block text-sm font-medium text-gray-900 group-hover:text-brand-700">{link.title}</span>
                      <span className="mt-0.5 block text-sm text-gray-600">{link.description}</span>
                    </span>
                    <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-4 shrink-0 text-gray-400 group-hover:text-brand-600">
                      <path fillRule="evenodd" d="M7.2 14.8a.75.75 0 0 1 0-1.06L10.94 10 7.2 6.26a.75.75 0 1 1 1.06-1.06l4.27 4.27a.75.75 0 0 1 0 1.06L8.26 14.8a.75.75 0 0 1-1.06 0Z" clipRule="evenodd" />
                    </svg>
                  </Link>
                </li>
              );
            })}
          </ul>
        </Card>
      </div>
    </div>
  );
}

function CurrentProjectCard() {
  const current = useCurrentProject();
  const project = current.project.data;
  const state = current.error ? "error" : current.noProject ? "empty" : current.isPending ? "loading" : "ready";

  let body: ReactNode;
  if (state === "loading") {
    body = (
      <div className="flex items-center gap-3 py-4 text-sm text-gray-600">
        <Spinner label={null} className="text-brand-600" />
        <span role="status">Loading your project…</span>
      </div>
    );
  } else if (state === "error") {
    body = <ErrorState title="Could not load your project" message={errorMessage(current.error)} onRetry={current.refetch} />;
  } else if (state === "empty" || !project) {
    body = (
      <EmptyState
        title="No project yet"
        description="Your organization has no project. An admin can create one from the project menu at the top."
      />
    );
  } else {
    body = (
      <div className="flex flex-col gap-4">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
          <p className="text-xl font-semibold tracking-tight break-words text-gray-900" data-testid="home-project-name">
            {project.name}
          </p>
          <Badge tone="brand">{levelName(project.membershipLevel)}</Badge>
        </div>
        <dl className="grid gap-3 text-sm sm:grid-cols-3">
          <Detail label="Organization">
            <span data-testid="home-organization-name">{project.organization.name}</span>
          </Detail>
          <Detail label="Project ID">
            <span className="font-mono">{project.id}</span>
          </Detail>
          <Detail label="Time zone">{project.timezone}</Detail>
        </dl>
        <CopyField
          label="Project API key"
          value={project.apiToken}
          testId="home-project-api-key"
          hint={
            <>
              SDKs send events with it.{" "}
              <Link href="/settings/project" className="font-medium text-brand-700 hover:underline">
                See the snippets
              </Link>
            </>
          }
        />
      </div>
    );
  }

  return (
    <Card aria-labelledby="current-project-title" className="lg:col-span-3" data-testid="current-project" data-state={state}>
      <CardHeader
        titleId="current-project-title"
        title="Current project"
        description="Events, flags and dashboards belong to a project. Switch projects from the top bar."
        actions={
          state === "ready" ? (
            <Link href="/settings/project" className={buttonClasses({ variant: "secondary", size: "sm" })}>
              Project settings
            </Link>
          ) : null
        }
      />
      <CardBody>{body}</CardBody>
    </Card>
  );
}
