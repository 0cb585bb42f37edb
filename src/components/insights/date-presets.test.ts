import { describe, expect, it } from "vitest";
import { intervalForRange } from "./date-presets";

describe("the interval after a new date range", () => {
  it("reads a day or less by the hour, as PostHog's date filter does, instead of one or two daily points", () => {
    expect(intervalForRange("-24h", "day")).toBe("hour");
    expect(intervalForRange("-24h", "week")).toBe("hour");
    expect(intervalForRange("-1d", "day")).toBe("hour");
    expect(intervalForRange("dStart", "month")).toBe("hour");
  });

  it("leaves hours for days on a longer range, and keeps any other choice", () => {
    expect(intervalForRange("-7d", "hour")).toBe("day");
    expect(intervalForRange("-48h", "hour")).toBe("day");
    expect(intervalForRange("-30d", "week")).toBe("week");
    expect(intervalForRange("all", "month")).toBe("month");
  });
});
