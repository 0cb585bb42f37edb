import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { ProjectSettings } from "@/components/settings/project-settings";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Project settings" };

/** The project itself comes with the layout; its replay settings (replay-settings.tsx) come with the page. */
export default async function ProjectSettingsPage() {
  return (
    <PageHydration state={await prefetchPage((trpc, projectId) => [trpc.recordings.settings.queryOptions({ projectId })])}>
      <ProjectSettings />
    </PageHydration>
  );
}
