"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { Button, Dialog, FormAlert, TextField } from "@/components/ui";
import { createProjectInput } from "@/server/accounts/contract";
import { formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

const FIELDS = ["name"] as const;

/** An admin adds a project to their organization; it becomes their current project. */
export function NewProjectDialog({ organization, onClose }: { organization: { id: string; name: string } | null; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const formId = useId();
  const [errors, setErrors] = useState<FormErrors<"name">>(NO_ERRORS);
  const create = useMutation(trpc.account.createProject.mutationOptions());

  function close() {
    setErrors(NO_ERRORS);
    create.reset();
    onClose();
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!organization) return;
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    const invalid = validate(createProjectInput, { name }, FIELDS);
    if (invalid) return setErrors(invalid);
    try {
      await create.mutateAsync({ name, organizationId: organization.id });
    } catch (error) {
      return setErrors(formErrorsFrom(error, FIELDS));
    }
    await queryClient.invalidateQueries();
    router.refresh();
    close();
  }

  return (
    <Dialog
      open={organization !== null}
      onClose={close}
      title="New project"
      description={organization ? `A project of ${organization.name}, with its own API key and data.` : undefined}
      testId="new-project-dialog"
      footer={
        <>
          <Button variant="secondary" onClick={close} disabled={create.isPending}>
            Cancel
          </Button>
          <Button type="submit" form={formId} loading={create.isPending} data-testid="new-project-submit">
            Create project
          </Button>
        </>
      }
    >
      <form id={formId} noValidate onSubmit={(event) => void submit(event)} className="flex flex-col gap-4">
        {errors.form && <FormAlert>{errors.form}</FormAlert>}
        <TextField label="Project name" name="name" required autoFocus error={errors.fields.name} testId="new-project-name" />
      </form>
    </Dialog>
  );
}
