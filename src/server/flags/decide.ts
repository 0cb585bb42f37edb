/**
 * Every flag of a project for one distinct id, as /decide and /flags answer: the project's
 * cached definitions, the stored person (and groups, and experience-continuity hash keys)
 * in ONE query — for the person alone, the persons domain's copy for flags (in memory on the
 * embedded database, else one query batched with concurrent requests') — overridden by what
 * the request says, plus GeoIP from the client's address.
 *
 * Property precedence (lowest first): `distinct_id`, stored person properties, GeoIP, the
 * request's `person_properties`. Groups likewise: `$group_key`, the stored group's
 * properties, the request's `group_properties`. (posthog-node adds `distinct_id` and
 * `$group_key` the same way when it evaluates locally, so both agree.)
 *
 * Cohort conditions: dynamic cohorts are evaluated against those same person properties
 * (cohorts.ts); the person's static-cohort memberships, when a flag reaches a static cohort,
 * are read in the same one query. No stored person: in no static cohort.
 *
 * When the database cannot be read, the flags that do not need stored data are still
 * answered and `errorsWhileComputingFlags` is true; the others are left out.
 */
import type { Database } from "@/server/db";
import { lookupGeoIp } from "@/server/geoip/lookup";
import { flagCohortIds, type CohortSubject } from "./cohorts";
import { loadFlagDefinitions, type LocalEvaluationFlag, type ProjectFlagDefinitions } from "./definitions";
import { evaluateFlags, type EvaluationContext, type FlagConditionGroup, type FlagResult } from "./evaluation";
import { personPropertiesForFlags } from "@/server/persons/service";
import { insertHashKeyOverrides, loadStored, type StoredRow } from "./store";

export interface FlagsRequest {
  distinctId: string;
  /** Override the stored person's properties. */
  personProperties?: Record<string, unknown>;
  /** Group type name → group key. */
  groups?: Record<string, string>;
  /** Group type name → properties that override the stored group's. */
  groupProperties?: Record<string, Record<string, unknown>>;
  /** The client's address, for `$geoip_*` properties (omit to skip GeoIP). */
  ip?: string | null;
  /** Evaluate only these flags. */
  flagKeys?: readonly string[];
  /** `$anon_distinct_id`: the id to keep bucketing on for experience-continuity flags. */
  anonDistinctId?: string | null;
  /** The time relative date filters count back from. */
  now?: Date;
}

export interface FlagsEvaluation {
  flags: Record<string, FlagResult>;
  errorsWhileComputingFlags: boolean;
}

/** What a flag needs from the database, worked out once per definitions. */
interface FlagNeeds {
  /** Reads person or group properties or cohorts, or follows another flag that may. */
  storedData: boolean;
  continuity: boolean;
  /** The static cohorts its conditions reach, whose membership must be read. */
  staticCohorts: number[];
  /** Has a `flag` (dependency) filter. */
  followsFlags: boolean;
}

/** What a set of flags needs together. */
interface SetNeeds {
  storedData: boolean;
  continuityKeys: string[];
  staticCohorts: Set<number>;
}

interface DefinitionsNeeds {
  byKey: Map<string, FlagNeeds>;
  /** Every flag's together: the common request (no `flag_keys`) costs no walk over the flags. */
  all: SetNeeds;
}

const needsCache = new WeakMap<ProjectFlagDefinitions, DefinitionsNeeds>();

function conditionsOf(flag: LocalEvaluationFlag): FlagConditionGroup[] {
  return [...(flag.filters.groups ?? []), ...(flag.filters.super_groups ?? [])];
}

function setNeeds(flags: readonly LocalEvaluationFlag[], byKey: Map<string, FlagNeeds>): SetNeeds {
  const needs: SetNeeds = { storedData: false, continuityKeys: [], staticCohorts: new Set() };
  for (const flag of flags) {
    const need = byKey.get(flag.key)!;
    if (need.storedData && flag.active) needs.storedData = true;
    if (need.continuity) needs.continuityKeys.push(flag.key);
    if (flag.active) for (const id of need.staticCohorts) needs.staticCohorts.add(id);
  }
  return needs;
}

function needsOf(definitions: ProjectFlagDefinitions): DefinitionsNeeds {
  let needs = needsCache.get(definitions);
  if (!needs) {
    const byKey = new Map<string, FlagNeeds>();
    for (const flag of definitions.flags) {
      const conditions = conditionsOf(flag);
      const storedData = conditions.some((condition) => (condition.properties ?? []).length > 0);
      const staticCohorts = definitions.cohorts.reachesStatic(flagCohortIds(flag.filters));
      const followsFlags = conditions.some((condition) => (condition.properties ?? []).some((filter) => filter.type === "flag"));
      byKey.set(flag.key, { storedData, continuity: flag.active && flag.ensure_experience_continuity, staticCohorts, followsFlags });
    }
    needs = { byKey, all: setNeeds(definitions.flags, byKey) };
    needsCache.set(definitions, needs);
  }
  return needs;
}

function parsed<T>(value: T | string | null | undefined): T | null {
  if (value === null || value === undefined) return null;
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

/** The project's flags for one distinct id (see the module comment). Throws only when the definitions cannot be loaded. */
export async function evaluateFlagsForDistinctId(db: Database, projectId: number, request: FlagsRequest): Promise<FlagsEvaluation> {
  const definitions = await loadFlagDefinitions(db, projectId);
  const needs = needsOf(definitions);
  const wanted = request.flagKeys ? new Set(request.flagKeys) : null;
  const flags = wanted ? definitions.flags.filter((flag) => wanted.has(flag.key)) : definitions.flags;
  const chosen = wanted ? setNeeds(flags, needs.byKey) : needs.all;
  const continuityKeys = chosen.continuityKeys;
  let needStored = chosen.storedData;
  let staticCohorts = chosen.staticCohorts;
  // A dependency outside the requested keys may read stored data or static cohorts too: then load them.
  if (wanted && flags.some((flag) => needs.byKey.get(flag.key)!.followsFlags)) {
    needStored = true;
    staticCohorts = needs.all.staticCohorts;
  }

  // Group types the request names and the project knows, for the stored groups' properties.
  const requestGroups = request.groups ?? {};
  const groupLookups: { index: number; key: string }[] = [];
  if (needStored) {
    for (const [index, type] of Object.entries(definitions.groupTypeMapping)) {
      const key = requestGroups[type];
      if (key !== undefined && key !== null) groupLookups.push({ index: Number(index), key: String(key) });
    }
  }

  let failed = false;
  let stored: StoredRow = { properties: null };
  if (needStored || continuityKeys.length > 0) {
    try {
      const anon = request.anonDistinctId;
      // Experience continuity: the first time a request names an `$anon_distinct_id`, every
      // continuity flag of the persons behind both ids is pinned to that anonymous id
      // (PostHog's hash-key overrides); later requests keep bucketing on it.
      if (anon && continuityKeys.length > 0) {
        await insertHashKeyOverrides(db, projectId, anon === request.distinctId ? [anon] : [request.distinctId, anon], anon, continuityKeys);
      }
      // The common case (only the person's properties) shares a batched query with concurrent requests.
      stored =
        continuityKeys.length === 0 && groupLookups.length === 0 && staticCohorts.size === 0
          ? { properties: await personPropertiesForFlags(db, projectId, request.distinctId) }
          : await loadStored(db, projectId, request.distinctId, continuityKeys.length > 0, groupLookups, [...staticCohorts]);
    } catch {
      failed = true;
    }
  }

  // `distinct_id` and `$group_key` read as properties, as posthog-node adds them for local evaluation.
  const personProperties: Record<string, unknown> = { distinct_id: request.distinctId, ...(parsed(stored.properties) ?? {}) };
  if (request.ip) {
    const geo = lookupGeoIp(request.ip);
    if (geo) Object.assign(personProperties, geo);
  }
  if (request.personProperties) Object.assign(personProperties, request.personProperties);

  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const [type, key] of Object.entries(requestGroups)) groupProperties[type] = { $group_key: key };
  for (const group of parsed(stored.groups) ?? []) {
    const type = definitions.groupTypeMapping[String(group.index)];
    if (type) groupProperties[type] = { ...groupProperties[type], ...(parsed(group.properties) ?? {}) };
  }
  for (const [type, properties] of Object.entries(request.groupProperties ?? {})) {
    if (properties && typeof properties === "object") groupProperties[type] = { ...(groupProperties[type] ?? {}), ...properties };
  }

  // One subject per request: each cohort is evaluated at most once for it (cohorts.ts).
  const subject: CohortSubject = { person: personProperties, staticCohorts: new Set((parsed(stored.cohorts) ?? []).map(Number)) };
  const now = request.now ?? new Date();
  const ctx: EvaluationContext = {
    distinctId: request.distinctId,
    personProperties,
    groups: requestGroups,
    groupProperties,
    groupTypeMapping: definitions.groupTypeMapping,
    hashKeyOverrides: parsed(stored.overrides) ?? undefined,
    flagsByKey: definitions.flagsByKey,
    now: request.now,
    inCohort: (id) => definitions.cohorts.test(id)(subject, now),
  };
  // Without the stored data, answer only the flags that do not need it.
  const answerable = failed ? flags.filter((flag) => !flag.active || (!needs.byKey.get(flag.key)!.storedData && !needs.byKey.get(flag.key)!.continuity)) : flags;
  return { flags: evaluateFlags(answerable, ctx), errorsWhileComputingFlags: failed };
}
