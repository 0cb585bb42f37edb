/** HogQLQuery's text cut into clauses: what is accepted, and where a refusal points. */
import { describe, expect, it } from "vitest";
import { hogqlQuerySpec, HOGQL_QUERY_LIMITS } from "./contract";

const spec = (query: string) => hogqlQuerySpec({ kind: "HogQLQuery", query });
const refusal = (query: string) => {
  try {
    spec(query);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`accepted: ${query}`);
};

describe("HogQLQuery contract", () => {
  it("reads the select list, the where condition, LIMIT and OFFSET, keywords in any case", () => {
    const parsed = spec("select event, properties.$browser AS b, count() from events Where event = 'x' group by event, b order by count() desc limit 5 offset 10");
    expect(parsed.select.map((item) => [item.text, item.alias])).toEqual([
      ["event", null],
      ["properties.$browser AS b", "b"],
      ["count()", null],
    ]);
    expect(parsed.where).toHaveLength(1);
    expect(parsed).toMatchObject({ limit: 5, offset: 10 });
  });

  it("accepts GROUP BY and ORDER BY by position, alias or text in the store's order", () => {
    expect(() => spec("SELECT event, count() AS n FROM events GROUP BY 1 ORDER BY 2 DESC, event ASC")).not.toThrow();
    expect(() => spec("SELECT event FROM events ORDER BY timestamp DESC")).not.toThrow();
    expect(refusal("SELECT event, count() AS n FROM events GROUP BY 1 ORDER BY n ASC")).toMatch(/ORDER BY 'n' is not supported/);
    expect(refusal("SELECT event, count() FROM events GROUP BY 2")).toMatch(/GROUP BY '2' is not supported/);
  });

  it("names property fields that look like keywords as properties", () => {
    expect(spec("SELECT properties.limit, properties.order FROM events WHERE properties.from = 'a'").select).toHaveLength(2);
  });

  it("defaults LIMIT to 100 and lowers a larger one to the most", () => {
    expect(spec("SELECT event FROM events").limit).toBe(HOGQL_QUERY_LIMITS.defaultLimit);
    expect(spec("SELECT event FROM events LIMIT 50000").limit).toBe(HOGQL_QUERY_LIMITS.maxLimit);
  });

  it("points at the position of the problem in the whole query", () => {
    expect(refusal("SELECT event FROM events WHERE nosuch = 1")).toMatch(/unknown field "nosuch".*\(at position 31\)/);
    expect(refusal("SELECT event FROM events ORDER BY event")).toMatch(/at position 34/);
    expect(refusal("SELECT event FROM events WHERE event = 'x' UNION ALL SELECT event FROM events")).toMatch(/UNION is not supported \(at position 43\)/);
  });

  it("refuses clauses out of order or repeated, empty clauses and an empty query", () => {
    expect(refusal("SELECT event FROM events LIMIT 5 WHERE event = 'x'")).toMatch(/clauses must come once each in the order/);
    expect(refusal("SELECT event FROM events WHERE")).toMatch(/WHERE needs something after it/);
    expect(refusal("   ")).toMatch(/empty/);
    expect(refusal("SELECT event, FROM events")).toMatch(/expected an expression/);
  });

  it("reads {filters} as the WHERE clause or one of its top-level AND terms, and the filters only where it is", () => {
    const chrome = [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }];
    const withFilters = (query: string) => hogqlQuerySpec({ kind: "HogQLQuery", query, filters: { properties: chrome } });
    expect(withFilters("SELECT event FROM events WHERE {filters}")).toMatchObject({ where: [], filters: { type: "AND", values: [{ key: "$browser" }] } });
    expect(withFilters("SELECT event FROM events WHERE event = 'a' AND { filters } and (event = 'b' OR event = 'c')").where).toHaveLength(2);
    // No placeholder: the filters change nothing, as PostHog's runner
    expect(withFilters("SELECT event FROM events WHERE event = 'a'").filters).toBeNull();
    // A dashboard's properties (and the test accounts the query service lays there) join the query's own
    const override = { properties: { type: "AND" as const, values: [{ type: "event" as const, key: "$host", operator: "exact" as const, value: ["a"], negation: false }] } };
    expect(hogqlQuerySpec({ kind: "HogQLQuery", query: "SELECT event FROM events WHERE {filters}" }, override).filters).toEqual(override.properties);
    expect(hogqlQuerySpec({ kind: "HogQLQuery", query: "SELECT event FROM events WHERE event = 'a'" }, override).filters).toBeNull();
  });

  it("refuses {filters} where it is not a top-level AND term, other placeholders, and filters it cannot read", () => {
    expect(refusal("SELECT event FROM events WHERE (event = 'a' AND {filters})")).toMatch(/top-level AND terms \(at position 48\)/);
    expect(refusal("SELECT event FROM events WHERE NOT {filters}")).toMatch(/top-level AND terms/);
    expect(refusal("SELECT event FROM events WHERE event = 'a' OR event = 'b' AND {filters}")).toMatch(/beside a top-level OR.*\(at position 43\)/);
    expect(refusal("SELECT event FROM events WHERE {variables}")).toMatch(/only the \{filters\} placeholder/);
    expect(refusal("SELECT event FROM events WHERE {filters")).toMatch(/a name in braces/);
    expect(refusal("SELECT {filters} FROM events")).toMatch(/only read in the WHERE clause \(at position 7\)/);
    expect(refusal("SELECT event FROM events WHERE {filters} AND")).toMatch(/after AND/);
    expect(() => hogqlQuerySpec({ kind: "HogQLQuery", query: "SELECT event FROM events", filters: { dateRange: { date_from: "-7d" } } })).toThrow(/filters.dateRange is not supported yet/);
    expect(() => hogqlQuerySpec({ kind: "HogQLQuery", query: "SELECT event FROM events", filters: { filterTestAccounts: "yes" } })).toThrow(/must be a boolean/);
    // PostHog's editor sends an empty date range
    expect(() => hogqlQuerySpec({ kind: "HogQLQuery", query: "SELECT event FROM events", filters: { dateRange: { date_from: null }, filterTestAccounts: false } })).not.toThrow();
  });
});
