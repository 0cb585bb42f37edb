"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { isAdmin } from "@/components/account/levels";
import { Card, CardBody, CardHeader, FormAlert, Switch } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

interface DataCollectionProject {
  id: number;
  anonymizeIps: boolean;
  enrichEvents: boolean;
  membershipLevel: number;
}

/** What ingestion adds to and keeps of each event: GeoIP and user-agent properties, and the sender's IP. Admins change it. */
export function DataCollectionSettings({ project }: { project: DataCollectionProject }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const update = useMutation(
    trpc.account.updateProject.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.account.project.queryKey() }),
    }),
  );
  const editable = isAdmin(project.membershipLevel) && !update.isPending;
  const rows = [
    {
      field: "enrich_events",
      title: "Enrich events",
      description: "Add the country, region and city of the sender's IP, and browser, OS and device type from its user agent, as each event arrives. Properties the SDK sent win.",
      checked: project.enrichEvents,
    },
    {
      field: "anonymize_ips",
      title: "Anonymise IP addresses",
      description: "Drop $ip from every event before it is stored. No GeoIP properties are added then.",
      checked: project.anonymizeIps,
    },
  ] as const;
  return (
    <Card aria-labelledby="data-collection-title" data-testid="data-collection">
      <CardHeader
        titleId="data-collection-title"
        title="Data collection"
        description={isAdmin(project.membershipLevel) ? "Applies to events received from now on." : "Only organization admins can change these."}
      />
      <CardBody className="flex flex-col gap-4">
        {update.error && <FormAlert testId="data-collection-error">{errorMessage(update.error)}</FormAlert>}
        {rows.map((row) => (
          <div key={row.field} className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between sm:gap-6">
            <div className="min-w-0">
              <p className="text-sm font-medium text-gray-900">{row.title}</p>
              <p className="text-sm text-gray-600">{row.description}</p>
            </div>
            <Switch
              label={row.title}
              checked={row.checked}
              text={["On", "Off"]}
              disabled={!editable}
              onChange={(checked) => update.mutate({ projectId: project.id, [row.field]: checked })}
              testId={`setting-${row.field}`}
            />
          </div>
        ))}
      </CardBody>
    </Card>
  );
}
