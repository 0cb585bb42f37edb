import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { OrganizationSettings } from "@/components/settings/organization-settings";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Organization settings" };

/** organization-settings.tsx's cards: members, open invites (admins only: a member's 403 is left to the browser) and email. */
export default async function OrganizationSettingsPage() {
  return (
    <PageHydration
      state={await prefetchPage((trpc, projectId) => [
        trpc.organization.members.queryOptions({ projectId }),
        trpc.organization.invites.queryOptions({ projectId }),
        trpc.account.emailStatus.queryOptions(),
      ])}
    >
      <OrganizationSettings />
    </PageHydration>
  );
}
