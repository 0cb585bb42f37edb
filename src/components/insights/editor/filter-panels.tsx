"use client";

import { useQuery } from "@tanstack/react-query";
import { Button, cn, inputClasses, PropertyFilterRow, RemoveButton } from "@/components/ui";
import { OPERATOR_LABELS } from "@/components/events/filter-params";
import { PROPERTY_OPERATORS, type PropertyOperator } from "@/server/properties/contract";
import { useTRPC } from "@/trpc/react";
import { Select } from "./controls";
import {
  describeKept,
  isGroupNode,
  isKept,
  LISTED_OPERATORS,
  newFilter,
  newGroup,
  VALUELESS_OPERATORS,
  type FilterDraft,
  type FilterGroups,
  type FilterItem,
  type FilterType,
  type GroupType,
} from "./filter-groups";
import { PropertyKeyPicker, PropertyValuePicker } from "./pickers";

export const FILTER_TYPE_LABELS: Record<FilterType, string> = { event: "Event property", person: "Person property", cohort: "Cohort" };

// ---------------------------------------------------------------------------------------
// The insight's filters: PostHog's two-level groups

/**
 * An outer AND/OR over groups (shown from two groups on), each group an AND/OR over its
 * filters, as PostHog's PropertyGroupFilters. One group reads as plain filters ("Filter 1").
 */
export function FilterGroupsEditor({
  projectId,
  groups,
  onChange,
  eventNames,
}: {
  projectId: number;
  groups: FilterGroups;
  onChange: (groups: FilterGroups) => void;
  eventNames?: string[];
}) {
  const several = groups.values.length > 1;
  const setGroup = (index: number, patch: Partial<FilterGroups["values"][number]>) =>
    onChange({ ...groups, values: groups.values.map((group, at) => (at === index ? { ...group, ...patch } : group)) });
  const addGroup = () => onChange({ ...groups, values: [...groups.values, newGroup()] });
  if (groups.values.length === 0) {
    return (
      <Button variant="ghost" size="sm" className="-ml-2 self-start" onClick={addGroup} data-testid="add-filter">
        + Add filter
      </Button>
    );
  }
  return (
    <div className="flex flex-col gap-3" data-testid="filter-groups">
      {several && <AndOrToggle label="Match" noun="groups" value={groups.type} onChange={(type) => onChange({ ...groups, type })} testId="groups-type" />}
      <ol className="flex flex-col gap-2">
        {groups.values.map((group, index) => {
          const name = `Filter group ${index + 1}`;
          return (
            <li key={index} className="flex flex-col gap-2" data-testid="filter-group">
              {index > 0 && (
                <span className="self-center rounded-full bg-gray-100 px-2 py-0.5 text-xs font-semibold text-gray-600" aria-hidden="true" data-testid="groups-joiner">
                  {groups.type}
                </span>
              )}
              <section aria-label={name} className="flex min-w-0 flex-col gap-2 rounded-control border border-gray-200 bg-gray-50/60 p-3">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <AndOrToggle label={several ? `${name}: match` : "Match"} noun="filters" value={group.type} onChange={(type) => setGroup(index, { type })} testId="group-type" />
                  <RemoveButton label={`Remove ${name.toLowerCase()}`} onClick={() => onChange({ ...groups, values: groups.values.filter((_, at) => at !== index) })} />
                </div>
                <FilterList
                  projectId={projectId}
                  label={several ? `Group ${index + 1} filter` : "Filter"}
                  filters={group.values}
                  onChange={(values) => setGroup(index, { values })}
                  addLabel="Add filter"
                  eventNames={eventNames}
                  compact
                />
              </section>
            </li>
          );
        })}
      </ol>
      <Button variant="secondary" size="sm" className="self-start" onClick={addGroup} data-testid="add-filter-group">
        + Add filter group
      </Button>
    </div>
  );
}

/** "Match [all] [any] filters": two toggle buttons, the chosen one pressed. */
function AndOrToggle({ label, noun, value, onChange, testId }: { label: string; noun: string; value: GroupType; onChange: (value: GroupType) => void; testId: string }) {
  return (
    <div className="flex items-center gap-2 text-sm text-gray-700" role="group" aria-label={`${label} all or any ${noun}`} data-testid={testId} data-value={value}>
      <span aria-hidden="true">Match</span>
      <span className="inline-flex rounded-control border border-gray-200 bg-white p-0.5">
        {(["AND", "OR"] as const).map((type) => (
          <Button
            key={type}
            variant={value === type ? "secondary" : "ghost"}
            size="sm"
            className="h-7 px-2.5"
            aria-pressed={value === type}
            onClick={() => onChange(type)}
            data-testid={`${testId}-${type.toLowerCase()}`}
          >
            {type === "AND" ? "all" : "any"}
          </Button>
        ))}
      </span>
      <span>{noun}</span>
    </div>
  );
}

// ---------------------------------------------------------------------------------------
// A list of filters: the shared condition builder (event, person, cohort), and read-only entries

export function FilterList({
  projectId,
  label,
  filters,
  onChange,
  addLabel,
  compact = false,
  eventNames,
}: {
  /** Events whose properties are suggested first. */
  eventNames?: string[];
  projectId: number;
  label: string;
  filters: FilterItem[];
  onChange: (filters: FilterItem[]) => void;
  addLabel: string;
  compact?: boolean;
}) {
  const set = (index: number, patch: Partial<FilterDraft>) => onChange(filters.map((filter, at) => (at === index && !isKept(filter) ? { ...filter, ...patch } : filter)));
  const remove = (index: number) => onChange(filters.filter((_, at) => at !== index));
  return (
    <div className="flex flex-col gap-2">
      {filters.length > 0 && (
        <ul className="flex flex-col gap-3" data-testid="filter-list">
          {filters.map((filter, index) => {
            const name = `${label} ${index + 1}`;
            if (isKept(filter)) return <KeptFilterRow key={index} name={name} node={filter.node} onRemove={() => remove(index)} />;
            return (
              <li key={index} className="flex flex-col gap-2" data-testid="filter-row">
                <Select
                  label={`${name}: type`}
                  visibleLabel={false}
                  value={filter.type}
                  options={FILTER_TYPE_LABELS}
                  onChange={(type) => set(index, newFilter(type))}
                  testId="filter-type"
                  className="max-w-56"
                />
                <ul>
                  {filter.type === "cohort" ? (
                    <CohortFilterRow projectId={projectId} label={name} filter={filter} onChange={(patch) => set(index, patch)} onRemove={() => remove(index)} />
                  ) : (
                    <PropertyFilterRow
                      label={name}
                      keyNoun={filter.type === "event" ? "event property" : "person property"}
                      propertyKey={filter.key}
                      operator={filter.operator as PropertyOperator}
                      value={filter.value}
                      operators={PROPERTY_OPERATORS}
                      operatorLabels={OPERATOR_LABELS}
                      valueless={VALUELESS_OPERATORS}
                      listed={LISTED_OPERATORS}
                      onChange={(patch) => set(index, patch)}
                      onRemove={() => remove(index)}
                      removeLabel={`Remove ${name}`}
                      renderKey={(input) => (
                        <PropertyKeyPicker
                          projectId={projectId}
                          type={filter.type as "event" | "person"}
                          label={input.label}
                          value={input.value}
                          onChange={input.onChange}
                          className="col-span-2 @lg:col-span-1"
                          eventNames={eventNames}
                          testId="property-key"
                        />
                      )}
                      renderValue={(input) => (
                        <PropertyValuePicker
                          projectId={projectId}
                          type={filter.type as "event" | "person"}
                          propertyKey={filter.key}
                          label={input.label}
                          value={input.value}
                          onChange={input.onChange}
                          disabled={input.disabled}
                          placeholder={input.placeholder}
                          testId="property-value"
                        />
                      )}
                    />
                  )}
                </ul>
              </li>
            );
          })}
        </ul>
      )}
      <Button variant="ghost" size="sm" className={cn("self-start", compact && "-ml-2")} onClick={() => onChange([...filters, newFilter("event")])} data-testid="add-filter">
        + {addLabel}
      </Button>
    </div>
  );
}

/** A filter the editor cannot edit (another type, a deeper group): what it is, kept on save unless removed. */
function KeptFilterRow({ name, node, onRemove }: { name: string; node: unknown; onRemove: () => void }) {
  const description = describeKept(node);
  return (
    <li className="flex items-start gap-2 rounded-control border border-dashed border-gray-300 bg-white py-1.5 pr-1 pl-3" data-testid="kept-filter">
      <p className="min-w-0 flex-1 py-1 text-sm text-gray-700">
        <span className="mr-1.5 text-xs font-semibold tracking-wide text-gray-500 uppercase">Read-only</span>
        <span className={cn("break-words text-gray-800", isGroupNode(node) ? "text-sm" : "font-mono text-xs")} data-testid="kept-filter-text">
          {description}
        </span>
        <span className="sr-only"> ({name}: this editor cannot change it; it is saved as it is.)</span>
      </p>
      <RemoveButton label={`Remove ${name}`} onClick={onRemove} />
    </li>
  );
}

function CohortFilterRow({
  projectId,
  label,
  filter,
  onChange,
  onRemove,
}: {
  projectId: number;
  label: string;
  filter: FilterDraft;
  onChange: (patch: Partial<FilterDraft>) => void;
  onRemove: () => void;
}) {
  const cohorts = useCohorts(projectId);
  return (
    <li className="grid grid-cols-[1fr_auto] gap-2 sm:grid-cols-[10rem_1fr_auto]" data-testid="condition-cohort">
      <Select
        label={`${label}: cohort operator`}
        visibleLabel={false}
        value={filter.operator === "not_in" ? "not_in" : "in"}
        options={{ in: "is in cohort", not_in: "is not in cohort" }}
        onChange={(operator) => onChange({ operator })}
        className="col-span-2 sm:col-span-1"
      />
      <CohortSelect label={`${label}: cohort`} cohorts={cohorts} value={filter.value} onChange={(value) => onChange({ value })} />
      <RemoveButton label={`Remove ${label}`} onClick={onRemove} />
    </li>
  );
}

export function useCohorts(projectId: number) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.events.cohorts.queryOptions({ projectId }), staleTime: 60_000 });
}

export function CohortSelect({ label, cohorts, value, onChange }: { label: string; cohorts: ReturnType<typeof useCohorts>; value: string; onChange: (value: string) => void }) {
  const known = cohorts.data?.some((cohort) => String(cohort.id) === value);
  return (
    <select aria-label={label} aria-busy={cohorts.isPending || undefined} className={inputClasses({ className: "pr-8" })} value={value} onChange={(event) => onChange(event.target.value)} data-testid="cohort-picker">
      <option value="">{cohorts.isPending ? "Loading cohorts…" : cohorts.isError ? "Could not load cohorts" : cohorts.data.length === 0 ? "No cohorts yet" : "Choose a cohort"}</option>
      {cohorts.data?.map((cohort) => (
        <option key={cohort.id} value={String(cohort.id)}>
          {cohort.name || `Cohort ${cohort.id}`}
        </option>
      ))}
      {value !== "" && cohorts.data && !known && <option value={value}>Cohort {value}</option>}
    </select>
  );
}
