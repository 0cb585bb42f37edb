import { describe, expect, it } from "vitest";
import { evaluateFormula, FormulaError, maxSeriesIndex, parseFormula } from "./formula";

const value = (text: string, values: number[] = [6, 3, 0]) => evaluateFormula(parseFormula(text), values);

describe("trends formulas", () => {
  it("reads letters as series by position, either case, with Python's precedence", () => {
    expect(value("A/B*100")).toBe(200);
    expect(value("a + b * 2")).toBe(12);
    expect(value("(A + B) * 2")).toBe(18);
    expect(value("2 ** 3 ** 2")).toBe(512);
    expect(value("-2 ** 2")).toBe(-4);
    expect(value("--A")).toBe(6);
    expect(value("1.5e1 + .5")).toBe(15.5);
  });

  it("gives 0 for a division or remainder by zero, and takes the divisor's sign for a remainder", () => {
    expect(value("A / C")).toBe(0);
    expect(value("A % C")).toBe(0);
    expect(value("-7 % 3")).toBe(2);
    expect(value("7 % -3")).toBe(-2);
  });

  it("knows the highest series it reads", () => {
    expect(maxSeriesIndex(parseFormula("A + C * 2"))).toBe(2);
    expect(maxSeriesIndex(parseFormula("1 + 2"))).toBe(-1);
  });

  it("refuses anything but arithmetic between series", () => {
    for (const text of ["", "A +", "(A", "A)", "abs(A)", "A; B", "A == B", "A.b", "__import__", "A B"]) {
      expect(() => parseFormula(text), text).toThrow(FormulaError);
    }
  });
});
