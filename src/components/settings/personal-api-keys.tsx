"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import {
  Badge,
  Button,
  Card,
  CardBody,
  CardHeader,
  ConfirmDialog,
  CopyField,
  EmptyState,
  ErrorState,
  FormAlert,
  formatDate,
  formatDateTime,
  SelectField,
  Spinner,
  TextField,
} from "@/components/ui";
import { createPersonalApiKeyInput } from "@/server/accounts/contract";
import { SCOPE_OBJECTS, type Scope, type ScopeObject } from "@/server/auth/contract";
import { errorMessage, formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

/** "feature_flag" → "Feature flag". */
function objectLabel(object: ScopeObject): string {
  const words = object.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function PersonalApiKeys() {
  const [created, setCreated] = useState<{ key: string; label: string } | null>(null);
  return (
    <div className="flex flex-col gap-6" data-testid="personal-api-keys">
      {created ? <NewKeyNotice created={created} onDone={() => setCreated(null)} /> : <CreateKeyCard onCreated={setCreated} />}
      <KeyList />
    </div>
  );
}

const FIELDS = ["label", "scopes", "projectId"] as const;
type Field = (typeof FIELDS)[number];

function CreateKeyCard({ onCreated }: { onCreated: (created: { key: string; label: string }) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const projects = useQuery(trpc.account.projects.queryOptions());
  const [allAccess, setAllAccess] = useState(false);
  const [errors, setErrors] = useState<FormErrors<Field>>(NO_ERRORS);
  const create = useMutation(trpc.account.createPersonalApiKey.mutationOptions());

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const project = String(form.get("projectId") ?? "");
    const values = {
      label: String(form.get("label") ?? ""),
      scopes: (allAccess ? ["*"] : form.getAll("scopes").map(String)) as Scope[],
      projectId: project ? Number(project) : undefined,
    };
    const invalid = validate(createPersonalApiKeyInput, values, FIELDS);
    if (invalid) return setErrors(invalid);
    setErrors(NO_ERRORS);
    try {
      const result = await create.mutateAsync(values);
      await queryClient.invalidateQueries({ queryKey: trpc.account.personalApiKeys.queryKey() });
      onCreated({ key: result.key, label: values.label.trim() });
    } catch (error) {
      setErrors(formErrorsFrom(error, FIELDS));
    }
  }

  return (
    <Card aria-labelledby="create-key-title" data-testid="create-key-card">
      <CardHeader
        titleId="create-key-title"
        title="Create a personal API key"
        description={
          <>
            Scripts and tools use it to call Burrow&apos;s management API as you. Give it only the access it needs. Every endpoint and the scope it needs are in the{" "}
            <a href="/api/docs" className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-800" data-testid="api-reference-link">
              API reference
            </a>
            .
          </>
        }
      />
      <CardBody>
        <form noValidate onSubmit={(event) => void submit(event)} className="flex flex-col gap-5" data-testid="create-key-form">
          {errors.form && <FormAlert testId="create-key-error">{errors.form}</FormAlert>}
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField label="Label" name="label" maxLength={40} placeholder="e.g. Deploy script" hint="Helps you recognise the key later." error={errors.fields.label} testId="key-label" />
            <SelectField
              label="Limit to project"
              name="projectId"
              defaultValue=""
              hint="Unlimited keys work on every project you can open."
              error={errors.fields.projectId}
              testId="key-project"
              disabled={!projects.data}
            >
              <option value="">All projects</option>
              {projects.data?.map((group) => (
                <optgroup key={group.organization.id} label={group.organization.name}>
                  {group.projects.map((project) => (
                    <option key={project.id} value={project.id}>
                      {project.name}
                    </option>
                  ))}
                </optgroup>
              ))}
            </SelectField>
          </div>

          <fieldset
            className="min-w-0"
            aria-describedby={errors.fields.scopes ? "scopes-error" : "scopes-hint"}
            aria-invalid={errors.fields.scopes ? true : undefined}
          >
            <legend className="text-sm font-medium text-gray-800">Scopes</legend>
            <p id="scopes-hint" className="mt-1 text-sm text-gray-500">
              Write access includes read access.
            </p>
            <label className="mt-3 flex w-fit items-center gap-2.5 rounded-control border border-gray-200 bg-gray-25 px-3 py-2 text-sm font-medium text-gray-900">
              <input
                type="checkbox"
                checked={allAccess}
                onChange={(event) => setAllAccess(event.target.checked)}
                className="size-4 accent-brand-600"
                data-testid="scope-all"
              />
              All access
              <span className="font-normal text-gray-500">(every scope, now and later)</span>
            </label>
            <div className="mt-3 overflow-hidden rounded-control border border-gray-200">
              <table className={`w-full text-sm ${allAccess ? "opacity-50" : ""}`}>
                <thead className="bg-gray-50 text-xs font-medium tracking-wide text-gray-500 uppercase">
                  <tr>
                    <th scope="col" className="px-3 py-2 text-left font-medium">
                      Object
                    </th>
                    <th scope="col" className="w-20 px-3 py-2 text-center font-medium">
                      Read
                    </th>
                    <th scope="col" className="w-20 px-3 py-2 text-center font-medium">
                      Write
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-gray-200">
                  {SCOPE_OBJECTS.map((object) => (
                    <tr key={object}>
                      <th scope="row" className="px-3 py-2 text-left font-normal text-gray-800">
                        {objectLabel(object)}
                      </th>
                      {(["read", "write"] as const).map((access) => (
                        <td key={access} className="px-3 py-2 text-center">
                          <input
                            type="checkbox"
                            name="scopes"
                            value={`${object}:${access}`}
                            disabled={allAccess}
                            aria-label={`${objectLabel(object)}: ${access}`}
                            className="size-4 accent-brand-600 disabled:cursor-not-allowed"
                            data-testid={`scope-${object}-${access}`}
                          />
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {errors.fields.scopes && (
              <p id="scopes-error" className="mt-2 text-sm text-red-700" data-testid="key-scopes-error">
                {errors.fields.scopes}
              </p>
            )}
          </fieldset>

          <div>
            <Button type="submit" loading={create.isPending} data-testid="create-key-submit">
              Create key
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}

function NewKeyNotice({ created, onDone }: { created: { key: string; label: string }; onDone: () => void }) {
  return (
    <section
      aria-labelledby="new-key-title"
      className="flex flex-col gap-4 rounded-card border border-amber-300 bg-amber-50 px-4 py-4 shadow-card sm:px-5"
      data-testid="new-key"
    >
      <div className="flex gap-3">
        <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="mt-0.5 size-5 shrink-0 text-amber-600">
          <path
            fillRule="evenodd"
            d="M8.5 2.9a1.7 1.7 0 0 1 3 0l6.3 11.4a1.7 1.7 0 0 1-1.5 2.5H3.7a1.7 1.7 0 0 1-1.5-2.5L8.5 2.9ZM10 7a.75.75 0 0 1 .75.75v3.5a.75.75 0 0 1-1.5 0v-3.5A.75.75 0 0 1 10 7Zm0 7.5a1 1 0 1 0 0-2 1 1 0 0 0 0 2Z"
            clipRule="evenodd"
          />
        </svg>
        <div>
          <h2 id="new-key-title" className="text-sm font-semibold text-gray-900">
            {created.label ? `Your new key “${created.label}”` : "Your new key"}
          </h2>
          <p className="mt-1 text-sm text-amber-900" data-testid="new-key-warning">
            Copy it now and keep it somewhere safe: it won&apos;t be shown again. Anyone with the key can act as you.
          </p>
        </div>
      </div>
      <CopyField label="Personal API key" hideLabel value={created.key} testId="new-key-value" />
      <div>
        <Button variant="secondary" onClick={onDone} data-testid="new-key-done">
          Done
        </Button>
      </div>
    </section>
  );
}

function KeyList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.account.personalApiKeys.queryOptions());
  const projects = useQuery(trpc.account.projects.queryOptions());
  const [deleting, setDeleting] = useState<{ id: string; label: string } | null>(null);
  const remove = useMutation(
    trpc.account.deletePersonalApiKey.mutationOptions({
      onSuccess: async () => {
        setDeleting(null);
        await queryClient.invalidateQueries({ queryKey: trpc.account.personalApiKeys.queryKey() });
      },
    }),
  );

  const projectNames = new Map(projects.data?.flatMap((group) => group.projects.map((project) => [project.id, project.name] as const)));
  const state = keys.isPending ? "loading" : keys.isError ? "error" : keys.data.length === 0 ? "empty" : "ready";

  return (
    <Card aria-labelledby="keys-title" data-testid="key-list" data-state={state}>
      <CardHeader titleId="keys-title" title="Your keys" description="Keys are stored hashed; only their first and last characters are shown." />
      {keys.isPending ? (
        <div className="flex items-center gap-3 px-4 py-6 text-sm text-gray-600 sm:px-5">
          <Spinner label={null} className="text-brand-600" />
          <span role="status">Loading your keys…</span>
        </div>
      ) : keys.isError ? (
        <CardBody>
          <ErrorState title="Could not load your keys" message={errorMessage(keys.error)} onRetry={() => void keys.refetch()} retrying={keys.isFetching} />
        </CardBody>
      ) : keys.data.length === 0 ? (
        <EmptyState
          title="No personal API keys"
          description="Create one above to call the management API from scripts and tools."
          icon={
            <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6">
              <circle cx="7" cy="13" r="3.5" />
              <path d="M9.5 10.5 16 4m-2.5 2.5 2 2M12 8l1.5 1.5" strokeLinecap="round" />
            </svg>
          }
        />
      ) : (
        <ul className="divide-y divide-gray-200">
          {keys.data.map((key) => (
            <li key={key.id} className="flex flex-col gap-3 px-4 py-4 sm:flex-row sm:items-start sm:px-5" data-testid="key-row">
              <div className="flex min-w-0 flex-1 flex-col gap-2">
                <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
                  <p className="text-sm font-medium text-gray-900" data-testid="key-row-label">
                    {key.label || <span className="text-gray-500 italic">No label</span>}
                  </p>
                  <code className="font-mono text-xs text-gray-600" data-testid="key-row-mask">
                    {key.maskValue}
                  </code>
                </div>
                <div className="flex flex-wrap gap-1.5" aria-label="Scopes">
                  {key.scopes.map((scope) =>
                    scope === "*" ? (
                      <Badge key={scope} tone="warning">
                        All access
                      </Badge>
                    ) : (
                      <Badge key={scope} tone={scope.endsWith(":write") ? "brand" : "neutral"}>
                        {scope}
                      </Badge>
                    ),
                  )}
                </div>
                <dl className="flex flex-wrap gap-x-5 gap-y-1 text-sm text-gray-600">
                  <div className="flex gap-1">
                    <dt>Projects:</dt>
                    <dd className="text-gray-900" data-testid="key-row-projects">
                      {key.scopedProjects.length === 0
                        ? "All projects"
                        : key.scopedProjects.map((id) => projectNames.get(id) ?? `#${id}`).join(", ")}
                    </dd>
                  </div>
                  <div className="flex gap-1">
                    <dt>Created:</dt>
                    <dd className="text-gray-900">{formatDate(key.createdAt)}</dd>
                  </div>
                  <div className="flex gap-1">
                    <dt>Last used:</dt>
                    <dd className="text-gray-900" data-testid="key-row-last-used">
                      {key.lastUsedAt ? formatDateTime(key.lastUsedAt) : "never"}
                    </dd>
                  </div>
                </dl>
              </div>
              <Button
                variant="secondary"
                size="sm"
                className="self-start text-red-700"
                onClick={() => {
                  remove.reset();
                  setDeleting({ id: key.id, label: key.label || key.maskValue });
                }}
                aria-label={`Delete the key ${key.label || key.maskValue}`}
                data-testid="key-delete"
              >
                Delete
              </Button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={deleting !== null}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate({ id: deleting.id })}
        title="Delete this key?"
        description={deleting ? `Scripts and tools that use “${deleting.label}” will stop working at once. This can't be undone.` : undefined}
        confirmLabel="Delete key"
        pending={remove.isPending}
        error={remove.isError ? errorMessage(remove.error) : null}
        testId="delete-key-dialog"
      />
    </Card>
  );
}
