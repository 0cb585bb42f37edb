/**
 * Filters in the ClickHouse event store: properties/clickhouse.ts compiles them (the one
 * filter engine's ClickHouse target); this file supplies the person leaves and cohorts.
 *
 * Persons live in PostgreSQL, so a person-property filter is evaluated there first
 * (`resolvePersonFilters`, with properties/sql.ts itself) into the set of person uuids it
 * holds for, or the set it fails for when it also holds for events without a person; the
 * ClickHouse expression then tests the event's `person_id` against that set.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { AppError } from "@/server/errors";
import { chFilterSql } from "@/server/properties/clickhouse";
import type { PropertyFilter, PropertyGroup, PropertyNode } from "@/server/properties/contract";
import { propertiesSql, SqlParams } from "@/server/properties/sql";
import { propertyLeaves, type CohortResolver } from "@/server/properties/tree";
import { chRows, type ChStore } from "../clickhouse/context";
import { ChParams } from "@/server/sql/bind";
import { CLICKHOUSE } from "@/server/sql/clickhouse";
import { hotPropertyColumn } from "../clickhouse/hot-properties";
import { clickHouseCohortResolver, cohortIdsOf, cohortMembers, requireCohorts } from "./cohorts";
import { matcherSql } from "./matchers";
import { checkRegexes, regexesOf } from "./postgres";

/** Persons one filter is resolved to: the uuids it holds for, or (`complement`) those it fails for. */
export interface PersonSet {
  uuids: string[];
  complement: boolean;
}

/** The most persons one person-property filter may resolve to (they travel as a parameter). */
export const MAX_RESOLVED_PERSONS = 20_000;

export interface ChPropertyContext {
  params: ChParams;
  /** The events' JSON properties column, `<alias>.properties` of the events table (its hot columns are read beside it). */
  column: `${string}.properties`;
  /** The events' person uuid column. */
  personColumn: string;
  persons: ReadonlyMap<PropertyFilter, PersonSet>;
  now: Date;
  /** Cohort leaves (cohorts.ts `clickHouseCohortResolver`): without it, a cohort leaf is refused. */
  cohort?: CohortResolver<string>;
}

/**
 * A condition on a person's properties alone, evaluated in PostgreSQL over the project's
 * persons: the persons it holds for — or, when it also holds for an event without a
 * (stored) person, the persons it fails for. `condition` writes it for the person
 * properties in `person` (NULL: no person). More than MAX_RESOLVED_PERSONS is a 400,
 * `tooMany(complement)` saying why.
 */
export async function resolvePersonSet(
  sql: SqlExecutor,
  projectId: number,
  condition: (params: SqlParams, person: string) => string,
  tooMany: (complement: boolean) => AppError,
): Promise<PersonSet> {
  const without = new SqlParams();
  const [{ holds }] = (await sql.query<{ holds: boolean }>(`SELECT (${condition(without, "NULL::jsonb")}) IS TRUE AS holds`, without.values)) as [{ holds: boolean }];
  const params = new SqlParams();
  const test = `(${condition(params, "p.properties")}) IS ${holds ? "NOT TRUE" : "TRUE"}`;
  const rows = await sql.query<{ uuid: string }>(
    `SELECT p.uuid::text AS uuid FROM persons p WHERE p.project_id = ${params.add(projectId, "int")} AND ${test} LIMIT ${params.add(MAX_RESOLVED_PERSONS + 1, "int")}`,
    params.values,
  );
  if (rows.length > MAX_RESOLVED_PERSONS) throw tooMany(holds);
  return { uuids: rows.map((row) => row.uuid), complement: holds };
}

/** Each person-property filter of `node`, resolved by resolvePersonSet. */
export async function resolvePersonFilters(sql: SqlExecutor, projectId: number, node: PropertyNode | null, now: Date): Promise<Map<PropertyFilter, PersonSet>> {
  const sets = new Map<PropertyFilter, PersonSet>();
  if (!node) return sets;
  for (const leaf of propertyLeaves(node).filter((filter) => filter.type === "person")) {
    const set = await resolvePersonSet(
      sql,
      projectId,
      // A person-less event reads no properties at all: '{}' as the list's own SQL has it.
      (params, person) => propertiesSql(leaf, { params, columns: { event: "'{}'::jsonb", person: `COALESCE(${person}, '{}'::jsonb)` }, now }),
      (complement) =>
        new AppError(
          "invalid_input",
          `properties: the person filter on "${leaf.key}" ${complement ? "excludes" : "matches"} more than ${MAX_RESOLVED_PERSONS} persons, more than the ClickHouse event store takes; narrow it.`,
          "properties",
        ),
    );
    sets.set(leaf, set);
  }
  return sets;
}

/** The test that an event's person is in a resolved set (an event without a person is in no set). */
export function personSetSql(set: PersonSet, params: ChParams, personColumn: string): string {
  const member = `has(${params.add(set.uuids, "uuid[]")}, ${personColumn})`;
  return set.complement ? `(NOT ${member})` : member;
}

/** A boolean ClickHouse expression that holds where the filter or group does; an empty group is true. */
export function chPropertiesSql(node: PropertyNode, context: ChPropertyContext): string {
  return chFilterSql(node, {
    params: context.params,
    column: context.column,
    now: context.now,
    // Negation is part of the resolved set (the leaf was evaluated whole).
    person: (filter) => personSetSql(context.persons.get(filter)!, context.params, context.personColumn),
    cohort: context.cohort,
    hotColumn: (key) => {
      const hot = hotPropertyColumn(key);
      return hot === null ? null : `${context.column.slice(0, -"properties".length)}${hot}`;
    },
  });
}

/** ClickHouse's filter compiler for the groups of a per-actor read: person filters and cohorts as resolved in PostgreSQL beforehand. */
export function clickHouseFilter(params: ChParams, inputs: ResolvedFilters, now: Date): (group: PropertyGroup) => string {
  const cohort = clickHouseCohortResolver(inputs.cohorts, params);
  return (group) => chPropertiesSql(group, { params, column: "e.properties", personColumn: "e.person_id", persons: inputs.persons, now, cohort });
}

/** ClickHouse's `matcherSql`. */
export const clickHouseMatchers = (params: ChParams, filter: (group: PropertyGroup) => string) => matcherSql(CLICKHOUSE, params, filter);

/** What ClickHouse cannot read itself for a read's filter groups, from PostgreSQL (resolveFilters). */
export interface ResolvedFilters {
  /** The members of the cohorts the groups name. */
  cohorts: ReadonlyMap<number, readonly string[]>;
  /** The persons matching each person filter. */
  persons: ReadonlyMap<PropertyFilter, PersonSet>;
}

/**
 * What ClickHouse cannot read itself for these filter groups, from PostgreSQL: the members of
 * the cohorts they name (which must exist) and the persons matching their person filters.
 */
export async function resolveFilters(sql: SqlExecutor, projectId: number, groups: readonly PropertyNode[], now: Date): Promise<{ cohorts: Map<number, string[]>; persons: Map<PropertyFilter, PersonSet> }> {
  const cohortIds = cohortIdsOf(groups);
  await requireCohorts(sql, projectId, cohortIds);
  const cohorts = await cohortMembers(sql, cohortIds);
  const persons = new Map<PropertyFilter, PersonSet>();
  for (const group of groups) {
    for (const [filter, set] of await resolvePersonFilters(sql, projectId, group, now)) persons.set(filter, set);
  }
  return { cohorts, persons };
}

/** The persons (uuid text) whose breakdown property is set, and its text for each. */
export interface PersonValues {
  uuids: string[];
  values: string[];
}

/** Each person of the project with the property set (not null, not ""), and its text as PostgreSQL's `->>` gives it. */
export async function personValues(sql: SqlExecutor, projectId: number, key: string): Promise<PersonValues> {
  const rows = await sql.query<{ uuid: string; value: string }>(
    `SELECT uuid::text AS uuid, properties ->> $2::text AS value FROM persons
      WHERE project_id = $1::int AND COALESCE(properties ->> $2::text, '') <> '' LIMIT $3::int`,
    [projectId, key, MAX_RESOLVED_PERSONS + 1],
  );
  if (rows.length > MAX_RESOLVED_PERSONS) {
    throw new AppError(
      "invalid_input",
      `breakdown: more than ${MAX_RESOLVED_PERSONS} persons have "${key}", more than the ClickHouse event store takes for a person breakdown; break down by an event property.`,
      "breakdown",
    );
  }
  return { uuids: rows.map((row) => row.uuid), values: rows.map((row) => row.value) };
}

/** The regular expressions of the filters, checked on no data: event properties are matched in ClickHouse (RE2), person properties in PostgreSQL: a pattern either refuses is a 400. */
export async function clickHouseCheckFilters(ch: ChStore, properties: PropertyNode | null): Promise<void> {
  const patterns = regexesOf(properties);
  if (patterns.length === 0) return;
  await checkRegexes(ch.sql, properties);
  const params = new ChParams();
  await chRows(ch, `SELECT ${patterns.map((pattern) => `match('', ${params.add(pattern, "text")})`).join(", ")}`, params.values);
}
