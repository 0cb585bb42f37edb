/**
 * A project's flag definitions, cached in memory for /decide, /flags and the local-evaluation
 * endpoints: one query for the flags and one for the group types when a project is first
 * asked for, then nothing until a flag changes on this node or another one
 * (`invalidateFlagDefinitions` over the change feed: the next request loads them) or a
 * second has passed (then one short query in the background tells whether anything they
 * were loaded from changed, and only then are they loaded again, while the old ones are
 * served: a safety net for writes that bypass the service).
 *
 * The cache lives on globalThis: modules load twice (Next's bundle, where the management
 * service invalidates, and the custom server, where /decide reads), and both must share it.
 */
import { createHash } from "node:crypto";
import type { Database } from "@/server/db";
import { ALL_KEYS } from "@/server/db/changes";
import { CohortIndex, expandSingleCohort, flagCohortIds } from "./cohorts";
import type { FlagDefinition, FlagFilters } from "./evaluation";
import { definitionsStamp, loadDefinitionRows } from "./store";

/** A flag as PostHog's local-evaluation endpoints serve it. */
export interface LocalEvaluationFlag extends FlagDefinition {
  team_id: number;
  name: string;
  deleted: boolean;
  ensure_experience_continuity: boolean;
  version: number;
  has_encrypted_payloads: boolean;
  bucketing_identifier: null;
  evaluation_runtime: "all";
  evaluation_contexts: string[];
}

/** The response body of `/flags/definitions` and `/api/feature_flag/local_evaluation/`. */
export interface LocalEvaluationDefinitions {
  flags: LocalEvaluationFlag[];
  group_type_mapping: Record<string, string>;
  /** str(cohort id) → its property group, for every non-static cohort the flags reach. */
  cohorts: Record<string, object>;
}

export interface ProjectFlagDefinitions {
  projectId: number;
  /** Not deleted, active or not, ordered by id. */
  flags: readonly LocalEvaluationFlag[];
  flagsByKey: ReadonlyMap<string, LocalEvaluationFlag>;
  /** Group type index (as text) → name. */
  groupTypeMapping: Readonly<Record<string, string>>;
  /** The project's live cohorts, compiled for evaluation. */
  cohorts: CohortIndex;
  /** The cohort rows `cohorts` was built from, as JSON: a reload that reads the same keeps `cohorts`. */
  cohortRows: string;
  /** What they were loaded from (store.definitionsStamp): a reload that finds the same keeps them. */
  stamp: string;
  /** The local-evaluation JSON with `cohorts`, serialised once, and its strong ETag. */
  json: string;
  etag: string;
  /**
   * The same for SDKs that do not ask for cohorts (no `send_cohorts`): `cohorts` is `{}` and
   * a flag that reaches exactly one simple person-property cohort names its conditions instead.
   */
  legacy: { json: string; etag: string };
}

const MAX_AGE_MS = 1_000;

interface Entry {
  value: ProjectFlagDefinitions;
  loadedAt: number;
}
interface Cache {
  /** Per database (tests open several in one process), per project. */
  byDb: WeakMap<object, Map<number, Entry>>;
  loading: WeakMap<object, Map<number, Promise<ProjectFlagDefinitions>>>;
  /** Bumped per project by invalidation, so a load that raced a write is not kept. */
  generations: Map<number, number>;
}

const KEY = Symbol.for("burrow.flagDefinitions");
function cache(): Cache {
  const holder = globalThis as { [KEY]?: Cache };
  holder[KEY] ??= { byDb: new WeakMap(), loading: new WeakMap(), generations: new Map() };
  return holder[KEY];
}

/** Change-feed topic; keys are project ids. */
const FLAGS_TOPIC = "flags";

function entriesFor(db: Database): Map<number, Entry> {
  const state = cache();
  let entries = state.byDb.get(db.sql);
  if (!entries) {
    const created = new Map<number, Entry>();
    entries = created;
    state.byDb.set(db.sql, created);
    // Writes on this node and on every other node on the database drop the project's entry.
    db.changes.subscribe(FLAGS_TOPIC, (key) => {
      if (key === ALL_KEYS) {
        for (const projectId of created.keys()) bumpGeneration(projectId);
        created.clear();
        return;
      }
      bumpGeneration(Number(key));
      created.delete(Number(key));
    });
  }
  return entries;
}

function bumpGeneration(projectId: number) {
  const { generations } = cache();
  generations.set(projectId, (generations.get(projectId) ?? 0) + 1);
}

/**
 * Drops a project's cached definitions on this node at once and on the others within a
 * second (the database's change feed); the next request loads them again. Call after every
 * flag write, once it committed.
 */
export async function invalidateFlagDefinitions(db: Database, projectId: number): Promise<void> {
  await db.changes.publish(FLAGS_TOPIC, String(projectId));
}

/** Stored filters are PostHog JSON; anything that is not an object reads as no conditions. */
function filtersOf(value: unknown): FlagFilters {
  const parsed = typeof value === "string" ? safeJson(value) : value;
  return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as FlagFilters) : {};
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Flag conditions (`type: "flag"`) are stored as PostHog stores them, keyed by the other
 * flag's id. SDKs read them by key with a `dependency_chain` (the flags to evaluate first, in
 * order, ending with the one named; empty for a cycle), as PostHog's local-evaluation
 * endpoint serves them: rewrite them so, once, for evaluation and serving alike.
 */
function resolveFlagDependencies(flags: LocalEvaluationFlag[]): void {
  const byId = new Map(flags.map((flag) => [String(flag.id), flag]));
  const byKey = new Map(flags.map((flag) => [flag.key, flag]));
  const target = (reference: string) => byId.get(reference) ?? byKey.get(reference);
  const conditions = (flag: LocalEvaluationFlag) => [...(flag.filters.groups ?? []), ...(flag.filters.super_groups ?? [])];
  const directDependencies = (flag: LocalEvaluationFlag) =>
    conditions(flag).flatMap((condition) => (condition.properties ?? []).filter((filter) => filter.type === "flag").map((filter) => target(String(filter.key))));

  /** Depth-first: every flag `flag` depends on, dependencies first, then `flag`; null on a cycle. */
  const chainCache = new Map<string, string[] | null>();
  const chainOf = (flag: LocalEvaluationFlag, visiting: Set<string>): string[] | null => {
    const cached = chainCache.get(flag.key);
    if (cached !== undefined) return cached;
    if (visiting.has(flag.key)) return null;
    visiting.add(flag.key);
    const chain: string[] = [];
    for (const dependency of directDependencies(flag)) {
      if (!dependency) continue; // a missing flag: evaluation reads it as false
      const sub = chainOf(dependency, visiting);
      if (sub === null) {
        visiting.delete(flag.key);
        chainCache.set(flag.key, null);
        return null;
      }
      for (const key of sub) if (!chain.includes(key)) chain.push(key);
    }
    visiting.delete(flag.key);
    chain.push(flag.key);
    chainCache.set(flag.key, chain);
    return chain;
  };

  for (const flag of flags) {
    for (const condition of conditions(flag)) {
      for (const filter of condition.properties ?? []) {
        if (filter.type !== "flag") continue;
        const dependency = target(String(filter.key));
        if (!dependency) continue;
        filter.key = dependency.key;
        filter.dependency_chain = chainOf(dependency, new Set([flag.key])) ?? [];
      }
    }
  }
}

function withEtag(json: string): { json: string; etag: string } {
  return { json, etag: `"${createHash("sha1").update(json).digest("hex")}"` };
}

async function load(db: Database, projectId: number, previous: ProjectFlagDefinitions | undefined): Promise<ProjectFlagDefinitions> {
  // Read first: a write that lands after it makes the next check see a new stamp.
  const stamp = await definitionsStamp(db, projectId);
  if (previous?.stamp === stamp) return previous;
  const [rows, groupTypes, cohortRows] = await loadDefinitionRows(db, projectId);
  const flags: LocalEvaluationFlag[] = rows.map((row) => ({
    id: row.id,
    team_id: projectId,
    name: row.name,
    key: row.key,
    filters: filtersOf(row.filters),
    deleted: false,
    active: row.active,
    ensure_experience_continuity: row.ensure_experience_continuity,
    version: row.version,
    has_encrypted_payloads: false,
    bucketing_identifier: null,
    evaluation_runtime: "all",
    evaluation_contexts: [],
  }));
  resolveFlagDependencies(flags);
  const groupTypeMapping: Record<string, string> = {};
  for (const row of groupTypes) groupTypeMapping[String(row.group_type_index)] = row.group_type;
  // Cohort tests compile on first use: the reload every second keeps them while the cohorts stay
  // the same, so /decide does not pay for compiling them again on the request after each reload.
  const cohortRowsJson = JSON.stringify(cohortRows);
  const cohorts =
    previous?.cohortRows === cohortRowsJson
      ? previous.cohorts
      : new CohortIndex(cohortRows.map((row) => ({ id: Number(row.id), name: row.name, filters: row.filters, is_static: row.is_static })));
  const referenced = [...new Set(flags.flatMap((flag) => flagCohortIds(flag.filters)))];
  const body: LocalEvaluationDefinitions = { flags, group_type_mapping: groupTypeMapping, cohorts: cohorts.payload(referenced) };
  const served = withEtag(JSON.stringify(body));
  let legacy = served;
  if (referenced.length > 0) {
    const expanded = flags.map((flag) => {
      const groups = flag.filters.groups ?? [];
      const rewritten = flagCohortIds(flag.filters).length > 0 ? expandSingleCohort(groups as never, cohorts) : groups;
      return rewritten === groups ? flag : { ...flag, filters: { ...flag.filters, groups: rewritten as FlagFilters["groups"] } };
    });
    legacy = withEtag(JSON.stringify({ flags: expanded, group_type_mapping: groupTypeMapping, cohorts: {} }));
  }
  return {
    projectId,
    flags,
    flagsByKey: new Map(flags.map((flag) => [flag.key, flag])),
    groupTypeMapping,
    cohorts,
    cohortRows: cohortRowsJson,
    stamp,
    json: served.json,
    etag: served.etag,
    legacy,
  };
}

/** The project's flag definitions, from the cache when fresh. Throws when the database does. */
export function loadFlagDefinitions(db: Database, projectId: number): Promise<ProjectFlagDefinitions> {
  const entries = entriesFor(db);
  const hit = entries.get(projectId);
  if (hit) {
    // Past its age, the entry is still served while a reload runs (an invalidated one is gone).
    if (Date.now() - hit.loadedAt >= MAX_AGE_MS) reload(db, projectId, entries).catch(() => {});
    return Promise.resolve(hit.value);
  }
  return reload(db, projectId, entries);
}

/** Loads a project's definitions once however many ask at the same time, and caches them. */
function reload(db: Database, projectId: number, entries: Map<number, Entry>): Promise<ProjectFlagDefinitions> {
  const state = cache();
  let pending = state.loading.get(db.sql);
  if (!pending) {
    pending = new Map();
    state.loading.set(db.sql, pending);
  }
  const inFlight = pending.get(projectId);
  if (inFlight) return inFlight;

  const generation = state.generations.get(projectId) ?? 0;
  const loadedAt = Date.now();
  const loading = load(db, projectId, entries.get(projectId)?.value)
    .then((value) => {
      // A write that landed while this load ran may not be in it: do not keep it then.
      if ((state.generations.get(projectId) ?? 0) === generation) entries.set(projectId, { value, loadedAt });
      return value;
    })
    .finally(() => pending.delete(projectId));
  pending.set(projectId, loading);
  return loading;
}
