import { connection } from "next/server";
import { SiteShell } from "@/components/site-shell";
import { SystemStatusCard } from "@/components/system/system-status-card";
import { PageHeader } from "@/components/ui";

export default async function HomePage() {
  // Rendered per request, never prerendered: `next build` must not open the database.
  await connection();

  return (
    <SiteShell>
      <div className="flex flex-col gap-8">
        <PageHeader
          title="Burrow"
          description="Self-hosted, PostHog-compatible product analytics: capture events, evaluate feature flags and build dashboards on your own server."
        />
        <SystemStatusCard />
      </div>
    </SiteShell>
  );
}
