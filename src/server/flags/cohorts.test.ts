import { describe, expect, it } from "vitest";
import { CohortIndex, cohortPropertiesDict, cohortTree, expandSingleCohort, type CohortSubject } from "./cohorts";

const person = (key: string, value: unknown, operator = "exact", extra: object = {}) => ({ type: "person", key, value, operator, ...extra });
const cohort = (id: number, extra: object = {}) => ({ type: "cohort", key: "id", value: id, ...extra });
const group = (type: string, ...values: unknown[]) => ({ type, values });

function index(rows: Record<number, { properties?: unknown; is_static?: boolean; name?: string }>) {
  return new CohortIndex(
    Object.entries(rows).map(([id, row]) => ({ id: Number(id), name: row.name ?? `c${id}`, is_static: row.is_static ?? false, filters: row.properties === undefined ? {} : { properties: row.properties } })),
  );
}

const subject = (person: Record<string, unknown>, staticCohorts: number[] = []): CohortSubject => ({ person, staticCohorts: new Set(staticCohorts) });

describe("cohortTree", () => {
  it("reads PostHog's stored shapes leniently", () => {
    expect(cohortTree({})).toEqual({ type: "AND", values: [] });
    expect(cohortTree({ properties: {} })).toEqual({ type: "AND", values: [] });
    expect(cohortTree('{"properties":{"type":"property","values":[{"key":"a","value":1,"type":"person"}]}}')).toEqual({ type: "AND", values: [{ key: "a", value: 1, type: "person", negation: false }] });
    expect(cohortTree({ properties: group("OR", cohort(3, { value: "3", operator: "not_in", negation: true })) })).toEqual({
      type: "OR",
      values: [{ type: "cohort", key: "id", value: 3, operator: "not_in", negation: true }],
    });
    expect(cohortTree({ properties: group("XOR") })).toBeNull();
    expect(cohortTree({ properties: group("AND", cohort(0)) })).toBeNull();
    expect(cohortTree("{nope")).toBeNull();
    let deep: unknown = person("a", 1);
    for (let i = 0; i < 40; i++) deep = group("AND", deep);
    expect(cohortTree({ properties: deep })).toBeNull();
  });
});

describe("CohortIndex", () => {
  const cohorts = index({
    1: { properties: group("OR", group("AND", person("email", "@acme.com", "icontains"))) },
    2: { properties: group("AND", person("age", 18, "gte"), person("banned", ["true"], "exact", { negation: true })) },
    3: { properties: group("OR", group("AND", cohort(1), person("country", ["SE"])), group("AND", cohort(2, { negation: true }))) },
    4: { is_static: true },
    5: { properties: group("AND", cohort(6)) },
    6: { properties: group("AND", cohort(5)) },
    7: { properties: group("OR", cohort(4), cohort(1, { operator: "not_in" })) },
    8: {},
  });

  it("evaluates person properties with flag semantics, negation, nesting, static membership, cycles and empty cohorts", () => {
    const test = (id: number, properties: Record<string, unknown>, statics: number[] = []) => cohorts.test(id)(subject(properties, statics));
    expect(test(1, { email: "x@ACME.com" })).toBe(true);
    expect(test(1, {})).toBe(false);
    expect(test(2, { age: "30" })).toBe(true); // flag semantics: numeric text compares as a number
    expect(test(2, { age: 30, banned: true })).toBe(false);
    expect(test(2, { age: 30, banned: "TRUE" })).toBe(false);
    expect(test(3, { email: "x@acme.com", country: "se" })).toBe(true);
    expect(test(3, { age: 12 })).toBe(true); // not in cohort 2
    expect(test(3, { age: 40, email: "x@acme.com" })).toBe(false);
    expect(test(4, {}, [4])).toBe(true);
    expect(test(4, {})).toBe(false);
    expect(test(5, {})).toBe(false);
    expect(test(7, { email: "a@b.c" })).toBe(true); // not in 1
    expect(test(7, { email: "a@acme.com" }, [4])).toBe(true);
    expect(test(7, { email: "a@acme.com" })).toBe(false);
    expect(test(8, {})).toBe(true);
    expect(test(99, {})).toBe(false);
  });

  it("reaches nested cohorts, stops at static ones, and serves non-static, acyclic ones as PostHog's to_dict", () => {
    expect(cohorts.reachable([3]).sort()).toEqual([1, 2, 3]);
    expect(cohorts.reachesStatic([7])).toEqual([4]);
    expect(Object.keys(cohorts.payload([3, 7, 5, 8])).sort()).toEqual(["1", "2", "3", "7", "8"]);
    expect(cohorts.payload([8])).toEqual({ 8: {} });
    expect(cohorts.payload([2])["2"]).toEqual({
      type: "AND",
      values: [
        { key: "age", operator: "gte", type: "person", value: 18 },
        { key: "banned", operator: "exact", type: "person", negation: true, value: ["true"] },
      ],
    });
  });

  it("to_dict: an empty nested group is {}, is_set carries its operator as value, untyped leaves are events", () => {
    expect(cohortPropertiesDict({ properties: group("OR", group("AND"), { key: "a", operator: "is_set" }) })).toEqual({ type: "OR", values: [{}, { key: "a", operator: "is_set", type: "event", value: "is_set" }] });
  });
});

describe("expandSingleCohort (PostHog's rewrite without send_cohorts)", () => {
  const cohorts = index({
    1: { properties: group("OR", group("AND", person("email", "@acme.com", "icontains"), person("plan", "pro")), group("AND", person("country", ["SE"]))) },
    2: { properties: group("AND", group("AND", person("a", 1)), group("OR", person("b", 1), person("c", 1))) },
    3: { properties: group("AND", person("a", 1, "exact", { negation: true })) },
    4: { properties: group("OR", group("AND", person("a", 1))) },
    5: { properties: group("OR", group("OR", person("a", 1), person("b", 2))) },
    6: { properties: group("AND", cohort(4)) },
  });
  const flag = (...groups: object[]) => groups as never[];

  it("writes an OR of ANDs as one condition per AND, in the cohort condition's place, with its rollout", () => {
    const groups = flag({ properties: [person("x", 1)], rollout_percentage: 10 }, { properties: [cohort(1, { operator: "in" })], rollout_percentage: 30 });
    expect(expandSingleCohort(groups, cohorts)).toEqual([
      { properties: [person("x", 1)], rollout_percentage: 10 },
      { properties: [{ key: "email", operator: "icontains", type: "person", value: "@acme.com" }, { key: "plan", operator: "exact", type: "person", value: "pro" }], rollout_percentage: 30 },
      { properties: [{ key: "country", operator: "exact", type: "person", value: ["SE"] }], rollout_percentage: 30 },
    ]);
    expect(expandSingleCohort(flag({ properties: [cohort(4)], rollout_percentage: null }), cohorts)).toEqual([{ properties: [{ key: "a", operator: "exact", type: "person", value: 1 }], rollout_percentage: null }]);
    expect(expandSingleCohort(flag({ properties: [cohort(5)], rollout_percentage: 50 }), cohorts)).toEqual([
      { properties: [{ key: "a", operator: "exact", type: "person", value: 1 }], rollout_percentage: 50 },
      { properties: [{ key: "b", operator: "exact", type: "person", value: 2 }], rollout_percentage: 50 },
    ]);
  });

  it("leaves the flag alone when the cohort cannot be written as conditions", () => {
    for (const groups of [
      flag({ properties: [cohort(2)] }), // AND of ORs
      flag({ properties: [cohort(3)] }), // negation
      flag({ properties: [cohort(6)] }), // reaches two cohorts
      flag({ properties: [cohort(1), person("x", 1)] }), // not alone in its condition
      flag({ properties: [cohort(1, { operator: "not_in" })] }),
      flag({ properties: [cohort(1)], variant: "v" }),
      flag({ properties: [cohort(99)] }),
    ]) {
      expect(expandSingleCohort(groups, cohorts)).toBe(groups);
    }
  });
});
