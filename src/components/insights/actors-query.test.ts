import { describe, expect, it } from "vitest";
import { actorPersons, actorsQuery, funnelStepActors, insightActors, personName } from "./actors-query";
import { resultKindOf } from "./query-source";

const funnel = { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "sign up" }, { kind: "EventsNode", event: "buy" }] };

describe("actors queries", () => {
  it("asks for a funnel step's persons with PostHog's 1-based funnelStep, negative for drop-offs", () => {
    expect(funnelStepActors({ kind: "InsightVizNode", source: funnel }, 1)).toEqual({ kind: "FunnelsActorsQuery", source: funnel, funnelStep: 2 });
    expect(funnelStepActors(funnel, 1, { dropped: true, breakdown: ["Chrome"] })).toEqual({ kind: "FunnelsActorsQuery", source: funnel, funnelStep: -2, funnelStepBreakdown: ["Chrome"] });
  });
  it("names a point by day, series, status, interval and breakdown, leaving out what is unset", () => {
    const lifecycle = { kind: "LifecycleQuery", series: [] };
    expect(insightActors(lifecycle, { day: "2024-01-02", status: "dormant", series: 0, breakdown: undefined })).toEqual({
      kind: "InsightActorsQuery",
      source: lifecycle,
      day: "2024-01-02",
      status: "dormant",
      series: 0,
    });
    expect(actorsQuery({ kind: "InsightActorsQuery" }, { offset: 50 })).toEqual({ kind: "ActorsQuery", source: { kind: "InsightActorsQuery" }, select: ["person"], limit: 50, offset: 50 });
  });
  it("reads persons from the first column and names them by e-mail, else distinct id", () => {
    const persons = actorPersons({
      columns: ["person"],
      results: [[{ id: "0190-a", distinct_ids: ["ann"], properties: { email: "ann@example.com" } }], [{ id: "0190-b", distinct_ids: ["ben"], properties: {} }], ["not a person"]],
    });
    expect(persons.map(personName)).toEqual(["ann@example.com", "ben"]);
  });
});

describe("result kinds", () => {
  it("picks the renderer from the wrapped node and the funnel's visualisation", () => {
    expect(resultKindOf({ kind: "InsightVizNode", source: funnel })).toBe("funnel-steps");
    expect(resultKindOf({ ...funnel, funnelsFilter: { funnelVizType: "time_to_convert" } })).toBe("funnel-time");
    expect(resultKindOf({ ...funnel, funnelsFilter: { funnelVizType: "trends" } })).toBe("funnel-trends");
    expect(resultKindOf({ kind: "DataTableNode", source: { kind: "HogQLQuery", query: "select 1" } })).toBe("hogql");
    expect(resultKindOf({ kind: "InsightVizNode", source: { kind: "RetentionQuery" } })).toBe("retention");
    expect(resultKindOf(null)).toBe("unknown");
  });
});
