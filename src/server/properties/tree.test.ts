import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { SqlParams } from "@/server/sql/bind";
import { chFilterSql } from "./clickhouse";
import { propertiesParamSchema, type CohortFilter, type PropertyNode } from "./contract";
import { matchesProperties } from "./match";
import { propertiesSql } from "./sql";
import { BEHAVIORAL_UNSUPPORTED, COHORTS_UNSUPPORTED, propertyLeaves, readsPersonProperties } from "./tree";

const NOW = new Date("2024-06-15T12:00:00.000Z");
const cohort = (negation = false): CohortFilter => ({ type: "cohort", key: "id", value: 42, operator: "in", negation });
const tree = (negation = false): PropertyNode => ({
  type: "AND",
  values: [{ type: "event", key: "plan", operator: "exact", value: ["pro"], negation: false }, cohort(negation)],
});

describe("cohort leaves plug in per target", () => {
  it("are refused with a clear AppError where the caller gives no resolver", () => {
    const refused = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).message).toBe(COHORTS_UNSUPPORTED);
        return;
      }
      throw new Error("not refused");
    };
    refused(() => matchesProperties(tree(), { event: { plan: "pro" } }));
    refused(() => propertiesSql(tree(), { params: new SqlParams(), columns: { event: "e.properties", person: "'{}'::jsonb" }, now: NOW }));
    refused(() => chFilterSql(tree(), { params: new SqlParams(), column: "e.properties", person: () => "true", now: NOW }));
  });

  it("compile through the resolver, negation applied by the walk", () => {
    const member = (filter: CohortFilter) => (sources: { person?: Readonly<Record<string, unknown>> | null }) => sources.person?.cohort === filter.value;
    expect(matchesProperties(tree(), { event: { plan: "pro" }, person: { cohort: 42 } }, { cohort: member })).toBe(true);
    expect(matchesProperties(tree(true), { event: { plan: "pro" }, person: { cohort: 42 } }, { cohort: member })).toBe(false);
    const sql = propertiesSql(tree(true), { params: new SqlParams(), columns: { event: "e.properties", person: "'{}'::jsonb" }, now: NOW, cohort: (filter) => `in_cohort(${filter.value})` });
    expect(sql).toContain("(NOT in_cohort(42))");
    expect(chFilterSql(tree(), { params: new SqlParams(), column: "e.properties", person: () => "true", now: NOW, cohort: () => "ch_cohort" })).toContain("ch_cohort");
  });

  it("read no person properties (the event stores test the event's person id, no join), and are no property leaves", () => {
    expect(readsPersonProperties(tree())).toBe(false);
    expect(readsPersonProperties({ type: "OR", values: [tree(), { type: "person", key: "plan", operator: "is_set", value: null, negation: false }] })).toBe(true);
    expect(propertyLeaves(tree()).map((leaf) => leaf.key)).toEqual(["plan"]);
  });
});

describe("group leaves", () => {
  const group: PropertyNode = { type: "group", groupTypeIndex: 1, key: "tier", operator: "exact", value: ["gold"], negation: false };

  it("read the group's properties in memory", () => {
    expect(matchesProperties(group, { groups: { 1: { tier: "Gold" } } })).toBe(true);
    expect(matchesProperties(group, { groups: { 0: { tier: "gold" } } })).toBe(false);
  });

  it("are refused in SQL", () => {
    expect(() => propertiesSql(group, { params: new SqlParams(), columns: { event: "e", person: "p" }, now: NOW })).toThrow(/group property filters are not supported/);
  });
});

describe("behavioral leaves plug in like cohorts", () => {
  const performed: PropertyNode = {
    type: "AND",
    values: [{ type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events", time_value: 7, time_interval: "day", negation: true }],
  };

  it("parse from PostHog's JSON, and are refused with a clear 400 where the caller gives no resolver (the events API, flags in memory)", () => {
    const parsed = propertiesParamSchema.parse([{ type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events", time_value: "7", time_interval: "day", negation: true }]);
    expect(parsed).toEqual(performed);
    expect(() => propertiesSql(performed, { params: new SqlParams(), columns: { event: "e.properties", person: "'{}'::jsonb" }, now: NOW })).toThrow(BEHAVIORAL_UNSUPPORTED);
    expect(() => matchesProperties(performed, {})).toThrow(BEHAVIORAL_UNSUPPORTED);
    expect(readsPersonProperties(performed)).toBe(false);
    expect(propertyLeaves(performed)).toEqual([]);
  });

  it("compile through the resolver, negation applied by the walk", () => {
    const sql = propertiesSql(performed, { params: new SqlParams(), columns: { event: "e.properties", person: "'{}'::jsonb" }, now: NOW, behavioral: (leaf) => `did(${leaf.key})` });
    expect(sql).toBe("((NOT did($pageview)))");
  });
});
