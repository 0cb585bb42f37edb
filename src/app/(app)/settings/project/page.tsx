import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { ProjectSettings } from "@/components/settings/project-settings";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Project settings" };

/** The project itself comes with the layout; its replay settings (replay-settings.tsx) come with the page. */
export default async function ProjectSettingsPage() {
  return (
    <HydrationBoundary state={await prefetchPage((trpc, projectId) => [trpc.recordings.settings.queryOptions({ projectId })])}>
      <ProjectSettings />
    </HydrationBoundary>
  );
}
