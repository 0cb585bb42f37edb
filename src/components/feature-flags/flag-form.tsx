"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Card, cn, FormAlert, inputClasses, RemoveButton, TextField } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { TRPCClientError } from "@trpc/client";
import type { FlagResource } from "@/server/flags/present";
import { createFlagInput } from "@/server/flags/contract";
import { newCondition, newVariant, payloadKeys, toFlagInput, type ConditionDraft, type FieldIssue, type FlagDraft } from "./flag-draft";
import { FlagReachSummary, useFlagReach } from "./flag-reach";
import { Checkbox, ConditionEditor, PercentInput } from "./flag-condition-editor";

/** The first thing wrong, from the contract checked here or from the server (`attr` of an AppError). */
function issueOf(error: unknown): FieldIssue {
  if (error instanceof TRPCClientError) {
    const attr = (error.data as { attr?: string | null } | undefined)?.attr ?? null;
    return { attr, message: error.data ? error.message : "Could not reach Burrow. Check your connection and try again." };
  }
  return { attr: null, message: error instanceof Error ? error.message : "Something went wrong. Try again." };
}

const sectionTitle = "text-base font-semibold text-gray-900";

/** A cohort row left without a cohort, reported on its picker. */
function unchosenCohort(draft: FlagDraft): FieldIssue | null {
  for (const [c, condition] of draft.conditions.entries()) {
    for (const [p, property] of condition.properties.entries()) {
      if (property.type === "cohort" && property.value === "") return { attr: `filters__groups__${c}__properties__${p}__value`, message: "Choose a cohort." };
    }
  }
  return null;
}

/**
 * Create or edit a flag: key and description, variants, the release conditions (condition
 * sets of person-property filters and a rollout percentage), payloads. Checked with the
 * API's own schema before sending; the first problem is shown by its field and in an alert.
 */
export function FlagForm({
  projectId,
  initial,
  flag,
  onSaved,
}: {
  projectId: number;
  initial: FlagDraft;
  /** The saved flag when editing. */
  flag?: FlagResource;
  onSaved: (flag: FlagResource) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<FlagDraft>(initial);
  const [issue, setIssue] = useState<FieldIssue | null>(null);
  const create = useMutation(trpc.flags.create.mutationOptions());
  const update = useMutation(trpc.flags.update.mutationOptions());
  const pending = create.isPending || update.isPending;

  const invalid = (attr: string) => issue?.attr === attr;
  const set = (patch: Partial<FlagDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const setCondition = (id: number, patch: Partial<ConditionDraft>) =>
    setDraft((current) => ({ ...current, conditions: current.conditions.map((condition) => (condition.id === id ? { ...condition, ...patch } : condition)) }));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const unchosen = unchosenCohort(draft);
    if (unchosen) {
      setIssue(unchosen);
      return;
    }
    const input = toFlagInput(draft);
    const checked = createFlagInput.safeParse(input);
    if (!checked.success) {
      const first = checked.error.issues[0]!;
      setIssue({ attr: first.path.map(String).join("__") || null, message: first.message });
      return;
    }
    setIssue(null);
    try {
      // Editing, the page's switch owns `active`: the form leaves it as it is now.
      const { active: _active, ...patch } = input;
      const saved = flag ? await update.mutateAsync({ projectId, id: flag.id, patch }) : await create.mutateAsync({ projectId, flag: input });
      await queryClient.invalidateQueries({ queryKey: trpc.flags.pathKey() });
      onSaved(saved);
    } catch (error) {
      setIssue(issueOf(error));
    }
  }

  const reach = useFlagReach(projectId, draft);
  const variantSum = draft.variants.reduce((sum, variant) => sum + (Number(variant.rollout) || 0), 0);

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label={flag ? `Edit flag ${flag.key}` : "New feature flag"} data-testid="flag-form" noValidate>
      <Card className="flex flex-col gap-4 p-4 sm:p-5">
        <h2 className={sectionTitle}>Flag</h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Key"
            hint="Letters, numbers, hyphens and underscores. SDKs ask for the flag by this key."
            value={draft.key}
            onChange={(event) => set({ key: event.target.value })}
            error={invalid("key") ? issue!.message : null}
            autoComplete="off"
            spellCheck={false}
            testId="flag-key"
            inputClassName="font-mono"
          />
          <TextField label="Description" value={draft.name} onChange={(event) => set({ name: event.target.value })} testId="flag-name" />
        </div>
        <TextField label="Tags" hint="Comma-separated." value={draft.tags} onChange={(event) => set({ tags: event.target.value })} testId="flag-tags" />
        <div className="flex flex-col gap-2">
          {!flag && (
            <Checkbox checked={draft.active} onChange={(active) => set({ active })} testId="flag-active">
              Enabled <span className="font-normal text-gray-500">— a disabled flag is off for everyone</span>
            </Checkbox>
          )}
          <Checkbox checked={draft.ensureExperienceContinuity} onChange={(ensureExperienceContinuity) => set({ ensureExperienceContinuity })} testId="flag-continuity">
            Keep the value across identification <span className="font-normal text-gray-500">(experience continuity)</span>
          </Checkbox>
        </div>
      </Card>

      <Card className="flex flex-col gap-4 p-4 sm:p-5" aria-labelledby="variants-title">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="variants-title" className={sectionTitle}>
            Served value
          </h2>
          <Checkbox checked={draft.multivariate} onChange={(multivariate) => set({ multivariate })} testId="flag-multivariate">
            Multiple variants
          </Checkbox>
        </div>
        {!draft.multivariate ? (
          <p className="text-sm text-gray-600">A boolean flag: matching users get <code className="font-mono">true</code>, everyone else <code className="font-mono">false</code>.</p>
        ) : (
          <fieldset className="flex min-w-0 flex-col gap-2" data-testid="variants">
            <legend className="sr-only">Variants</legend>
            <ul className="flex flex-col gap-2">
              {draft.variants.map((variant, index) => (
                <li key={variant.id} className="grid grid-cols-[1fr_5.5rem_auto] gap-2 sm:grid-cols-[1fr_1fr_6rem_auto]" data-testid={`variant-${index}`}>
                  <input
                    aria-label={`Variant ${index + 1} key`}
                    className={inputClasses({ invalid: invalid(`filters__multivariate__variants__${index}__key`), className: "font-mono" })}
                    value={variant.key}
                    placeholder="variant-key"
                    onChange={(event) => set({ variants: draft.variants.map((v) => (v.id === variant.id ? { ...v, key: event.target.value } : v)) })}
                    data-testid="variant-key"
                  />
                  <input
                    aria-label={`Variant ${index + 1} description`}
                    className={inputClasses({ className: "col-span-3 row-start-2 sm:col-span-1 sm:row-start-auto" })}
                    value={variant.name}
                    placeholder="Description"
                    onChange={(event) => set({ variants: draft.variants.map((v) => (v.id === variant.id ? { ...v, name: event.target.value } : v)) })}
                  />
                  <PercentInput
                    label={`Variant ${index + 1} rollout percentage`}
                    value={variant.rollout}
                    invalid={invalid("filters__multivariate__variants") || invalid(`filters__multivariate__variants__${index}__rollout_percentage`)}
                    onChange={(rollout) => set({ variants: draft.variants.map((v) => (v.id === variant.id ? { ...v, rollout } : v)) })}
                    testId="variant-rollout"
                  />
                  <RemoveButton label={`Remove variant ${index + 1}`} onClick={() => set({ variants: draft.variants.filter((v) => v.id !== variant.id) })} />
                </li>
              ))}
            </ul>
            <div className="flex flex-wrap items-center gap-2">
              <Button variant="ghost" size="sm" onClick={() => set({ variants: [...draft.variants, newVariant("", "0")] })} data-testid="add-variant">
                + Add variant
              </Button>
              <Button
                variant="ghost"
                size="sm"
                onClick={() => {
                  const count = draft.variants.length;
                  const share = Math.floor(100 / count);
                  set({ variants: draft.variants.map((v, i) => ({ ...v, rollout: String(i === 0 ? 100 - share * (count - 1) : share) })) });
                }}
              >
                Distribute equally
              </Button>
              <span className={cn("ml-auto text-sm tabular-nums", variantSum === 100 ? "text-gray-600" : "font-medium text-red-700")} data-testid="variant-sum" aria-live="polite">
                Total {variantSum}% {variantSum === 100 ? "" : "— must be 100%"}
              </span>
            </div>
          </fieldset>
        )}
      </Card>

      <Card className="flex flex-col gap-4 p-4 sm:p-5">
        <div>
          <h2 className={sectionTitle}>Release conditions</h2>
          <p className="mt-1 text-sm text-gray-600">Condition sets are tried in order; the first that matches decides. A user matches a set when every property filter holds and they fall inside its rollout.</p>
        </div>
        <ol className="flex flex-col gap-3" data-testid="conditions">
          {draft.conditions.map((condition, index) => (
            <ConditionEditor
              key={condition.id}
              projectId={projectId}
              index={index}
              condition={condition}
              draft={draft}
              reach={reach}
              invalid={invalid}
              onChange={(patch) => {
                setCondition(condition.id, patch);
                // An edit of the condition set at fault answers its error: do not leave it showing.
                if (issue?.attr?.startsWith(`filters__groups__${index}__`)) setIssue(null);
              }}
              onRemove={draft.conditions.length > 1 ? () => set({ conditions: draft.conditions.filter((c) => c.id !== condition.id) }) : undefined}
            />
          ))}
        </ol>
        <FlagReachSummary state={reach} />
        <div>
          <Button variant="secondary" size="sm" onClick={() => set({ conditions: [...draft.conditions, newCondition()] })} data-testid="add-condition">
            + Add condition set
          </Button>
        </div>
      </Card>

      <Card className="flex flex-col gap-3 p-4 sm:p-5">
        <div>
          <h2 className={sectionTitle}>Payloads</h2>
          <p className="mt-1 text-sm text-gray-600">Optional JSON sent with the value, e.g. <code className="font-mono">{'{"color": "blue"}'}</code>.</p>
        </div>
        {payloadKeys(draft).map((key) => (
          <label key={key} className="flex min-w-0 flex-col gap-1.5 text-sm font-medium text-gray-800">
            <span>
              Payload for <code className="font-mono">{key}</code>
            </span>
            <textarea
              className={cn(inputClasses({ invalid: invalid(`filters__payloads__${key}`) }), "h-20 py-2 font-mono")}
              value={draft.payloads[key] ?? ""}
              onChange={(event) => set({ payloads: { ...draft.payloads, [key]: event.target.value } })}
              spellCheck={false}
              data-testid={`payload-${key}`}
            />
          </label>
        ))}
      </Card>

      {issue && (
        <FormAlert testId="flag-form-error">
          {issue.attr && issue.attr !== "key" ? <span className="font-mono text-xs">{issue.attr.replaceAll("__", ".")}: </span> : null}
          {issue.message}
        </FormAlert>
      )}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" loading={pending} data-testid="flag-save">
          {flag ? "Save changes" : "Create flag"}
        </Button>
      </div>
    </form>
  );
}
