import { redirect } from "next/navigation";
import { getSessionUser } from "@/app/session";
import { HomeOverview } from "@/components/home/home-overview";
import { SystemStatusCard } from "@/components/system/system-status-card";
import { PageHeader } from "@/components/ui";

export default async function HomePage() {
  // The layout has checked the session already (cached per request); pages render beside
  // layouts, so each checks for itself.
  const user = await getSessionUser();
  if (!user) redirect("/login");

  return (
    <div className="flex flex-col gap-8" data-testid="home">
      <PageHeader
        title={<span data-testid="home-welcome">Welcome{user.firstName ? `, ${user.firstName}` : ""}</span>}
        description="Capture events, evaluate feature flags and build dashboards on your own server."
      />
      <HomeOverview />
      <SystemStatusCard />
    </div>
  );
}
