import { describe, expect, it } from "vitest";
import { ListWindows } from "./window";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe("ListWindows", () => {
  it("starts an unknown list at an hour and widens eightfold up to a year, then reads without a window", () => {
    expect(new ListWindows().windows("p1", Infinity)).toEqual([HOUR, 8 * HOUR, 64 * HOUR, 512 * HOUR, 4096 * HOUR, null]);
  });

  it("starts where the last page of the same list ended, with twice the room", () => {
    const windows = new ListWindows();
    windows.remember("p1", 10 * MINUTE);
    expect(windows.windows("p1", Infinity)[0]).toBe(20 * MINUTE);
    expect(windows.windows("p2", Infinity)[0]).toBe(HOUR);
  });

  it("never starts below a minute, however busy the project", () => {
    const windows = new ListWindows();
    windows.remember("p1", 5);
    expect(windows.windows("p1", Infinity)[0]).toBe(MINUTE);
  });

  it("reads without a window at once when the last page needed every event", () => {
    const windows = new ListWindows();
    windows.remember("p1", Infinity);
    expect(windows.windows("p1", Infinity)).toEqual([null]);
  });

  it("drops windows that reach past the filters' own range (`after`)", () => {
    expect(new ListWindows().windows("p1", 2 * DAY)).toEqual([HOUR, 8 * HOUR, null]);
    expect(new ListWindows().windows("p1", 30 * MINUTE)).toEqual([null]);
  });
});
