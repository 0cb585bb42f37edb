import { describe, expect, it } from "vitest";
import { verdictOf, type ResultRow } from "./verdict";

const control: ResultRow = { key: "control", number_of_samples: 1000, sum: 100, validation_failures: [] };

describe("the verdict in words", () => {
  it("names a Bayesian winner with its chance and interval", () => {
    const verdict = verdictOf(control, [{ key: "test", number_of_samples: 1000, sum: 150, validation_failures: [], method: "bayesian", significant: true, chance_to_win: 0.997, credible_interval: [0.18, 0.82] }]);
    expect(verdict.winner).toBe("test");
    expect(verdict.headline).toBe("test wins: it does better than control with statistical significance.");
    expect(verdict.lines[0]!.text).toBe("Better than control: 99.7% chance to win (+18.0% to +82.0%).");
  });
  it("waits below 50 exposures, and calls a frequentist loser", () => {
    const waiting = verdictOf({ ...control, number_of_samples: 20, validation_failures: ["not-enough-exposures"] }, [{ key: "test", number_of_samples: 30, sum: 3, validation_failures: ["not-enough-exposures"], method: "bayesian", significant: null }]);
    expect(waiting.headline).toBe("Too early to tell: the experiment needs more data.");
    expect(waiting.lines[0]!.text).toContain("20 in the smaller group");
    const lost = verdictOf(control, [{ key: "test", number_of_samples: 1000, sum: 50, validation_failures: [], method: "frequentist", significant: true, p_value: 0.0001, confidence_interval: [-0.7, -0.3] }]);
    expect(lost.headline).toBe("Control wins: every variant does worse.");
    expect(lost.lines[0]!.outcome).toBe("lost");
  });
  it("calls a significant decrease a win when the metric's goal is to decrease (the Bayesian chance already counts the goal)", () => {
    const row: ResultRow = { key: "test", number_of_samples: 1000, sum: 50, validation_failures: [], method: "frequentist", significant: true, p_value: 0.0001, confidence_interval: [-0.7, -0.3] };
    const verdict = verdictOf(control, [row], "decrease");
    expect(verdict.winner).toBe("test");
    expect(verdict.lines[0]!.text).toBe("Better than control (p = 0.000) (-70.0% to -30.0%).");
    expect(verdictOf(control, [{ ...row, confidence_interval: [0.3, 0.7] }], "decrease").lines[0]!.outcome).toBe("lost");
  });
});
