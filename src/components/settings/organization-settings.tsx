"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { isAdmin, levelName } from "@/components/account/levels";
import { Badge, Button, Card, CardBody, CardHeader, ConfirmDialog, CopyField, EmptyState, ErrorState, FormAlert, LocalTime, SelectField, Spinner, TextField } from "@/components/ui";
import { createInviteInput } from "@/server/accounts/contract";
import { errorMessage, formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { ProjectGate } from "./project-gate";

export function OrganizationSettings() {
  return (
    <ProjectGate testId="organization-settings">
      {(project) => (
        <div className="flex flex-col gap-6" data-testid="organization-settings" data-state="ready">
          <MembersCard projectId={project.id} organizationName={project.organization.name} />
          {isAdmin(project.membershipLevel) ? (
            <>
              <InviteCard projectId={project.id} canInviteAdmins={isAdmin(project.membershipLevel)} />
              <OpenInvitesCard projectId={project.id} />
            </>
          ) : (
            <p className="text-sm text-gray-600" data-testid="invite-admins-only">
              Only admins and owners of {project.organization.name} can invite people.
            </p>
          )}
          <EmailCard />
        </div>
      )}
    </ProjectGate>
  );
}

function Loading({ label }: { label: string }) {
  return (
    <div className="flex items-center gap-3 px-4 py-6 text-sm text-gray-600 sm:px-5">
      <Spinner label={null} className="text-brand-600" />
      <span role="status">{label}</span>
    </div>
  );
}

const levelTone = { owner: "brand", admin: "warning", member: "neutral" } as const;

function MembersCard({ projectId, organizationName }: { projectId: number; organizationName: string }) {
  const trpc = useTRPC();
  const members = useQuery(trpc.organization.members.queryOptions({ projectId }));
  return (
    <Card aria-labelledby="members-title" data-testid="members" data-state={members.isPending ? "loading" : members.isError ? "error" : "ready"}>
      <CardHeader titleId="members-title" title="Members" description={`Everyone in ${organizationName}. Members see all of its projects.`} />
      {members.isPending ? (
        <Loading label="Loading members…" />
      ) : members.isError ? (
        <CardBody>
          <ErrorState title="Could not load the members" message={errorMessage(members.error)} onRetry={() => void members.refetch()} retrying={members.isFetching} />
        </CardBody>
      ) : members.data.length === 0 ? (
        <EmptyState title="No members" />
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-gray-200 bg-gray-50 text-xs font-medium tracking-wide text-gray-500 uppercase">
              <tr>
                <th scope="col" className="px-4 py-2.5 font-medium sm:px-5">
                  Member
                </th>
                <th scope="col" className="px-4 py-2.5 font-medium">
                  Level
                </th>
                <th scope="col" className="hidden px-4 py-2.5 font-medium sm:table-cell sm:px-5">
                  Joined
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-gray-200">
              {members.data.map((member) => {
                const name = [member.user.firstName, member.user.lastName].filter(Boolean).join(" ");
                const level = levelName(member.level);
                return (
                  <tr key={member.id} data-testid="member-row">
                    <td className="max-w-0 px-4 py-3 sm:px-5">
                      <p className="truncate font-medium text-gray-900">{name || member.user.email}</p>
                      {name && <p className="truncate text-gray-600">{member.user.email}</p>}
                      <p className="text-gray-500 sm:hidden">Joined <LocalTime value={member.joinedAt} format="date" /></p>
                    </td>
                    <td className="px-4 py-3 align-top sm:align-middle">
                      <Badge tone={levelTone[level]}>{level}</Badge>
                    </td>
                    <td className="hidden px-4 py-3 whitespace-nowrap text-gray-600 sm:table-cell sm:px-5"><LocalTime value={member.joinedAt} format="date" /></td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

const INVITE_FIELDS = ["email", "level"] as const;
type InviteField = (typeof INVITE_FIELDS)[number];

function InviteCard({ projectId, canInviteAdmins }: { projectId: number; canInviteAdmins: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FormErrors<InviteField>>(NO_ERRORS);
  const [created, setCreated] = useState<{ email: string; url: string; emailed: boolean } | null>(null);
  const invite = useMutation(trpc.organization.invite.mutationOptions());
  const email = useQuery(trpc.account.emailStatus.queryOptions());

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const values = { email: String(form.get("email") ?? ""), level: String(form.get("level") ?? "member") as "member" | "admin" };
    const invalid = validate(createInviteInput, values, INVITE_FIELDS);
    if (invalid) return setErrors(invalid);
    setErrors(NO_ERRORS);
    try {
      const result = await invite.mutateAsync({ projectId, ...values });
      setCreated({ email: result.email, url: result.url, emailed: result.emailed });
      formElement.reset();
      await queryClient.invalidateQueries({ queryKey: trpc.organization.invites.queryKey() });
    } catch (error) {
      setErrors(formErrorsFrom(error, INVITE_FIELDS));
    }
  }

  return (
    <Card aria-labelledby="invite-title" data-testid="invite-card">
      <CardHeader
        titleId="invite-title"
        title="Invite a teammate"
        description={
          email.data?.configured
            ? "Burrow e-mails them the invite link; you can share it yourself too."
            : "This server sends no e-mail (SMTP_URL is not set): share the invite link with them yourself."
        }
      />
      <CardBody className="flex flex-col gap-5">
        <form noValidate onSubmit={(event) => void submit(event)} className="flex flex-col gap-4" data-testid="invite-form">
          {errors.form && <FormAlert testId="invite-form-error">{errors.form}</FormAlert>}
          <div className="grid items-start gap-4 sm:grid-cols-[1fr_10rem_auto]">
            <TextField label="E-mail" name="email" type="email" autoComplete="off" required error={errors.fields.email} testId="invite-email-input" />
            <SelectField label="Level" name="level" defaultValue="member" error={errors.fields.level} testId="invite-level">
              <option value="member">Member</option>
              {canInviteAdmins && <option value="admin">Admin</option>}
            </SelectField>
            <Button type="submit" loading={invite.isPending} className="sm:mt-[1.625rem]" data-testid="invite-submit">
              Create invite
            </Button>
          </div>
        </form>
        {created && (
          <div className="flex flex-col gap-3 rounded-control bg-brand-50 p-4 ring-1 ring-brand-200 ring-inset" data-testid="invite-created">
            <p className="text-sm text-gray-900">
              Invite created for <strong className="font-semibold">{created.email}</strong>.{" "}
              {created.emailed ? "We e-mailed them this link" : "Send them this link"}; it works once and expires in 7 days. It
              won&apos;t be shown again.
            </p>
            <CopyField label="Invite link" value={created.url} testId="invite-link" />
            <div>
              <Button variant="ghost" size="sm" onClick={() => setCreated(null)}>
                Done
              </Button>
            </div>
          </div>
        )}
      </CardBody>
    </Card>
  );
}

/** Whether this server sends e-mail, and a test message to oneself to prove it. */
function EmailCard() {
  const trpc = useTRPC();
  const status = useQuery(trpc.account.emailStatus.queryOptions());
  const send = useMutation(trpc.account.sendTestEmail.mutationOptions());
  return (
    <Card aria-labelledby="email-title" data-testid="email-card">
      <CardHeader
        titleId="email-title"
        title="E-mail"
        description="Alerts, subscriptions, invites and password resets are sent through the SMTP server set by SMTP_URL and EMAIL_FROM."
      />
      <CardBody className="flex flex-col gap-3">
        {status.isPending ? (
          <Loading label="Checking e-mail…" />
        ) : status.isError ? (
          <ErrorState title="Could not check e-mail" message={errorMessage(status.error)} onRetry={() => void status.refetch()} retrying={status.isFetching} />
        ) : status.data.configured ? (
          <>
            <div className="flex flex-wrap items-center gap-3">
              <Badge tone="success">Set up</Badge>
              <Button variant="secondary" size="sm" loading={send.isPending} onClick={() => send.mutate()} data-testid="email-test-send">
                Send a test e-mail to me
              </Button>
            </div>
            {send.isSuccess && (
              <p role="status" className="text-sm text-gray-700" data-testid="email-test-sent">
                Sent to {send.data.to}. Check your inbox.
              </p>
            )}
            {send.isError && <FormAlert testId="email-test-error">{errorMessage(send.error)}</FormAlert>}
          </>
        ) : (
          <p className="text-sm text-gray-600" data-testid="email-not-configured">
            <Badge tone="neutral">Off</Badge> Set <code>SMTP_URL</code> and <code>EMAIL_FROM</code> and restart Burrow to send e-mail.
          </p>
        )}
      </CardBody>
    </Card>
  );
}

function OpenInvitesCard({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invites = useQuery(trpc.organization.invites.queryOptions({ projectId }));
  const [revoking, setRevoking] = useState<{ id: string; email: string } | null>(null);
  const revoke = useMutation(
    trpc.organization.revokeInvite.mutationOptions({
      onSuccess: async () => {
        setRevoking(null);
        await queryClient.invalidateQueries({ queryKey: trpc.organization.invites.queryKey() });
      },
    }),
  );

  return (
    <Card aria-labelledby="open-invites-title" data-testid="open-invites" data-state={invites.isPending ? "loading" : invites.isError ? "error" : "ready"}>
      <CardHeader titleId="open-invites-title" title="Open invites" description="Invites not yet accepted. Revoke one to make its link stop working." />
      {invites.isPending ? (
        <Loading label="Loading invites…" />
      ) : invites.isError ? (
        <CardBody>
          <ErrorState title="Could not load the invites" message={errorMessage(invites.error)} onRetry={() => void invites.refetch()} retrying={invites.isFetching} />
        </CardBody>
      ) : invites.data.length === 0 ? (
        <EmptyState title="No open invites" description="Invites you create appear here until they are accepted or expire." />
      ) : (
        <ul className="divide-y divide-gray-200">
          {invites.data.map((invite) => (
            <li key={invite.id} className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-5" data-testid="invite-row">
              <div className="min-w-0 flex-1">
                <p className="truncate text-sm font-medium text-gray-900">{invite.targetEmail}</p>
                <p className="text-sm text-gray-600">
                  Sent <LocalTime value={invite.createdAt} format="date" /> · expires <LocalTime value={invite.expiresAt} format="date" />
                </p>
              </div>
              <Badge tone={levelTone[levelName(invite.level)]}>{levelName(invite.level)}</Badge>
              <Button
                variant="secondary"
                size="sm"
                onClick={() => {
                  revoke.reset();
                  setRevoking({ id: invite.id, email: invite.targetEmail });
                }}
                aria-label={`Revoke the invite for ${invite.targetEmail}`}
                data-testid="invite-revoke"
              >
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={revoking !== null}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate({ projectId, inviteId: revoking.id })}
        title="Revoke this invite?"
        description={revoking ? `The link sent to ${revoking.email} will stop working.` : undefined}
        confirmLabel="Revoke invite"
        pending={revoke.isPending}
        error={revoke.isError ? errorMessage(revoke.error) : null}
        testId="revoke-dialog"
      />
    </Card>
  );
}
