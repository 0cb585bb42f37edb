import { describe, expect, it } from "vitest";
import { chartPoints, MAX_CHART_ROWS, numericColumns } from "./result-chart-data";

describe("the SQL result's chart", () => {
  it("offers the columns after the first whose values are all numbers (or null), numeric text included", () => {
    const columns = ["day", "count", "name", "ratio", "empty"];
    const rows = [
      ["2024-01-01", 3, "a", "0.5", null],
      ["2024-01-02", null, "b", "1", null],
    ];
    expect(numericColumns(columns, rows)).toEqual([1, 3]);
    expect(numericColumns(["n", "m"], [[1, 2]])).toEqual([1]);
  });

  it("draws a column over the first one, for at most the first rows", () => {
    expect(chartPoints([["2024-01-01", 3], [null, "4"], [{ a: 1 }, "x"]], 1)).toEqual([
      { x: "2024-01-01", y: 3 },
      { x: "null", y: 4 },
      { x: '{"a":1}', y: null },
    ]);
    expect(chartPoints(Array.from({ length: MAX_CHART_ROWS + 5 }, (_, i) => [i, i]), 1)).toHaveLength(MAX_CHART_ROWS);
  });
});
