/**
 * The SQL compiler against the in-memory matcher: over a corpus of stored events with
 * awkward values (numbers as strings, booleans, null, objects, dates, unicode, quotes),
 * every filter selects exactly the events the matcher accepts.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/server/db/testing";
import { insertEvents } from "@/server/db/events";
import { propertiesParamSchema, type PropertyGroup } from "./contract";
import { matchesProperties } from "./match";
import { propertiesSql, SqlParams } from "./sql";

const NOW = new Date("2024-06-15T12:00:00.000Z");

const VALUES: unknown[] = [
  "hello", "Hello World", "HELLO", "", "null", null, 0, 5, -3, 2.5, 10, 100, 1000, "5", "10", "9", "-3.5", "1e3", "+5", ".5", "5.", " 5",
  "abc", "ABC", "b", "B", true, false, "true", "True", { a: 1 }, [1, 2], ["hello"],
  "2024-01-15", "2024-01-15T10:00:00Z", "2024-01-15T10:00:00.123456+05:30", "2024-01-15 23:59", "2024-06-10T00:00:00-02:00", "2024-02-30", "2023-02-29",
  "2024-06-14T13:00:00Z", "0001-01-01", "9999-12-31T23:59:59.999Z", "2024-01-15T10:00:00.5", "2024-01-15Z",
  "ünïcode", "ÜNÏCODE", "emoji 😀", "\ufffd", "a,b", "quote'\"", "back\\slash", "%_like", "tab\there", "x".repeat(120), "9".repeat(101),
];

const FILTERS: unknown[] = [
  ...["hello", "HELLO", "5", 5, "5.0", 2.5, "null", null, true, "true", "false", "", "ünïcode", "quote'\"", "back\\slash", "%_like", "[object Object]"].flatMap((value) => [
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

interface Stored {
  uuid: string;
  properties: Record<string, unknown>;
  person: Record<string, unknown> | null;
}

let db: Database;
let projectId: number;
let stored: Stored[];

beforeAll(async () => {
  db = await createTestDatabase();
  const owner = await bootstrap(db.prisma, { email: "sql@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  const personProps: Record<string, unknown>[] = [
    { email: "a@example.com", age: 25, plan: "pro" },
    { email: "B@Example.com", age: "31" },
    { age: null, plan: "free" },
  ];
  const persons: string[] = [];
  for (const properties of personProps) {
    const [row] = await db.sql.query<{ uuid: string }>(`INSERT INTO persons (project_id, properties, updated_at) VALUES ($1, $2::jsonb, now()) RETURNING uuid::text AS uuid`, [
      projectId,
      JSON.stringify(properties),
    ]);
    persons.push(row!.uuid);
  }
  const events = [
    ...VALUES.map((v, i) => ({ v, $browser: i % 2 ? "Chrome" : "Firefox" })),
    {},
    { other: "x" },
    { "quote'key": "it's" },
    { "quote'key": null },
  ].map((properties, i) => ({
    uuid: randomUUID(),
    projectId,
    event: "e",
    distinctId: `d${i}`,
    properties,
    timestamp: new Date(NOW.getTime() - i * 1000),
    personId: i % 4 === 3 ? null : persons[i % 4],
  }));
  await insertEvents(db.sql, events);
  const rows = await db.sql.query<{ uuid: string; properties: Record<string, unknown>; person: Record<string, unknown> | null }>(
    `SELECT e.uuid::text AS uuid, e.properties, p.properties AS person FROM events e LEFT JOIN persons p ON p.uuid = e.person_id WHERE e.project_id = $1`,
    [projectId],
  );
  stored = rows;
  expect(stored).toHaveLength(events.length);
});

afterAll(async () => {
  await db.close();
});

async function selectedBySql(group: PropertyGroup): Promise<string[]> {
  const params = new SqlParams();
  const project = params.add(projectId, "int");
  const where = propertiesSql(group, { params, columns: { event: "e.properties", person: "COALESCE(p.properties, '{}'::jsonb)" }, now: NOW });
  const rows = await db.sql.query<{ uuid: string }>(
    `SELECT e.uuid::text AS uuid FROM events e LEFT JOIN persons p ON p.uuid = e.person_id WHERE e.project_id = ${project} AND ${where}`,
    params.values,
  );
  return rows.map((row) => row.uuid).sort();
}

function selectedByMatcher(group: PropertyGroup): string[] {
  return stored
    .filter((row) => matchesProperties(group, { event: row.properties, person: row.person }, { now: NOW }))
    .map((row) => row.uuid)
    .sort();
}

describe(`property filters in SQL agree with the matcher (${testDbKind})`, () => {
  it.each(FILTERS.map((filter) => [JSON.stringify(filter), filter]))("%s", async (_label, filter) => {
    const group = propertiesParamSchema.parse([filter]);
    expect(await selectedBySql(group)).toEqual(selectedByMatcher(group));
  });

  it.each(PERSON_FILTERS.map((filter) => [JSON.stringify(filter), filter]))("%s", async (_label, filter) => {
    const group = propertiesParamSchema.parse(filter);
    expect(await selectedBySql(group)).toEqual(selectedByMatcher(group));
  });

  it("selects something for most filters (the corpus is not trivially empty)", async () => {
    let nonEmpty = 0;
    for (const filter of FILTERS) {
      const chosen = selectedByMatcher(propertiesParamSchema.parse([filter])).length;
      if (chosen > 0 && chosen < stored.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(FILTERS.length * 0.8);
  });
});
