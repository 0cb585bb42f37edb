"use client";

import { useId, useState } from "react";
import { OPERATOR_LABELS } from "@/components/events/filter-params";
import { TestAccountsHint, useTestAccountFilters } from "@/components/settings/test-accounts-toggle";
import { Button, Card, inputClasses, PropertyFilterRow } from "@/components/ui";
import { PROPERTY_OPERATORS, type PropertyOperator } from "@/server/properties/contract";
import { DATE_PRESETS } from "@/components/insights/date-presets";
import { dateRangeLabel, isComplete, type DashboardFilters, type PropertyCondition } from "./dashboard-filters-state";

const VALUELESS = new Set<string>(["is_set", "is_not_set"]);
const LISTED = new Set<string>(["exact", "is_not"]);

/** A condition row as typed: the value as one string ("a, b" lists alternatives). */
interface DraftRow {
  type: "event" | "person";
  key: string;
  operator: PropertyOperator;
  value: string;
}

const draftOf = (condition: PropertyCondition): DraftRow => ({
  type: condition.type,
  key: condition.key,
  operator: condition.operator,
  value: Array.isArray(condition.value) ? condition.value.join(", ") : (condition.value ?? ""),
});

function conditionOf(row: DraftRow): PropertyCondition {
  if (VALUELESS.has(row.operator)) return { type: row.type, key: row.key.trim(), operator: row.operator, value: null };
  const parts = row.value.split(",").map((part) => part.trim()).filter(Boolean);
  const value = LISTED.has(row.operator) && parts.length > 1 ? parts : row.value.trim();
  return { type: row.type, key: row.key.trim(), operator: row.operator, value };
}

const isoDay = (value: string | null) => (value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : "");

/** The test accounts' choices: each insight's own setting (PostHog's, null), or one for every tile. */
const TEST_ACCOUNT_CHOICES = [
  { value: "", label: "Each insight's own setting" },
  { value: "true", label: "Filtered out on every tile" },
  { value: "false", label: "Included on every tile" },
] as const;

/**
 * "Internal and test users" for the whole dashboard: PostHog's DashboardFilter
 * `filterTestAccounts`, which replaces each insight's own when set. While the project has no
 * test account filters it can only go back to each insight's own, and says where to set them.
 */
function TestAccountsChoice({ value, filters, hintId, onChange }: { value: boolean | null; filters: unknown[] | undefined; hintId: string | undefined; onChange: (next: boolean | null) => void }) {
  const id = useId();
  const none = filters !== undefined && filters.length === 0;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-gray-700">
        Internal and test users
      </label>
      <select
        id={id}
        className={inputClasses({ className: "pr-8 sm:w-60" })}
        value={value === null ? "" : String(value)}
        disabled={filters === undefined || (none && value === null)}
        aria-describedby={hintId}
        onChange={(event) => onChange(event.target.value === "" ? null : event.target.value === "true")}
        data-testid="dashboard-test-accounts"
      >
        {TEST_ACCOUNT_CHOICES.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * The dashboard's filter bar: a date range (presets or two dates) that replaces every
 * tile's, property conditions ANDed with each tile's own, and whether every tile leaves out
 * the internal and test users (or each insight decides). Changes go to the URL at once
 * (so they survive a reload and back/forward undoes them); "Save filters" stores them on the
 * dashboard for everyone, "Discard" returns to the saved ones.
 */
export function DashboardFiltersBar({
  active,
  temporary,
  canEdit,
  saving,
  onChange,
  onSave,
  onDiscard,
}: {
  active: DashboardFilters;
  /** The URL's filters differ from the saved ones. */
  temporary: boolean;
  canEdit: boolean;
  saving: boolean;
  onChange: (next: DashboardFilters) => void;
  onSave: () => void;
  onDiscard: () => void;
}) {
  const rangeId = useId();
  const testAccounts = useTestAccountFilters();
  // Said only when it matters: the project has none to apply (or they could not be read).
  const testAccountsHint = (testAccounts.filters !== undefined && testAccounts.filters.length === 0) || Boolean(testAccounts.error);
  const [custom, setCustom] = useState<{ from: string; to: string } | null>(null);
  const [rows, setRows] = useState<DraftRow[]>(() => active.properties.map(draftOf));
  // New filters from outside (back/forward, save, discard): the rows follow them. By value:
  // the page hands a new object on every render.
  const activeKey = JSON.stringify(active);
  const [shownKey, setShownKey] = useState(activeKey);
  if (shownKey !== activeKey) {
    setShownKey(activeKey);
    setRows(active.properties.map(draftOf));
  }
  const preset = DATE_PRESETS.find((item) => item.value === active.date_from && !active.date_to);
  const rangeValue = custom ? "custom" : !active.date_from && !active.date_to ? "" : preset ? preset.value : "custom";
  const applied = JSON.stringify(active.properties);
  const pending = JSON.stringify(rows.map(conditionOf).filter(isComplete)) !== applied || rows.some((row) => !isComplete(conditionOf(row)));
  const invalidRows = rows.map((row) => !isComplete(conditionOf(row)));

  function chooseRange(value: string) {
    if (value === "custom") {
      setCustom({ from: isoDay(active.date_from), to: isoDay(active.date_to) });
      return;
    }
    setCustom(null);
    onChange({ ...active, date_from: value || null, date_to: null });
  }

  const applyProperties = () => onChange({ ...active, properties: rows.map(conditionOf).filter(isComplete) });

  return (
    <Card className="flex flex-col gap-3 p-3" data-testid="dashboard-filters" data-temporary={temporary ? "true" : "false"}>
      <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-end">
        <div className="flex flex-col gap-1">
          <label htmlFor={rangeId} className="text-xs font-medium text-gray-700">
            Date range
          </label>
          <select id={rangeId} className={inputClasses({ className: "pr-8 sm:w-60" })} value={rangeValue} onChange={(event) => chooseRange(event.target.value)} data-testid="dashboard-date-range">
            <option value="">Each tile&apos;s own range</option>
            {DATE_PRESETS.map((item) => (
              <option key={item.value} value={item.value}>
                {item.label}
              </option>
            ))}
            <option value="custom">{rangeValue === "custom" && !custom ? dateRangeLabel(active.date_from, active.date_to) : "Custom…"}</option>
          </select>
        </div>
        {custom && (
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={(event) => {
              event.preventDefault();
              if (!custom.from) return;
              onChange({ ...active, date_from: custom.from, date_to: custom.to || null });
              setCustom(null);
            }}
            data-testid="custom-range"
          >
            <label className="flex flex-col gap-1 text-xs font-medium text-gray-700">
              From
              <input type="date" required className={inputClasses()} value={custom.from} onChange={(event) => setCustom({ ...custom, from: event.target.value })} data-testid="custom-from" />
            </label>
            <label className="flex flex-col gap-1 text-xs font-medium text-gray-700">
              To
              <input type="date" className={inputClasses()} value={custom.to} min={custom.from || undefined} onChange={(event) => setCustom({ ...custom, to: event.target.value })} data-testid="custom-to" />
            </label>
            <Button type="submit" size="sm" data-testid="custom-apply">
              Apply dates
            </Button>
          </form>
        )}
        <TestAccountsChoice
          value={active.filterTestAccounts}
          filters={testAccounts.filters}
          hintId={testAccountsHint ? `${rangeId}-test-accounts` : undefined}
          onChange={(filterTestAccounts) => onChange({ ...active, filterTestAccounts })}
        />
        <Button variant="secondary" size="sm" onClick={() => setRows([...rows, { type: "event", key: "", operator: "exact", value: "" }])} data-testid="add-dashboard-filter">
          Add filter
        </Button>
        <div className="flex flex-wrap items-center gap-2 sm:ml-auto">
          {temporary && (
            <span className="text-xs text-gray-600" data-testid="filters-unsaved">
              Not saved: only in this page&apos;s link
            </span>
          )}
          {temporary && (
            <Button variant="ghost" size="sm" onClick={onDiscard} data-testid="discard-filters">
              Discard
            </Button>
          )}
          {temporary && canEdit && (
            <Button size="sm" loading={saving} onClick={onSave} data-testid="save-filters">
              Save filters
            </Button>
          )}
        </div>
      </div>
      {testAccountsHint && (
        <div id={`${rangeId}-test-accounts`}>
          <TestAccountsHint filters={testAccounts.filters} error={testAccounts.error} />
        </div>
      )}
      {rows.length > 0 && (
        <form
          className="flex flex-col gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            applyProperties();
          }}
        >
          <ul className="flex flex-col gap-2" aria-label="Property filters">
            {rows.map((row, index) => (
              <li key={index} className="grid grid-cols-1 gap-2 sm:grid-cols-[7rem_1fr]" data-testid="dashboard-filter-row">
                <select
                  aria-label={`Filter ${index + 1}: whose property`}
                  className={inputClasses({ className: "pr-8" })}
                  value={row.type}
                  onChange={(event) => setRows(rows.map((item, i) => (i === index ? { ...item, type: event.target.value as DraftRow["type"] } : item)))}
                  data-testid="property-type"
                >
                  <option value="event">Event</option>
                  <option value="person">Person</option>
                </select>
                <ul>
                  <PropertyFilterRow
                    label={`Filter ${index + 1}`}
                    propertyType={row.type}
                    keyPlaceholder={row.type === "event" ? "Event property, e.g. $browser" : "Person property, e.g. email"}
                    propertyKey={row.key}
                    operator={row.operator}
                    value={row.value}
                    operators={PROPERTY_OPERATORS}
                    operatorLabels={OPERATOR_LABELS}
                    valueless={VALUELESS}
                    listed={LISTED}
                    invalid={pending && invalidRows[index] && row.key !== "" ? { value: true } : undefined}
                    onChange={(patch) => setRows(rows.map((item, i) => (i === index ? { ...item, ...patch } : item)))}
                    onRemove={() => {
                      const next = rows.filter((_, i) => i !== index);
                      setRows(next);
                      onChange({ ...active, properties: next.map(conditionOf).filter(isComplete) });
                    }}
                    removeLabel={`Remove filter ${index + 1}`}
                  />
                </ul>
              </li>
            ))}
          </ul>
          {pending && (
            <div>
              <Button type="submit" size="sm" variant="secondary" data-testid="apply-dashboard-filters">
                Apply filters
              </Button>
            </div>
          )}
        </form>
      )}
    </Card>
  );
}
