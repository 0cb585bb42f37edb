/**
 * Cohorts as feature flags read them, as PostHog's flags service does
 * (rust/feature-flags/src/cohorts/cohort_operations.rs) and posthog-node mirrors:
 *
 * - A dynamic cohort is evaluated on the fly against the person's properties: its stored
 *   property tree (`filters.properties`) compiled once by the property engine with the flags
 *   column of the operator table (properties/match.ts, `semantics: "flags"`), nested cohort
 *   leaves resolved to the nested cohort's own test (`not_in` inverts it, `negation` is the
 *   walk's), each cohort evaluated at most once per person and request.
 * - A static cohort's members are rows of `cohort_people`: the caller reads the person's
 *   memberships once per request and passes them in (`CohortSubject.staticCohorts`).
 * - Unknown or deleted cohorts, cohorts on a reference cycle and filters that do not parse
 *   match nobody (PostHog: "parse failures → not a member").
 *
 * Also here: what the definitions endpoints serve for a cohort (PostHog's `to_dict` of its
 * property group), which cohorts a flag reaches, and PostHog's rewrite of a flag that names
 * exactly one simple person-property cohort into plain person conditions (for SDKs that ask
 * without `send_cohorts`).
 */
import type { CohortFilter, PropertyFilter, PropertyGroup, PropertyNode } from "@/server/properties/contract";
import { propertyMatcher, type PropertyMatcher, type PropertySources } from "@/server/properties/match";
import { isObject } from "@/server/input/json-object";

/** A cohort row as the flags domain reads it. */
export interface CohortRow {
  id: number;
  name: string;
  filters: unknown;
  is_static: boolean;
}

/** What a person's cohort tests read: their properties, and the static cohorts they are listed in. */
export interface CohortSubject extends PropertySources {
  person: Readonly<Record<string, unknown>>;
  /** Static cohorts the person is a member of (`cohort_people`); absent: none. */
  staticCohorts?: ReadonlySet<number>;
  /** Each cohort's answer once evaluated for this subject (filled by CohortIndex), so a nested cohort is evaluated once. */
  answers?: Map<number, boolean>;
}

/** Nesting deeper than this is not a cohort anyone built: it matches nobody. */
const MAX_DEPTH = 16;

type Json = Record<string, unknown>;

function cohortIdOf(value: unknown): number | null {
  const id = typeof value === "string" && /^\d{1,10}$/.test(value) ? Number(value) : value;
  return typeof id === "number" && Number.isInteger(id) && id > 0 && id <= 2_147_483_647 ? id : null;
}

/** The stored `filters` JSON (an object or its text), or null. */
function filtersObject(filters: unknown): Json | null {
  let value = filters;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return isObject(value) ? value : null;
}

/**
 * A cohort's stored property tree as the engine's node, read leniently as PostHog's flag code
 * does: `{}` or no values is an empty group (it holds), a `property` group reads as AND, a
 * cohort leaf as a CohortFilter, every other leaf as a property filter with its own operator.
 * Null when the tree is not one (then the cohort matches nobody).
 */
export function cohortTree(filters: unknown): PropertyNode | null {
  const stored = filtersObject(filters);
  if (!stored) return null;
  if (stored.properties === undefined || stored.properties === null) return { type: "AND", values: [] };
  const properties = stored.properties;
  return nodeOf(properties, 0);
}

function nodeOf(value: unknown, depth: number): PropertyNode | null {
  if (!isObject(value) || depth > MAX_DEPTH) return null;
  if (!("values" in value) && !("key" in value)) return Object.keys(value).length === 0 ? { type: "AND", values: [] } : null;
  if ("values" in value) {
    if (!Array.isArray(value.values)) return null;
    const type = value.type === "OR" ? "OR" : value.type === "AND" || value.type === "property" ? "AND" : null;
    if (!type) return null;
    const values: PropertyNode[] = [];
    for (const child of value.values) {
      const node = nodeOf(child, depth + 1);
      if (!node) return null;
      values.push(node);
    }
    return { type, values };
  }
  if (typeof value.key !== "string" && typeof value.key !== "number") return null;
  const negation = value.negation === true;
  if (value.type === "cohort") {
    const id = cohortIdOf(value.value);
    if (id === null) return null;
    const leaf: CohortFilter = { type: "cohort", key: "id", value: id, operator: value.operator === "not_in" ? "not_in" : "in", negation };
    return leaf;
  }
  // Any other leaf keeps PostHog's fields: the flags column reads key, value, operator and negation.
  return { ...value, key: String(value.key), negation } as unknown as PropertyFilter;
}

function leavesOf(node: PropertyNode): PropertyNode[] {
  return node.type === "AND" || node.type === "OR" ? (node as PropertyGroup).values.flatMap(leavesOf) : [node];
}

/** The cohorts a tree names directly. */
export function nestedCohortIds(node: PropertyNode | null): number[] {
  if (!node) return [];
  return leavesOf(node).flatMap((leaf) => (leaf.type === "cohort" ? [(leaf as CohortFilter).value] : []));
}

/** Whether a tree has behavioural (event) leaves, which flags cannot evaluate. */
export function hasBehavioralLeaves(node: PropertyNode | null): boolean {
  return node !== null && leavesOf(node).some((leaf) => (leaf.type as string) === "behavioral");
}

/** The cohort ids a flag's conditions name, in order, without repeats. */
export function flagCohortIds(filters: { groups?: { properties?: { type?: string | null; value?: unknown }[] | null }[] | null; super_groups?: unknown }): number[] {
  const ids: number[] = [];
  for (const condition of filters.groups ?? []) {
    for (const property of condition.properties ?? []) {
      if (property.type !== "cohort") continue;
      const id = cohortIdOf(property.value);
      if (id !== null && !ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}

// PostHog's Property attributes, in the order `vars()` lists them (`to_dict` drops the null ones).
const PROPERTY_FIELDS = [
  "key",
  "operator",
  "type",
  "group_type_index",
  "event_type",
  "operator_value",
  "time_value",
  "time_interval",
  "total_periods",
  "min_periods",
  "seq_event_type",
  "seq_event",
  "seq_time_value",
  "seq_time_interval",
  "negation",
  "value",
  "explicit_datetime",
  "event_filters",
] as const;

function propertyToDict(leaf: Json): Json {
  const out: Json = {};
  for (const field of PROPERTY_FIELDS) {
    let value = leaf[field];
    if (field === "type") value = value ?? "event";
    if (field === "value" && (value === null || value === undefined) && (leaf.operator === "is_set" || leaf.operator === "is_not_set")) value = leaf.operator;
    if (value !== null && value !== undefined) out[field] = value;
  }
  return out;
}

function groupToDict(group: unknown): Json {
  if (!isObject(group) || !Array.isArray(group.values) || group.values.length === 0) return {};
  return { type: group.type, values: group.values.map((child) => (isObject(child) && "values" in child ? groupToDict(child) : isObject(child) ? propertyToDict(child) : child)) };
}

/** A cohort's property group as PostHog serves it to SDKs (`cohort.properties.to_dict()`): an empty group is `{}`. */
export function cohortPropertiesDict(filters: unknown): Json {
  return groupToDict(filtersObject(filters)?.properties);
}

/**
 * The project's cohorts, compiled once per definitions load: each cohort's membership test,
 * built on first use; the cohorts a set of flags reaches; what SDKs are sent.
 */
export class CohortIndex {
  private readonly rows = new Map<number, CohortRow>();
  private readonly trees = new Map<number, PropertyNode | null>();
  private readonly tests = new Map<number, PropertyMatcher>();

  constructor(rows: readonly CohortRow[]) {
    for (const row of rows) this.rows.set(row.id, row);
  }

  get size(): number {
    return this.rows.size;
  }

  ids(): number[] {
    return [...this.rows.keys()];
  }

  row(id: number): CohortRow | undefined {
    return this.rows.get(id);
  }

  tree(id: number): PropertyNode | null {
    if (!this.trees.has(id)) {
      const row = this.rows.get(id);
      this.trees.set(id, row && !row.is_static ? cohortTree(row.filters) : null);
    }
    return this.trees.get(id)!;
  }

  /** Every cohort `ids` reach through nested cohort leaves, `ids` first; static cohorts end the walk. */
  reachable(ids: Iterable<number>): number[] {
    const seen = new Set<number>();
    const walk = (id: number) => {
      if (seen.has(id) || !this.rows.has(id)) return;
      seen.add(id);
      for (const nested of nestedCohortIds(this.tree(id))) walk(nested);
    };
    for (const id of ids) walk(id);
    return [...seen];
  }

  /** Whether cohort `id` reaches itself through nested cohort leaves. */
  private onCycle(id: number): boolean {
    const visiting = new Set<number>();
    const reaches = (from: number): boolean => {
      if (visiting.has(from)) return false;
      visiting.add(from);
      return nestedCohortIds(this.tree(from)).some((next) => next === id || reaches(next));
    };
    return reaches(id);
  }

  /** The membership test of cohort `id` (operators and negation of the leaf naming it are the caller's). */
  test(id: number): PropertyMatcher {
    const known = this.tests.get(id);
    if (known) return known;
    const row = this.rows.get(id);
    let test: PropertyMatcher;
    if (!row) test = () => false;
    else if (row.is_static) test = (sources) => (sources as CohortSubject).staticCohorts?.has(id) ?? false;
    else {
      const tree = this.tree(id);
      if (!tree || this.onCycle(id)) test = () => false;
      else {
        const matcher = propertyMatcher(tree, {
          semantics: "flags",
          // Resolved lazily: a nested cohort compiles when first evaluated (no cycle reaches here).
          cohort: (leaf) => {
            const nested = (sources: PropertySources, now?: Date) => this.test(leaf.value)(sources, now);
            return leaf.operator === "not_in" ? (sources, now) => !nested(sources, now) : nested;
          },
        });
        test = (sources, now) => {
          const answers = ((sources as CohortSubject).answers ??= new Map());
          const cached = answers.get(id);
          if (cached !== undefined) return cached;
          const answer = matcher(sources, now);
          answers.set(id, answer);
          return answer;
        };
      }
    }
    this.tests.set(id, test);
    return test;
  }

  /** Whether any of `ids` (or a cohort they reach) is static: its membership must be read. */
  reachesStatic(ids: Iterable<number>): number[] {
    return this.reachable(ids).filter((id) => this.rows.get(id)!.is_static);
  }

  /**
   * `cohorts` of the definitions payload: str(id) → property group of every reachable
   * non-static cohort. A cohort on a reference cycle is left out too: posthog-node would
   * recurse on it until its stack overflows; without it the SDK asks the server.
   */
  payload(ids: Iterable<number>): Record<string, Json> {
    const out: Record<string, Json> = {};
    for (const id of this.reachable(ids).sort((a, b) => a - b)) {
      const row = this.rows.get(id)!;
      if (!row.is_static && !this.onCycle(id)) out[String(id)] = cohortPropertiesDict(row.filters);
    }
    return out;
  }
}

// ---------------------------------------------------------------------------
// PostHog's rewrite for SDKs that do not ask for cohorts
// ---------------------------------------------------------------------------

interface Condition {
  properties?: Json[] | null;
  rollout_percentage?: number | null;
  variant?: string | null;
  [key: string]: unknown;
}

/** PostHog's `clear_excess_levels`: a group of one collapses into its only child, except directly under a longer group. */
function clearExcessLevels(node: unknown, skip = false): unknown {
  if (!isObject(node) || !Array.isArray(node.values)) return node;
  if (node.values.length === 1) {
    if (!skip) return clearExcessLevels(node.values[0]);
    return { ...node, values: node.values.map((child) => clearExcessLevels(child)) };
  }
  return { ...node, values: node.values.map((child) => clearExcessLevels(child, true)) };
}

function flatLeaves(node: unknown): Json[] {
  if (!isObject(node)) return [];
  return Array.isArray(node.values) ? node.values.flatMap(flatLeaves) : [node];
}

/**
 * PostHog's `transform_cohort_filters_for_easy_evaluation`: a flag that reaches exactly one
 * cohort, named alone in its condition, whose tree is person properties only, without
 * negation, and an OR of ANDs, gets that condition replaced by one condition per AND (with
 * the cohort condition's rollout). Anything else is returned unchanged (SDKs then ask the
 * server). Burrow keeps the expansion where the cohort condition was (PostHog appends it
 * after the other conditions, and takes the rollout of the flag's last condition).
 */
export function expandSingleCohort(groups: readonly Condition[], index: CohortIndex): Condition[] {
  const unchanged = groups as Condition[];
  const ids = index.reachable(flagCohortIds({ groups: groups as never }));
  if (ids.length !== 1) return unchanged;
  const cohort = index.row(ids[0]!)!;
  if (groups.some((condition) => condition.variant)) return unchanged;
  const properties = filtersObject(cohort.filters)?.properties;
  const leaves = flatLeaves(properties);
  if (cohort.is_static || leaves.length === 0) return unchanged;
  if (!leaves.every((leaf) => leaf.type === "person") || leaves.some((leaf) => leaf.negation === true)) return unchanged;

  let expansion: Condition[] | null = null;
  const expand = (rollout: number | null | undefined): Condition[] | null => {
    const target = clearExcessLevels(properties);
    if (!isObject(target)) return null;
    if (!Array.isArray(target.values)) return [{ properties: [propertyToDict(target)], rollout_percentage: rollout ?? null }];
    const children = target.values as unknown[];
    if (children.length === 0) return null;
    if (!(isObject(children[0]) && "values" in children[0])) {
      if (target.type === "AND") return [{ properties: children.map((child) => propertyToDict(child as Json)), rollout_percentage: rollout ?? null }];
      return children.map((child) => ({ properties: [propertyToDict(child as Json)], rollout_percentage: rollout ?? null }));
    }
    if (target.type === "AND") return null;
    const out: Condition[] = [];
    for (const group of children) {
      if (!isObject(group) || !Array.isArray(group.values) || group.values.length === 0) return null;
      if (isObject(group.values[0]) && "values" in group.values[0]) return null;
      if (group.type === "OR" && group.values.length > 1) return null;
      out.push({ properties: (group.values as Json[]).map(propertyToDict), rollout_percentage: rollout ?? null });
    }
    return out;
  };

  const result: Condition[] = [];
  for (const condition of groups) {
    const props = condition.properties ?? [];
    if (!props.some((property) => property.type === "cohort")) {
      result.push(condition);
      continue;
    }
    if (props.length > 1) return unchanged;
    // A cohort condition negated at the flag level (`not_in`) cannot be written as person conditions.
    if (props[0]!.operator === "not_in") return unchanged;
    expansion = expand(condition.rollout_percentage);
    if (!expansion) return unchanged;
    result.push(...expansion);
  }
  return result;
}
