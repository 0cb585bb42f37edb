import { describe, expect, it } from "vitest";
import { experimentMetricSchema, savedMetricUpdateBody } from "@/server/experiments/contract";
import { describeMetric, draftOf, editedMetric, metricOf, type MetricDraft } from "./metric-draft";

const DRAFTS: MetricDraft[] = [
  { type: "funnel", event: "purchase", property: "" },
  { type: "mean", event: "purchase", property: "" },
  { type: "mean", event: "purchase", property: "amount" },
];

describe("metric drafts", () => {
  it("build ExperimentMetrics the contract accepts, and read back as the same draft", () => {
    for (const draft of DRAFTS) {
      const metric = metricOf(draft);
      expect(experimentMetricSchema.safeParse(metric).success, JSON.stringify(draft)).toBe(true);
      expect(savedMetricUpdateBody.safeParse({ query: metric }).success).toBe(true);
      expect(draftOf(metric)).toEqual(draft);
    }
    // A funnel has no sum: a property typed before switching type is not sent
    expect(metricOf({ type: "funnel", event: " purchase ", property: "amount" })).toEqual({ kind: "ExperimentMetric", metric_type: "funnel", name: "purchase", series: [{ kind: "EventsNode", event: "purchase" }] });
  });

  it("read metrics made through the API when they hold one plain event, with PostHog's optional fields", () => {
    expect(draftOf({ kind: "ExperimentMetric", metric_type: "funnel", uuid: "u1", goal: "decrease", series: [{ kind: "EventsNode", event: "signup", properties: [], name: "signup" }] })).toEqual({ type: "funnel", event: "signup", property: "" });
    expect(draftOf({ kind: "ExperimentMetric", metric_type: "mean", source: { event: "purchase", math: "sum", math_property: "amount", custom_name: null } })).toEqual({ type: "mean", event: "purchase", property: "amount" });
  });

  it("have no draft for what the fields cannot show, so an edit keeps the query", () => {
    const step = { kind: "EventsNode", event: "purchase" };
    for (const query of [
      { kind: "ExperimentMetric", metric_type: "funnel", series: [step, { kind: "EventsNode", event: "refund" }] },
      { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "ActionsNode", id: 4 }] },
      { kind: "ExperimentMetric", metric_type: "funnel", series: [{ ...step, properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }] }] },
      { kind: "ExperimentMetric", metric_type: "funnel", series: [{ ...step, custom_name: "Bought" }] },
      { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "EventsNode", event: null }] },
      { kind: "ExperimentMetric", metric_type: "mean", source: { ...step, math: "sum" } },
      { kind: "ExperimentMetric", metric_type: "ratio", numerator: step, denominator: step },
      { kind: "ExperimentMetric", metric_type: "mean", source: step, breakdownFilter: { breakdown: "$browser" } },
      { kind: "ExperimentTrendsQuery", count_query: {} },
      null,
    ]) {
      expect(draftOf(query), JSON.stringify(query)).toBeNull();
    }
  });

  it("edit a stored metric's event and type, keeping its uuid, goal and conversion window", () => {
    const stored = { kind: "ExperimentMetric", metric_type: "funnel", uuid: "u1", goal: "decrease", conversion_window: 3, conversion_window_unit: "day", funnel_order_type: "ordered", series: [{ kind: "EventsNode", event: "signup" }] };
    expect(editedMetric(stored, { type: "mean", event: "purchase", property: "amount" })).toEqual({
      uuid: "u1",
      goal: "decrease",
      conversion_window: 3,
      conversion_window_unit: "day",
      kind: "ExperimentMetric",
      metric_type: "mean",
      name: "purchase amount",
      source: { kind: "EventsNode", event: "purchase", math: "sum", math_property: "amount" },
    });
  });

  it("describe a metric in a few words", () => {
    expect(DRAFTS.map((draft) => describeMetric({ query: metricOf(draft) }))).toEqual(["Conversion: purchase", "Mean: count of purchase", "Mean: sum of amount on purchase"]);
    expect(describeMetric({ query: { metric_type: "funnel", series: [{ kind: "EventsNode", event: "view" }, { kind: "ActionsNode", id: 4 }] } })).toBe("Conversion: view → action 4");
  });
});
