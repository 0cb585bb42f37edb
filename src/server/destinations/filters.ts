/**
 * A destination's filters as predicates (PostHog's `filters`: events, actions, properties).
 * An event passes when it is one of the listed events or actions (any; none listed: every
 * event) and every top-level property filter holds; with `filter_test_accounts`, the
 * project's test account filters must hold too (as PostHog's hog functions read them).
 *
 * Ingestion checks what the event alone can answer, so that the outbox gets only events a
 * destination wants; a filter reading person properties is checked once more at delivery,
 * against the person as it is then (the worker), and ingestion lets through what it cannot
 * decide (by event name where the filters list names).
 */
import { isPropertyGroup, type PropertyFilter, type PropertyGroup, type PropertyNode } from "@/server/properties/contract";
import { propertyMatcher, type PropertySources } from "@/server/properties/match";
import { testAccountGroup } from "@/server/query/service";
import type { DestinationFilters } from "./contract";

/** An event as matching reads it. */
export interface MatchableEvent {
  event: string;
  distinctId: string;
  properties: Readonly<Record<string, unknown>>;
  elementsChain?: string;
}

export interface CompiledFilters {
  /** At ingestion: false only when the event can never pass. */
  mayMatch(event: MatchableEvent): boolean;
  /** Whether the person must be read to decide (the worker checks `matches` then). */
  readsPerson: boolean;
  matches(event: MatchableEvent, person: Readonly<Record<string, unknown>> | null): boolean;
}

function quoteRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const eventIs = (name: string): PropertyFilter => ({ type: "event_metadata", key: "event", operator: "regex", value: `^${quoteRegex(name)}$`, negation: false });

/** Every event has a name: a leaf that never holds (an action deleted since). */
const NOTHING: PropertyFilter = { type: "event_metadata", key: "event", operator: "is_not_set", value: null, negation: false };

function readsPerson(node: PropertyNode): boolean {
  if (isPropertyGroup(node)) return node.values.some(readsPerson);
  return node.type === "person" || node.type === "cohort";
}

/**
 * The filters as one tree; `actionTrees` are the listed actions' steps (a missing action
 * matches nothing), `testAccounts` the project's test account filters (`testAccountsFor`).
 */
export function filtersTree(filters: DestinationFilters, actionTrees: ReadonlyMap<number, PropertyGroup>, testAccounts: PropertyGroup | null = null): PropertyGroup {
  const wanted: PropertyNode[] = [
    ...filters.events.map((entry): PropertyNode => {
      const parts: PropertyNode[] = entry.id === null ? [] : [eventIs(entry.id)];
      if (entry.properties) parts.push(entry.properties);
      return { type: "AND", values: parts };
    }),
    ...filters.actions.map((entry): PropertyNode => actionTrees.get(entry.id) ?? NOTHING),
  ];
  const values: PropertyNode[] = [];
  if (wanted.length > 0) values.push({ type: "OR", values: wanted });
  if (filters.properties) values.push(filters.properties);
  if (filters.filter_test_accounts && testAccounts) values.push(testAccounts);
  return { type: "AND", values };
}

/**
 * The project's test account filters (`stored`, as the project keeps them) when the
 * destination asks for them. They were checked when saved: ones that no longer read filter
 * nothing rather than stop deliveries, at capture and at delivery alike.
 */
export function testAccountsFor(filters: DestinationFilters, stored: unknown): PropertyGroup | null {
  if (!filters.filter_test_accounts) return null;
  try {
    return testAccountGroup(stored);
  } catch {
    return null;
  }
}

/** The nodes a node is the AND of (itself when it is not an AND group). */
function conjuncts(node: PropertyNode): PropertyNode[] {
  return isPropertyGroup(node) && node.type === "AND" ? node.values.flatMap(conjuncts) : [node];
}

function sourcesOf(event: MatchableEvent, person: Readonly<Record<string, unknown>> | null): PropertySources {
  const chain = event.elementsChain || (typeof event.properties.$elements_chain === "string" ? event.properties.$elements_chain : "");
  return { event: event.properties, person: person ?? {}, metadata: { event: event.event, distinct_id: event.distinctId, elements_chain: chain } };
}

/** Compiles once; throws AppError (400) for a tree it cannot read (cohort leaves). */
export function compileFilters(filters: DestinationFilters, actionTrees: ReadonlyMap<number, PropertyGroup>, testAccounts: PropertyGroup | null = null): CompiledFilters {
  const tree = filtersTree(filters, actionTrees, testAccounts);
  const matcher = propertyMatcher(tree);
  const person = readsPerson(tree);
  // With person leaves, ingestion can still rule out events by name when only named events are
  // listed, and by the parts of the top-level AND that read the event alone (a test account's $host).
  const names = filters.actions.length === 0 && filters.events.length > 0 && filters.events.every((e) => e.id !== null) ? new Set(filters.events.map((e) => e.id!)) : null;
  const eventMatcher = propertyMatcher({ type: "AND", values: conjuncts(tree).filter((node) => !readsPerson(node)) });
  return {
    readsPerson: person,
    mayMatch: person ? (event) => (names === null || names.has(event.event)) && eventMatcher(sourcesOf(event, null)) : (event) => matcher(sourcesOf(event, null)),
    matches: (event, personProperties) => matcher(sourcesOf(event, personProperties)),
  };
}
