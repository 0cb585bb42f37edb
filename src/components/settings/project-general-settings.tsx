"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useMemo, useState } from "react";
import { isAdmin } from "@/components/account/levels";
import { Button, Card, CardBody, CardHeader, Detail, FormAlert, SelectField, TextField, useHydrated } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

interface GeneralProject {
  id: number;
  name: string;
  timezone: string;
  membershipLevel: number;
  organization: { name: string };
}

/**
 * Every IANA zone the browser knows, UTC first; until hydrated, UTC and the project's own (the
 * server's list may not be the browser's, and hydration must see the server's options).
 */
function zoneList(current: string, hydrated: boolean): string[] {
  const all = hydrated && typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return ["UTC", ...new Set([...all, current].filter((zone) => zone !== "UTC"))];
}

/** "14:05 (UTC+01:00)" now in `zone`. */
function nowIn(zone: string): string {
  try {
    const parts = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", timeZoneName: "longOffset" }).formatToParts(new Date());
    const get = (type: string) => parts.find((part) => part.type === type)?.value ?? "";
    return `${get("hour")}:${get("minute")} (${get("timeZoneName").replace("GMT", "UTC") || "UTC"})`;
  } catch {
    return "";
  }
}

/** The project's name and time zone: admins change them. */
export function ProjectGeneralSettings({ project }: { project: GeneralProject }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formId = useId();
  const [name, setName] = useState(project.name);
  const [timezone, setTimezone] = useState(project.timezone);
  // The zones and the time now are the browser's (the server's minute may have passed by hydration).
  const hydrated = useHydrated();
  const zones = useMemo(() => zoneList(project.timezone, hydrated), [project.timezone, hydrated]);
  const editable = isAdmin(project.membershipLevel);
  const update = useMutation(
    trpc.account.updateProject.mutationOptions({
      onSuccess: async () => {
        // Every chart answers in the new zone: results computed in the old one are stale.
        await Promise.all([queryClient.invalidateQueries({ queryKey: trpc.account.pathKey() }), queryClient.invalidateQueries()]);
      },
    }),
  );
  const changed = name.trim() !== project.name || timezone !== project.timezone;

  return (
    <Card aria-labelledby="project-title" data-testid="project-general">
      <CardHeader
        titleId="project-title"
        title="Project"
        description={editable ? "The project you are working in. Switch projects from the top bar." : "Only organization admins can rename the project or change its time zone."}
      />
      <CardBody className="flex flex-col gap-4">
        <form
          id={formId}
          className="grid gap-4 sm:grid-cols-2"
          onSubmit={(event) => {
            event.preventDefault();
            update.mutate({ projectId: project.id, ...(name.trim() !== project.name ? { name: name.trim() } : {}), ...(timezone !== project.timezone ? { timezone } : {}) });
          }}
        >
          {update.error && (
            <FormAlert testId="project-general-error" className="sm:col-span-2">
              {errorMessage(update.error)}
            </FormAlert>
          )}
          <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} maxLength={200} required disabled={!editable} testId="project-name-input" />
          <SelectField
            label="Time zone"
            value={timezone}
            onChange={(event) => setTimezone(event.target.value)}
            disabled={!editable}
            hint={`Days, weeks and months of every chart, /web and dashboards start at midnight here.${hydrated ? ` Now: ${nowIn(timezone)}.` : ""}`}
            testId="project-timezone"
          >
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone.replaceAll("_", " ")}
              </option>
            ))}
          </SelectField>
          {editable && (
            <div className="flex items-center gap-3 sm:col-span-2">
              <Button type="submit" disabled={!changed || !name.trim()} loading={update.isPending} data-testid="project-general-save">
                Save
              </Button>
              <span role="status" className="text-sm text-gray-600" data-testid="project-general-status">
                {update.isSuccess && !changed ? "Saved." : ""}
              </span>
            </div>
          )}
        </form>
        <dl className="grid gap-4 text-sm sm:grid-cols-3">
          <Detail label="Current name">
            <span data-testid="project-name">{project.name}</span>
          </Detail>
          <Detail label="Project ID">
            <span className="font-mono" data-testid="project-id">
              {project.id}
            </span>
          </Detail>
          <Detail label="Organization">{project.organization.name}</Detail>
        </dl>
      </CardBody>
    </Card>
  );
}
