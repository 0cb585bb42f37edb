/**
 * The property-filter engine's test table, on every target: the in-memory matcher (events
 * semantics), the flags matcher (PostHog's flag semantics), and the event store this run
 * opened — PostgreSQL SQL on PGlite or PostgreSQL, ClickHouse SQL with
 * BURROW_TEST_EVENTS=clickhouse (person leaves then resolved in PostgreSQL).
 *
 * - OPERATOR_TABLE: every events operator × value type (string, number, boolean, date,
 *   null, list, missing), as an event and as a person property, with the answers written
 *   out; where flags answer differently on purpose, the row says so (`flags`, `why`).
 * - The corpus: over stored events with awkward values (numbers as strings, booleans, null,
 *   objects, dates, unicode, quotes), every filter selects exactly the events the matcher
 *   accepts.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testEventStoreKind, testStoresName } from "@/test-support/db";
import { insertTestCohort } from "@/test-support/cohorts";
import type { EventListQuery } from "@/server/db/events/list/query";
import { propertiesParamSchema, type PropertyFilter, type PropertyGroup } from "@/server/properties/contract";
import { matchesFlagPropertyFilter } from "@/server/properties/flag-filters";
import { matchesProperties } from "@/server/properties/match";
import { OPERATORS, positiveOf } from "@/server/properties/operators";

const NOW = new Date("2024-06-15T12:00:00.000Z");

const VALUES: unknown[] = [
  "hello", "Hello World", "HELLO", "", "null", null, 0, 5, -3, 2.5, 10, 100, 1000, "5", "10", "9", "-3.5", "1e3", "+5", ".5", "5.", " 5",
  "abc", "ABC", "b", "B", true, false, "true", "True", { a: 1 }, [1, 2], ["hello"],
  "2024-01-15", "2024-01-15T10:00:00Z", "2024-01-15T10:00:00.123456+05:30", "2024-01-15 23:59", "2024-06-10T00:00:00-02:00", "2024-02-30", "2023-02-29",
  "2024-06-14T13:00:00Z", "0001-01-01", "9999-12-31T23:59:59.999Z", "2024-01-15T10:00:00.5", "2024-01-15Z",
  "ünïcode", "ÜNÏCODE", "emoji 😀", "\ufffd", "a,b", "quote'\"", "back\\slash", "%_like", "tab\there", "x".repeat(120), "9".repeat(101),
];

const FILTERS: unknown[] = [
  ...["hello", "HELLO", "5", 5, "5.0", 2.5, "null", null, true, "true", "false", "", "ünïcode", "quote'\"", "back\\slash", "%_like", "[object Object]", '{"a": 1}', "[1, 2]"].flatMap((value) => [
    { key: "v", value },
    { key: "v", operator: "is_not", value },
  ]),
  { key: "v", value: ["hello", 5, "abc"] },
  { key: "v", operator: "is_not", value: ["hello", "b"] },
  { key: "v", value: [] },
  ...["ell", "LL", "", "😀", "%", "_", "'", "\\", "1", "null", "Ü", "true"].flatMap((value) => [
    { key: "v", operator: "icontains", value },
    { key: "v", operator: "not_icontains", value },
  ]),
  // RE2's syntax (what the matcher runs) that PostgreSQL reads the same way, catastrophic for V8 included.
  ...["^h", "^H", "[0-9]+", "^[0-9]+$", "o W", "^$", "\\\\", "'", "e$", "^(abc|b)$", "😀", "^\\d", "(?i)^h", "^(x+)+$", "l{2}", "[[:digit:]]{2}", "(?:ab|b)c"].flatMap((value) => [
    { key: "v", operator: "regex", value },
    { key: "v", operator: "not_regex", value },
  ]),
  ...[5, "5", 2.5, -3, 0, "10", "abc", "B", "b", "", "true", "2024-01-15", "1e3", "9"].flatMap((value) =>
    ["gt", "gte", "lt", "lte"].map((operator) => ({ key: "v", operator, value })),
  ),
  { key: "v", operator: "is_set" },
  { key: "v", operator: "is_not_set" },
  { key: "missing", operator: "is_not_set" },
  ...["2024-01-16", "2024-01-15T10:00:00Z", "2024-01-15T05:00:00.124Z", "-1d", "7d", "-6m", "-1y", "2024-06-14T12:00:00+01:00", "0001-01-02", "9999-12-31"].flatMap((value) => [
    { key: "v", operator: "is_date_before", value },
    { key: "v", operator: "is_date_after", value },
  ]),
  { key: "v", value: "hello", negation: true },
  { key: "v", operator: "icontains", value: "o", negation: true },
  // The exact tests on a key ClickHouse also keeps as a column ($host, hot-properties.ts), which it reads instead of the
  // JSON where that gives the same answer: null, "", objects and arrays are where the column and the JSON differ.
  ...["hello", "HELLO", "5", 5, "5.0", 2.5, "null", null, true, "true", "", "ünïcode", '{"a":1}', "[1,2]", "[object Object]"].flatMap((value) => [
    { key: "$host", value },
    { key: "$host", operator: "is_not", value },
  ]),
  { key: "$host", value: ["hello", 5, "abc"] },
  { key: "$host", value: ["HELLO", ""] },
  { key: "$host", operator: "is_not", value: ["hello", "b"] },
  { key: "$host", value: "hello", negation: true },
];

const PERSON_FILTERS: unknown[] = [
  [{ key: "email", type: "person", operator: "icontains", value: "@example.com" }],
  [{ key: "email", type: "person", operator: "is_not", value: "a@example.com" }],
  [{ key: "email", type: "person", operator: "is_not_set" }],
  [{ key: "age", type: "person", operator: "gte", value: 30 }],
  [{ key: "v", type: "event", operator: "is_set" }, { key: "email", type: "person", operator: "is_set" }],
  { type: "OR", values: [{ key: "v", value: "hello" }, { key: "plan", type: "person", value: "pro" }] },
  {
    type: "AND",
    values: [
      { type: "OR", values: [{ key: "v", operator: "gt", value: 4 }, { key: "v", operator: "regex", value: "^h" }] },
      { type: "OR", values: [{ key: "age", type: "person", operator: "lt", value: 30 }, { key: "email", type: "person", operator: "is_not_set" }] },
    ],
  },
  { type: "AND", values: [] },
  { type: "OR", values: [{ type: "AND", values: [] }, { key: "v", value: "nothing" }] },
  [{ key: "quote'key", value: "it's" }],
  [{ key: "quote'key", operator: "is_set" }],
  [{ key: "$browser", value: "chrome" }],
];

/** The value types of the table, in the order its answers are written. */
const TYPES = ["string", "number", "boolean", "date", "null", "list", "missing"] as const;
type ValueType = (typeof TYPES)[number];
const VALUE_OF: Record<Exclude<ValueType, "missing">, unknown> = {
  string: "Pro",
  number: 5,
  boolean: true,
  date: "2024-01-15T10:00:00Z",
  null: null,
  list: ["pro", 5],
};

/**
 * One row: a filter on the property `v`, and which value types it holds for, written as
 * T/F in TYPES order. `flags`: PostHog's flag semantics answer otherwise, on purpose (`why`);
 * without it flags answer as events do.
 */
interface Row {
  filter: { operator: string; value?: unknown; negation?: boolean };
  events: string;
  flags?: string;
  why?: string;
}

const OPERATOR_TABLE: Row[] = [
  { filter: { operator: "exact", value: "pro" }, events: "TFFFFFF" },
  { filter: { operator: "exact", value: 5 }, events: "FTFFFFF" },
  { filter: { operator: "exact", value: ["pro", "5"] }, events: "TTFFFFF" },
  { filter: { operator: "exact", value: true }, events: "FFTFFFF" },
  { filter: { operator: "exact", value: false }, events: "FFFFFFF", flags: "TTFTTTF", why: "flags compare truthiness: false matches any value that is not truthy" },
  { filter: { operator: "exact", value: null }, events: "FFFFTFF" },
  { filter: { operator: "exact", value: "2024-01-15T10:00:00Z" }, events: "FFFTFFF" },
  { filter: { operator: "is_not", value: "pro" }, events: "FTTTTTT" },
  { filter: { operator: "is_not", value: false }, events: "TTTTTTT", flags: "FFTFFFT", why: "flags compare truthiness (see exact false)" },
  { filter: { operator: "icontains", value: "R" }, events: "TFTFFFF", flags: "TFTFFTF", why: "flags read a list as its items joined by commas (\"pro,5\")" },
  { filter: { operator: "icontains", value: "ul" }, events: "FFFFTFF" },
  { filter: { operator: "not_icontains", value: "R" }, events: "FTFTTTT", flags: "FTFTTFT", why: "flags read a list as its items joined by commas" },
  { filter: { operator: "regex", value: "^P" }, events: "TFFFFFF" },
  { filter: { operator: "regex", value: "5$" }, events: "FTFFFFF", flags: "FTFFFTF", why: "flags read a list as its items joined by commas" },
  { filter: { operator: "not_regex", value: "5$" }, events: "TFTTTTT", flags: "TFTTTFT", why: "flags read a list as its items joined by commas" },
  { filter: { operator: "gt", value: 4 }, events: "TTTFFFF", flags: "TTTTFTF", why: "flags parseFloat the value: a date reads as its year, a list as its joined text" },
  { filter: { operator: "gte", value: 5 }, events: "TTTFFFF", flags: "TTTTFTF", why: "flags parseFloat the value (see gt)" },
  { filter: { operator: "lt", value: "5" }, events: "FFFTFFF", flags: "FFFFFFF", why: "flags parseFloat the value: a date reads as its year (2024 is not below 5)" },
  { filter: { operator: "lte", value: "b" }, events: "TTFTFFF" },
  { filter: { operator: "is_set" }, events: "TTTTTTF" },
  { filter: { operator: "is_not_set" }, events: "FFFFFFT" },
  { filter: { operator: "is_date_before", value: "2024-06-01" }, events: "FFFTFFF", flags: "FTFTFFF", why: "flags read a number as epoch milliseconds" },
  { filter: { operator: "is_date_after", value: "-365d" }, events: "FFFTFFF" },
  { filter: { operator: "is_date_after", value: "2024-01-15T10:00:01Z" }, events: "FFFFFFF" },
  { filter: { operator: "exact", value: "pro", negation: true }, events: "FTTTTTT" },
  { filter: { operator: "is_set", negation: true }, events: "FFFFFFT" },
];

const answers = (text: string) => Object.fromEntries(TYPES.map((type, i) => [type, text[i] === "T"])) as Record<ValueType, boolean>;
const typesWhere = (text: string) => TYPES.filter((type) => answers(text)[type]);

interface Stored {
  uuid: string;
  distinctId: string;
  personId: string | null;
  properties: Record<string, unknown>;
  person: Record<string, unknown> | null;
}

let db: Database;

async function insertPerson(projectId: number, properties: Record<string, unknown>): Promise<string> {
  const [row] = await db.sql.query<{ uuid: string }>(`INSERT INTO persons (project_id, properties, updated_at) VALUES ($1, $2::jsonb, now()) RETURNING uuid::text AS uuid`, [
    projectId,
    JSON.stringify(properties),
  ]);
  return row!.uuid;
}

function listQuery(properties: PropertyGroup | null): EventListQuery {
  return { format: "json", limit: 1000, offset: 0, after: null, before: null, beforeUuid: null, event: null, distinctId: null, personId: null, properties };
}

/** The events the store selects (by distinct id), through the store's own SQL. */
async function selectedByStore(projectId: number, group: PropertyGroup | null): Promise<string[]> {
  const rows = await db.events.list(projectId, listQuery(group), { limit: 1000, offset: 0, cursor: null, now: NOW });
  return rows.map((row) => row.distinct_id).sort();
}

/** The stored events, read back as the store gives them, with their persons' properties. */
async function storedEvents(projectId: number): Promise<Stored[]> {
  const rows = await db.events.list(projectId, listQuery(null), { limit: 1000, offset: 0, cursor: null, now: NOW });
  const persons = await db.sql.query<{ uuid: string; properties: Record<string, unknown> }>(`SELECT uuid::text AS uuid, properties FROM persons WHERE project_id = $1`, [projectId]);
  const byUuid = new Map(persons.map((person) => [person.uuid, person.properties]));
  return rows.map((row) => ({ uuid: row.uuid, distinctId: row.distinct_id, personId: row.person_id, properties: row.properties, person: row.person_id ? (byUuid.get(row.person_id) ?? null) : null }));
}

let tableProject: number;
let corpusProject: number;
let corpus: Stored[];
let corpusPersons: string[];

beforeAll(async () => {
  db = await createTestDatabase();
  const owner = await bootstrap(db.prisma, { email: "properties@example.com", password: "pw12345678" });
  corpusProject = owner.project_id;
  tableProject = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Operator table", apiToken: "phc_properties_table" } })).id;

  // The table: one event per value type, its person holding the same value.
  const tableEvents = [];
  for (const [i, type] of TYPES.entries()) {
    const properties = type === "missing" ? {} : { v: VALUE_OF[type] };
    const personId = await insertPerson(tableProject, properties);
    tableEvents.push({ uuid: randomUUID(), projectId: tableProject, event: "e", distinctId: type, properties, timestamp: new Date(NOW.getTime() - i * 1000), personId });
  }
  expect(await db.events.insert(tableEvents)).toBe(TYPES.length);

  const personProps: Record<string, unknown>[] = [
    { email: "a@example.com", age: 25, plan: "pro" },
    { email: "B@Example.com", age: "31" },
    { age: null, plan: "free" },
  ];
  const persons: string[] = [];
  for (const properties of personProps) persons.push(await insertPerson(corpusProject, properties));
  corpusPersons = persons;
  const events = [
    ...VALUES.map((v, i) => ({ v, $host: v, $browser: i % 2 ? "Chrome" : "Firefox" })),
    {},
    { other: "x" },
    { "quote'key": "it's" },
    { "quote'key": null },
  ].map((properties, i) => ({
    uuid: randomUUID(),
    projectId: corpusProject,
    event: "e",
    distinctId: `d${i}`,
    properties,
    timestamp: new Date(NOW.getTime() - i * 1000),
    personId: i % 4 === 3 ? null : persons[i % 4],
  }));
  expect(await db.events.insert(events)).toBe(events.length);
  corpus = await storedEvents(corpusProject);
  expect(corpus).toHaveLength(events.length);
});

afterAll(async () => {
  await db.close();
});

function selectedByMatcher(group: PropertyGroup): string[] {
  return corpus
    .filter((row) => matchesProperties(group, { event: row.properties, person: row.person }, { now: NOW }))
    .map((row) => row.distinctId)
    .sort();
}

describe("the operator table", () => {
  it("covers every events operator, with and without negation", () => {
    const events = Object.keys(OPERATORS).filter((operator) => positiveOf(operator)!.row.events);
    expect(new Set(OPERATOR_TABLE.map((row) => row.filter.operator))).toEqual(new Set(events));
    expect(OPERATOR_TABLE.some((row) => row.filter.negation)).toBe(true);
  });

  it("negative operators name a positive row", () => {
    for (const [operator, row] of Object.entries(OPERATORS)) {
      if ("negates" in row) expect(positiveOf(row.negates)?.negated, operator).toBe(false);
    }
  });

  it.each(OPERATOR_TABLE.map((row) => [JSON.stringify(row.filter), row]))("%s: in memory, events and flags semantics", (_label, row) => {
    const filter = propertiesParamSchema.parse([{ key: "v", ...row.filter }]).values[0] as PropertyFilter;
    const events: Record<string, boolean> = {};
    const flags: Record<string, boolean> = {};
    for (const type of TYPES) {
      const properties = type === "missing" ? {} : { v: VALUE_OF[type] };
      events[type] = matchesProperties(filter, { event: properties }, { now: NOW });
      flags[type] = matchesFlagPropertyFilter({ key: "v", ...row.filter }, properties, NOW);
    }
    expect(events).toEqual(answers(row.events));
    expect(flags).toEqual(answers(row.flags ?? row.events));
    if (row.flags) expect(row.why, "a row where flags differ says why").toBeTruthy();
  });
});

describe(`the operator table in the event store (${testStoresName})`, () => {
  it.each(OPERATOR_TABLE.flatMap((row) => (["event", "person"] as const).map((type) => [`${type} ${JSON.stringify(row.filter)}`, type, row] as const)))(
    "%s",
    async (_label, type, row) => {
      const group = propertiesParamSchema.parse([{ key: "v", type, ...row.filter }]);
      const expected = new Set<ValueType>(typesWhere(row.events));
      expect(await selectedByStore(tableProject, group)).toEqual([...expected].sort());
    },
  );
});

describe(`property filters in the event store agree with the matcher (${testStoresName})`, () => {
  it.each(FILTERS.map((filter) => [JSON.stringify(filter), filter]))("%s", async (_label, filter) => {
    const group = propertiesParamSchema.parse([filter]);
    expect(await selectedByStore(corpusProject, group)).toEqual(selectedByMatcher(group));
  });

  it.each(PERSON_FILTERS.map((filter) => [JSON.stringify(filter), filter]))("%s", async (_label, filter) => {
    const group = propertiesParamSchema.parse(filter);
    expect(await selectedByStore(corpusProject, group)).toEqual(selectedByMatcher(group));
  });

  it("selects something for most filters (the corpus is not trivially empty)", async () => {
    let nonEmpty = 0;
    for (const filter of FILTERS) {
      const chosen = selectedByMatcher(propertiesParamSchema.parse([filter])).length;
      if (chosen > 0 && chosen < corpus.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(FILTERS.length * 0.8);
  });
});

// ---------------------------------------------------------------------------------------
// Cohort leaves: membership is the rows of cohort_people (the cohorts domain fills them;
// here they are written directly), events carry the person's uuid.

const insertCohort = (projectId: number, members: string[], options: { deleted?: boolean; isStatic?: boolean; name?: string } = {}) =>
  insertTestCohort(db.sql, projectId, options.name ?? "cohort", { ...options, personUuids: members });

describe(`cohort filters in the event store agree with the matcher (${testStoresName})`, () => {
  const cohorts: Record<string, number> = {};
  const members = new Map<number, Set<string>>();

  beforeAll(async () => {
    const define = async (name: string, people: string[], options: { deleted?: boolean; isStatic?: boolean } = {}) => {
      cohorts[name] = await insertCohort(corpusProject, people, { ...options, name });
      members.set(cohorts[name]!, new Set(people));
    };
    await define("first two", [corpusPersons[0]!, corpusPersons[1]!]);
    await define("third (static)", [corpusPersons[2]!], { isStatic: true });
    await define("empty", []);
    await define("deleted", [corpusPersons[0]!], { deleted: true });
    cohorts.elsewhere = await insertCohort(tableProject, [], { name: "another project's" });
  });

  /** The expected selection: the matcher, told each row's person's memberships. */
  function expected(group: PropertyGroup): string[] {
    return corpus
      .filter((row) =>
        matchesProperties(group, { event: row.properties, person: row.person }, {
          now: NOW,
          cohort: (filter) => () => {
            const member = row.personId !== null && (members.get(filter.value)?.has(row.personId) ?? false);
            return filter.operator === "not_in" ? !member : member;
          },
        }),
      )
      .map((row) => row.distinctId)
      .sort();
  }

  const cases: [string, () => unknown, (n: number) => boolean][] = [
    ["in", () => [{ type: "cohort", key: "id", value: cohorts["first two"] }], (n) => n > 0 && n < corpus.length],
    ["in, the id as a string", () => [{ type: "cohort", key: "id", value: String(cohorts["first two"]) }], (n) => n > 0],
    ["a static cohort", () => [{ type: "cohort", key: "id", value: cohorts["third (static)"], operator: "in" }], (n) => n > 0],
    ["not_in (events without a person are in no cohort)", () => [{ type: "cohort", key: "id", value: cohorts["first two"], operator: "not_in" }], (n) => n > 0],
    ["negated", () => [{ type: "cohort", key: "id", value: cohorts["third (static)"], negation: true }], (n) => n > 0],
    ["not_in negated is in", () => [{ type: "cohort", key: "id", value: cohorts["first two"], operator: "not_in", negation: true }], (n) => n > 0],
    ["the empty cohort", () => [{ type: "cohort", key: "id", value: cohorts.empty }], (n) => n === 0],
    ["not in the empty cohort: every event", () => [{ type: "cohort", key: "id", value: cohorts.empty, operator: "not_in" }], (n) => n === corpus.length],
    [
      "nested in OR with an event filter",
      () => ({ type: "OR", values: [{ type: "cohort", key: "id", value: cohorts["third (static)"] }, { key: "$browser", value: "Chrome" }] }),
      (n) => n > 0,
    ],
    [
      "two cohorts and a person filter, AND within OR",
      () => ({
        type: "OR",
        values: [
          { type: "AND", values: [{ type: "cohort", key: "id", value: cohorts["first two"] }, { key: "plan", type: "person", value: "pro" }] },
          { type: "AND", values: [{ type: "cohort", key: "id", value: cohorts["third (static)"], operator: "not_in" }, { key: "v", operator: "is_set" }] },
        ],
      }),
      (n) => n > 0,
    ],
    ["the same cohort twice", () => [{ type: "cohort", key: "id", value: cohorts["first two"] }, { type: "cohort", key: "id", value: cohorts["first two"], operator: "in" }], (n) => n > 0],
  ];

  it.each(cases)("%s", async (_label, filter, plausible) => {
    const group = propertiesParamSchema.parse(filter());
    const want = expected(group);
    expect(plausible(want.length), `the case selects what it means to (${want.length} of ${corpus.length})`).toBe(true);
    expect(await selectedByStore(corpusProject, group)).toEqual(want);
  });

  it.each([
    ["an unknown cohort", () => 2_000_000_000],
    ["a deleted cohort", () => cohorts.deleted!],
    ["another project's cohort", () => cohorts.elsewhere!],
  ])("%s is a 400 that says the same whatever the reason", async (_label, id) => {
    const group = propertiesParamSchema.parse({ type: "OR", values: [{ key: "v", operator: "is_set" }, { type: "cohort", key: "id", value: id() }] });
    await expect(selectedByStore(corpusProject, group)).rejects.toMatchObject({
      code: "invalid_input",
      message: `properties: cohort ${id()} does not exist in this project (or was deleted).`,
    });
  });
});
