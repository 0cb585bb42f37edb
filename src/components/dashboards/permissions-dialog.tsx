"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { isAdmin } from "@/components/account/levels";
import { useCurrentProject } from "@/components/account/use-current-project";
import { Button, cn, Dialog, FormAlert, inputClasses, Spinner } from "@/components/ui";
import { PrivilegeLevel, RestrictionLevel } from "@/server/access/contract";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { collaboratorsOnlyHint, dashboardRole, restrictionNotice } from "./permission-words";
import type { DashboardData } from "./types";

const LEVELS = [
  { value: RestrictionLevel.everyoneInProjectCanEdit, label: "Everyone in the project can edit", hint: "Any member can change, share or delete it." },
  {
    value: RestrictionLevel.onlyCollaboratorsCanEdit,
    label: "Only collaborators can edit",
    hint: null, // told to the reader: collaboratorsOnlyHint
  },
] as const;

const displayName = (user: { first_name: string; last_name: string; email: string }) => [user.first_name, user.last_name].join(" ").trim() || user.email;

/**
 * Who may edit a dashboard: its restriction level (the owner and project admins change it)
 * and, when restricted, its collaborators, picked from the organization's members.
 */
export function PermissionsDialog({
  projectId,
  dashboard,
  canRestrict,
  open,
  onClose,
}: {
  projectId: number;
  dashboard: DashboardData;
  canRestrict: boolean;
  open: boolean;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const groupId = useId();
  const canEdit = dashboard.user_access_level === "editor";
  const { me, project } = useCurrentProject();
  const role = dashboardRole({ isCreator: dashboard.created_by?.id === me.data?.id, isAdmin: isAdmin(project.data?.membershipLevel), canEdit });
  // The choice shows at once (set in the click handler, so the radio never flips back), and
  // the saved dashboard replaces it when the server answers.
  const [chosen, setChosen] = useState<number | null>(null);
  const setLevel = useMutation(
    trpc.dashboards.update.mutationOptions({
      onSuccess: (saved) => queryClient.setQueryData(trpc.dashboards.get.queryKey({ projectId, dashboardId: dashboard.id }), saved),
      onSettled: () => {
        setChosen(null);
        void queryClient.invalidateQueries({ queryKey: trpc.dashboards.list.pathKey() });
      },
    }),
  );
  const level = chosen ?? dashboard.restriction_level;

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Dashboard permissions"
      description="Everyone in the project can always view this dashboard."
      testId="permissions-dialog"
      className="max-w-lg"
      footer={
        <Button variant="secondary" onClick={onClose} data-testid="permissions-done">
          Done
        </Button>
      }
    >
      <div className="flex flex-col gap-5">
        <fieldset aria-describedby={canRestrict ? undefined : `${groupId}-hint`} disabled={!canRestrict || setLevel.isPending}>
          <legend className="text-sm font-medium text-gray-800">Who can edit</legend>
          <div className="mt-2 flex flex-col gap-2">
            {LEVELS.map((option) => (
              <label
                key={option.value}
                className={cn(
                  "flex cursor-pointer gap-3 rounded-control border p-3 text-sm has-[:checked]:border-brand-600 has-[:checked]:bg-brand-50/40 has-[:disabled]:cursor-not-allowed",
                  "border-gray-200",
                )}
              >
                <input
                  type="radio"
                  name={groupId}
                  className="mt-0.5 size-4 accent-brand-600"
                  checked={level === option.value}
                  onChange={() => {
                    setChosen(option.value);
                    setLevel.mutate({ projectId, dashboardId: dashboard.id, restriction_level: option.value });
                  }}
                  data-testid={`restriction-${option.value}`}
                />
                <span>
                  <span className="block font-medium text-gray-900">{option.label}</span>
                  <span className="block text-gray-600" data-testid={`restriction-${option.value}-hint`}>
                    {option.hint ?? collaboratorsOnlyHint(role)}
                  </span>
                </span>
              </label>
            ))}
          </div>
          {!canRestrict && (
            <p id={`${groupId}-hint`} className="mt-2 text-sm text-gray-500" data-testid="permissions-notice">
              {restrictionNotice(role)}
            </p>
          )}
          {setLevel.isError && <FormAlert className="mt-2">{errorMessage(setLevel.error)}</FormAlert>}
        </fieldset>

        {level >= RestrictionLevel.onlyCollaboratorsCanEdit && <Collaborators projectId={projectId} dashboard={dashboard} canEdit={canEdit} />}
      </div>
    </Dialog>
  );
}

function Collaborators({ projectId, dashboard, canEdit }: { projectId: number; dashboard: DashboardData; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pickerId = useId();
  const [picked, setPicked] = useState("");
  const collaborators = useQuery(trpc.dashboards.collaborators.list.queryOptions({ projectId, dashboardId: dashboard.id }));
  const members = useQuery(trpc.organization.members.queryOptions({ projectId }));
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.dashboards.pathKey() });
  const add = useMutation(trpc.dashboards.collaborators.add.mutationOptions({ onSuccess: () => setPicked(""), onSettled: invalidate }));
  const remove = useMutation(trpc.dashboards.collaborators.remove.mutationOptions({ onSettled: invalidate }));

  const taken = new Set((collaborators.data ?? []).map((c) => c.user.uuid));
  // The owner and admins edit anyway; PostHog refuses them as collaborators.
  const candidates = (members.data ?? []).filter((m) => !taken.has(m.user.uuid) && m.user.id !== dashboard.created_by?.id && !isAdmin(m.level));

  return (
    <section aria-labelledby={`${pickerId}-title`} className="flex flex-col gap-3" data-testid="collaborators">
      <h3 id={`${pickerId}-title`} className="text-sm font-medium text-gray-800">
        Collaborators
      </h3>
      <ul className="divide-y divide-gray-200 rounded-control border border-gray-200 text-sm" data-testid="collaborator-list">
        <li className="flex items-center justify-between gap-3 px-3 py-2">
          <span className="min-w-0 truncate">{dashboard.created_by ? displayName(dashboard.created_by) : "Former member"}</span>
          <span className="shrink-0 text-gray-500">Owner</span>
        </li>
        {collaborators.isPending ? (
          <li className="flex items-center gap-2 px-3 py-2 text-gray-600">
            <Spinner size="sm" label={null} /> <span role="status">Loading collaborators…</span>
          </li>
        ) : collaborators.isError ? (
          <li className="px-3 py-2 text-red-700" role="alert">
            {errorMessage(collaborators.error)}
          </li>
        ) : (
          collaborators.data.map((collaborator) => (
            <li key={collaborator.id} className="flex items-center justify-between gap-3 px-3 py-2" data-testid="collaborator-row" data-email={collaborator.user.email}>
              <span className="min-w-0">
                <span className="block truncate">{displayName(collaborator.user)}</span>
                {displayName(collaborator.user) !== collaborator.user.email && <span className="block truncate text-xs text-gray-500">{collaborator.user.email}</span>}
              </span>
              <span className="flex shrink-0 items-center gap-2">
                <span className="text-gray-500">{collaborator.level >= PrivilegeLevel.canEdit ? "Can edit" : "Can view"}</span>
                {canEdit && (
                  <Button
                    variant="ghost"
                    size="sm"
                    aria-label={`Remove ${displayName(collaborator.user)}`}
                    loading={remove.isPending && remove.variables.userUuid === collaborator.user.uuid}
                    onClick={() => remove.mutate({ projectId, dashboardId: dashboard.id, userUuid: collaborator.user.uuid })}
                    data-testid="collaborator-remove"
                  >
                    Remove
                  </Button>
                )}
              </span>
            </li>
          ))
        )}
      </ul>
      {canEdit && (
        <form
          className="flex flex-col gap-2 sm:flex-row sm:items-end"
          onSubmit={(event) => {
            event.preventDefault();
            if (picked) add.mutate({ projectId, dashboardId: dashboard.id, user_uuid: picked, level: PrivilegeLevel.canEdit });
          }}
        >
          <label htmlFor={pickerId} className="flex min-w-0 flex-1 flex-col gap-1.5 text-sm font-medium text-gray-800">
            Add a collaborator
            <select id={pickerId} className={inputClasses({ className: "pr-8" })} value={picked} onChange={(event) => setPicked(event.target.value)} data-testid="collaborator-picker">
              <option value="">{members.isPending ? "Loading members…" : candidates.length === 0 ? "No one else to add" : "Choose a member…"}</option>
              {candidates.map((member) => (
                <option key={member.user.uuid} value={member.user.uuid}>
                  {displayName({ first_name: member.user.firstName, last_name: member.user.lastName, email: member.user.email })}
                  {member.user.firstName || member.user.lastName ? ` (${member.user.email})` : ""}
                </option>
              ))}
            </select>
          </label>
          <Button type="submit" disabled={!picked} loading={add.isPending} data-testid="collaborator-add">
            Add
          </Button>
        </form>
      )}
      {(add.isError || remove.isError || members.isError) && <FormAlert>{errorMessage(add.error ?? remove.error ?? members.error)}</FormAlert>}
      <p className="text-sm text-gray-500">Project admins can always edit.</p>
    </section>
  );
}
