"use client";

/**
 * The survey builder's "Who is asked, and when": the page's element, devices, events and
 * actions seen, a linked flag, persons' properties and cohorts (the user targeting flag, with
 * the flag form's condition editor and reach), and the iteration schedule.
 */
import { useQuery } from "@tanstack/react-query";
import { Button, Card, inputClasses } from "@/components/ui";
import { ConditionEditor } from "@/components/feature-flags/flag-condition-editor";
import { EMPTY_DRAFT as EMPTY_FLAG_DRAFT, newCondition, type ConditionDraft } from "@/components/feature-flags/flag-draft";
import { useFlagReach } from "@/components/feature-flags/flag-reach";
import { useTRPC } from "@/trpc/react";
import { DEVICE_TYPES, type SurveyDraft } from "./survey-draft";

const label = "flex flex-col gap-1 text-sm font-medium text-gray-800";
const hint = "text-xs font-normal text-gray-500";
/** The flags a survey makes for itself are not offered as its linked flag. */
const ownFlag = (key: string) => key.startsWith("survey-targeting-");

export function SurveyAudience({ projectId, draft, set }: { projectId: number; draft: SurveyDraft; set: (patch: Partial<SurveyDraft>) => void }) {
  return (
    <Card className="flex flex-col gap-4 p-4" data-testid="survey-audience">
      <h3 className="text-sm font-semibold text-gray-900">Who is asked, and when</h3>
      <div className="grid gap-3 sm:grid-cols-2">
        <label className={label}>
          <span>
            Element on the page <span className={hint}>CSS selector; empty: any page</span>
          </span>
          <input className={inputClasses()} value={draft.selector} maxLength={1000} placeholder="#checkout" onChange={(event) => set({ selector: event.target.value })} data-testid="survey-selector" />
        </label>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-gray-800">
            Devices <span className={hint}>none ticked: every device</span>
          </legend>
          <div className="flex flex-wrap gap-3 pt-1.5">
            {DEVICE_TYPES.map((device) => (
              <label key={device} className="flex items-center gap-1.5 text-sm text-gray-800">
                <input
                  type="checkbox"
                  className="size-4 accent-brand-600"
                  checked={draft.deviceTypes.includes(device)}
                  onChange={(event) => set({ deviceTypes: event.target.checked ? [...draft.deviceTypes, device] : draft.deviceTypes.filter((d) => d !== device) })}
                  data-testid={`survey-device-${device.toLowerCase()}`}
                />
                {device}
              </label>
            ))}
          </div>
        </fieldset>
        <label className={label}>
          <span>
            After these events <span className={hint}>one per line; empty: no event needed</span>
          </span>
          <textarea className={inputClasses({ className: "min-h-[4.5rem]" })} value={draft.events} placeholder="checkout completed" onChange={(event) => set({ events: event.target.value })} data-testid="survey-events" />
          <span className="flex items-center gap-1.5 font-normal">
            <input type="checkbox" className="size-4 accent-brand-600" checked={draft.repeatedActivation} onChange={(event) => set({ repeatedActivation: event.target.checked })} data-testid="survey-repeated" />
            Every time one happens, not only the first
          </span>
        </label>
        <ActionsPicker projectId={projectId} chosen={draft.actionIds} onChange={(actionIds) => set({ actionIds })} />
        <LinkedFlag projectId={projectId} draft={draft} set={set} />
        <Schedule draft={draft} set={set} />
      </div>
      <Targeting projectId={projectId} targeting={draft.targeting} onChange={(targeting) => set({ targeting })} />
    </Card>
  );
}

function ActionsPicker({ projectId, chosen, onChange }: { projectId: number; chosen: number[]; onChange: (ids: number[]) => void }) {
  const trpc = useTRPC();
  const actions = useQuery(trpc.actions.list.queryOptions({ projectId, limit: 200, offset: 0 }));
  const options = actions.data?.results ?? [];
  return (
    <fieldset className="flex min-w-0 flex-col gap-1" data-testid="survey-actions" aria-busy={actions.isPending || undefined}>
      <legend className="text-sm font-medium text-gray-800">
        After these actions <span className={hint}>none ticked: no action needed</span>
      </legend>
      {actions.isPending ? (
        <p className="text-sm text-gray-500">Loading actions…</p>
      ) : actions.isError ? (
        <p className="text-sm text-red-700">Actions could not be loaded.</p>
      ) : options.length === 0 ? (
        <p className="text-sm text-gray-500">No actions yet: define one on the Actions page.</p>
      ) : (
        <div className="flex max-h-28 flex-col gap-1 overflow-y-auto rounded-control border border-gray-200 p-2">
          {options.map((action) => (
            <label key={action.id} className="flex items-center gap-1.5 text-sm text-gray-800">
              <input type="checkbox" className="size-4 accent-brand-600" checked={chosen.includes(action.id)} onChange={(event) => onChange(event.target.checked ? [...chosen, action.id] : chosen.filter((id) => id !== action.id))} />
              <span className="truncate">{action.name}</span>
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

function LinkedFlag({ projectId, draft, set }: { projectId: number; draft: SurveyDraft; set: (patch: Partial<SurveyDraft>) => void }) {
  const trpc = useTRPC();
  const flags = useQuery(trpc.flags.list.queryOptions({ projectId, limit: 1000, offset: 0 }));
  const options = (flags.data?.results ?? []).filter((flag) => !ownFlag(flag.key) && !flag.deleted);
  const linked = options.find((flag) => String(flag.id) === draft.linkedFlagId);
  const variants = linked?.filters.multivariate?.variants ?? [];
  return (
    <div className="flex min-w-0 flex-col gap-2">
      <label className={label}>
        <span>
          Only for people with a flag <span className={hint}>optional</span>
        </span>
        <select className={inputClasses({ className: "pr-8" })} value={draft.linkedFlagId} aria-busy={flags.isPending || undefined} onChange={(event) => set({ linkedFlagId: event.target.value, linkedFlagVariant: "" })} data-testid="survey-linked-flag">
          <option value="">No flag needed</option>
          {options.map((flag) => (
            <option key={flag.id} value={String(flag.id)}>
              {flag.key}
            </option>
          ))}
        </select>
      </label>
      {variants.length > 0 && (
        <label className={label}>
          Variant
          <select className={inputClasses({ className: "pr-8" })} value={draft.linkedFlagVariant} onChange={(event) => set({ linkedFlagVariant: event.target.value })} data-testid="survey-linked-variant">
            <option value="">Any variant</option>
            {variants.map((variant) => (
              <option key={variant.key} value={variant.key}>
                {variant.key}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}

function Schedule({ draft, set }: { draft: SurveyDraft; set: (patch: Partial<SurveyDraft>) => void }) {
  return (
    <div className="flex min-w-0 flex-col gap-2">
      <label className={label}>
        Schedule
        <select className={inputClasses({ className: "pr-8" })} value={draft.schedule} onChange={(event) => set({ schedule: event.target.value as SurveyDraft["schedule"] })} data-testid="survey-schedule">
          <option value="once">Once per person</option>
          <option value="recurring">Again every few days</option>
          <option value="always">Every time the conditions hold</option>
        </select>
      </label>
      {draft.schedule === "recurring" && (
        <div className="grid grid-cols-2 gap-2">
          <label className={label}>
            Every (days)
            <input className={inputClasses()} type="number" min={1} max={3650} required value={draft.iterationFrequencyDays} onChange={(event) => set({ iterationFrequencyDays: event.target.value })} data-testid="survey-every" />
          </label>
          <label className={label}>
            Times
            <input className={inputClasses()} type="number" min={1} max={500} required value={draft.iterationCount} onChange={(event) => set({ iterationCount: event.target.value })} data-testid="survey-times" />
          </label>
        </div>
      )}
    </div>
  );
}

/** Persons' properties and cohorts: the user targeting flag's condition sets, with their reach. */
function Targeting({ projectId, targeting, onChange }: { projectId: number; targeting: ConditionDraft[] | null; onChange: (targeting: ConditionDraft[]) => void }) {
  const flagDraft = { ...EMPTY_FLAG_DRAFT, conditions: targeting ?? [] };
  const reach = useFlagReach(projectId, flagDraft);
  if (targeting === null) {
    return <p className="text-sm text-gray-600">Targeted by a flag with conditions this form cannot edit: change them on the flag&apos;s page.</p>;
  }
  const setCondition = (id: number, patch: Partial<ConditionDraft>) => onChange(targeting.map((condition) => (condition.id === id ? { ...condition, ...patch } : condition)));
  return (
    <div className="flex flex-col gap-2 border-t border-gray-100 pt-3" data-testid="survey-targeting">
      <h4 className="text-sm font-medium text-gray-800">
        People <span className={hint}>{targeting.length === 0 ? "everyone; add conditions to ask only some" : "asked when any condition set matches"}</span>
      </h4>
      {targeting.length > 0 && (
        <ul className="flex flex-col gap-3">
          {targeting.map((condition, index) => (
            <ConditionEditor
              key={condition.id}
              projectId={projectId}
              index={index}
              condition={condition}
              draft={flagDraft}
              reach={reach}
              invalid={() => false}
              onChange={(patch) => setCondition(condition.id, patch)}
              onRemove={() => onChange(targeting.filter((c) => c.id !== condition.id))}
            />
          ))}
        </ul>
      )}
      <div>
        <Button variant="secondary" size="sm" onClick={() => onChange([...targeting, newCondition("100")])} data-testid="survey-add-targeting">
          + Add condition set
        </Button>
      </div>
    </div>
  );
}
