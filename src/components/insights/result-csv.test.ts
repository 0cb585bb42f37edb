import { describe, expect, it } from "vitest";
import { csvCell, csvFileName, resultCsv } from "./result-csv";

describe("an insight's result as CSV", () => {
  it("quotes what needs quoting and defuses formulas", () => {
    expect(csvCell('say "hi", then')).toBe('"say ""hi"", then"');
    expect(csvCell("=SUM(A1)")).toBe("'=SUM(A1)");
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell(null)).toBe("");
  });

  it("writes trends series by bucket, with their breakdown", () => {
    const csv = resultCsv([
      { label: "$pageview", labels: ["1-Mar-2024", "2-Mar-2024"], days: ["2024-03-01", "2024-03-02"], data: [3, 5], breakdown_value: "Chrome" },
      { label: "$pageview", labels: ["1-Mar-2024", "2-Mar-2024"], data: [1, 0], breakdown_value: ["Firefox", "Linux"] },
    ]);
    expect(csv).toBe("series,breakdown,1-Mar-2024,2-Mar-2024\r\n$pageview,Chrome,3,5\r\n$pageview,Firefox / Linux,1,0\r\n");
  });

  it("writes funnel steps with their conversion from the first step, per breakdown", () => {
    const csv = resultCsv([
      [
        { order: 0, name: "sign up", count: 4, breakdown_value: ["a"] },
        { order: 1, name: "buy", count: 1, breakdown_value: ["a"] },
      ],
      [{ order: 0, name: "sign up", count: 0, breakdown_value: ["b"] }],
    ]);
    expect(csv).toBe("step,event,breakdown,count,conversion from first step\r\n1,sign up,a,4,100.0%\r\n2,buy,a,1,25.0%\r\n1,sign up,b,0,\r\n");
  });

  it("writes retention cohorts by period, SQL rows under their columns and path links", () => {
    expect(resultCsv([{ label: "Day 0", values: [{ count: 2 }, { count: 1 }] }, { label: "Day 1", values: [{ count: 1 }] }])).toBe(
      "cohort,period 0,period 1\r\nDay 0,2,1\r\nDay 1,1\r\n",
    );
    expect(resultCsv([["a", 1, { x: 1 }]], ["event", "count", "props"])).toBe('event,count,props\r\na,1,"{""x"":1}"\r\n');
    expect(resultCsv([{ source: "1_/", target: "2_/pricing", value: 3 }])).toBe("source,target,value\r\n1_/,2_/pricing,3\r\n");
  });

  it("has nothing to write for an empty result, and names files safely", () => {
    expect(resultCsv([])).toBeNull();
    expect(resultCsv(null)).toBeNull();
    expect(csvFileName("Sign-up funnel / EU")).toBe("Sign-up-funnel-EU.csv");
    expect(csvFileName("…")).toBe("insight.csv");
  });
});
