import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { chartOf } from "./chart-data";
import { IMAGE_HEIGHT, IMAGE_WIDTH, chartSvg, renderChartPng, shortNumber } from "./chart-image";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const size = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

const days = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05", "2026-11-06", "2026-11-07"];
const trends = (display?: string) => ({ kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [], ...(display ? { trendsFilter: { display } } : {}) } });
const result = [
  { label: "$pageview", data: [120, 180, 150, 240, 210, 90, 60], labels: days, days, count: 1050 },
  { label: "signed up", data: [10, 14, 9, 22, 30, 8, 4], labels: days, days, count: 97 },
];

describe("chart data", () => {
  it("reads a trends line, a bar display, a number and a funnel", () => {
    const line = chartOf("Views", trends(), result);
    expect(line).toMatchObject({ kind: "line", labels: days, series: [{ name: "$pageview", values: result[0]!.data }, { name: "signed up" }] });
    expect(chartOf("Views", trends("ActionsBar"), result).kind).toBe("bar");
    expect(chartOf("Total", trends("BoldNumber"), [{ label: "x", aggregated_value: 1234, data: [] }])).toMatchObject({ kind: "number", value: 1234 });
    expect(chartOf("Pie", trends("ActionsPie"), [{ label: "a", aggregated_value: 3, data: [] }, { label: "b", aggregated_value: 5, data: [] }])).toMatchObject({ kind: "bar", labels: ["a", "b"], series: [{ values: [3, 5] }] });
    const funnel = chartOf("Funnel", { kind: "FunnelsQuery", series: [] }, [{ name: "$pageview", count: 100 }, { name: "signed up", count: 20 }]);
    expect(funnel).toMatchObject({ kind: "bar", labels: ["1. $pageview", "2. signed up"], series: [{ values: [100, 20] }] });
    expect(chartOf("Paths", { kind: "PathsQuery" }, []).note).toMatch(/no image yet/);
  });
});

describe("chart image", () => {
  it("renders a line chart to a PNG of the expected size, with the title and legend as text", () => {
    const chart = chartOf("Weekly pageviews & sign-ups", trends(), result);
    const svg = chartSvg(chart);
    expect(svg).toContain("Weekly pageviews &amp; sign-ups");
    expect(svg).toContain("<polyline");
    expect(svg).toContain(">$pageview<");
    const png = renderChartPng(chart);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(size(png)).toEqual({ width: IMAGE_WIDTH * 1.5, height: IMAGE_HEIGHT * 1.5 });
    // Kept for a look (docs/testing.md: a rendered chart must be readable).
    fs.mkdirSync("test-results", { recursive: true });
    fs.writeFileSync("test-results/subscription-chart-line.png", png);
  });

  it("renders bars, a number and a note", () => {
    const bars = renderChartPng(chartOf("Bars", trends("ActionsBar"), result));
    fs.writeFileSync("test-results/subscription-chart-bar.png", bars);
    const number = chartSvg(chartOf("Total", trends("BoldNumber"), [{ label: "x", aggregated_value: 1234567, data: [] }]));
    expect(number).toContain(">1.2M<");
    expect(chartSvg(chartOf("Empty", trends(), []))).toContain("No data in this range.");
    expect(renderChartPng(chartOf("Paths", { kind: "PathsQuery" }, [])).length).toBeGreaterThan(1000);
  });

  it("shortens numbers for axes", () => {
    expect([shortNumber(0), shortNumber(250), shortNumber(12_500), shortNumber(3_400_000), shortNumber(2.5)]).toEqual(["0", "250", "12.5k", "3.4M", "2.5"]);
  });
});
