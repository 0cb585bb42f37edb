/**
 * An experiment's result in words, from one metric's ExperimentQuery answer: per variant
 * whether it won, lost or is undecided against the control, and the variant to ship.
 */

export interface ResultRow {
  key: string;
  number_of_samples: number;
  sum: number;
  validation_failures: string[];
  method?: "bayesian" | "frequentist";
  significant?: boolean | null;
  chance_to_win?: number | null;
  credible_interval?: [number, number] | null;
  p_value?: number | null;
  confidence_interval?: [number, number] | null;
}

export interface Verdict {
  /** One sentence for the whole experiment. */
  headline: string;
  /** One line per variant compared with the control. */
  lines: { key: string; text: string; outcome: "won" | "lost" | "undecided" | "waiting" }[];
  winner: string | null;
}

const percent = (value: number, digits = 1) => `${(value * 100).toFixed(digits)}%`;
const signed = (value: number) => `${value >= 0 ? "+" : ""}${(value * 100).toFixed(1)}%`;

export function intervalOf(row: ResultRow): [number, number] | null {
  return row.credible_interval ?? row.confidence_interval ?? null;
}

/** `goal: "decrease"` (a metric where lower is better, e.g. time to checkout): a negative effect wins. */
export function verdictOf(baseline: ResultRow, variants: readonly ResultRow[], goal: "increase" | "decrease" = "increase"): Verdict {
  const lines = variants.map((row): Verdict["lines"][number] => {
    const failures = [...new Set([...baseline.validation_failures, ...row.validation_failures])];
    if (failures.includes("not-enough-exposures")) {
      const fewest = Math.min(baseline.number_of_samples, row.number_of_samples);
      return { key: row.key, outcome: "waiting", text: `Not enough exposures yet: ${fewest} in the smaller group, 50 per variant needed.` };
    }
    if (failures.length > 0 || row.significant === null || row.significant === undefined) {
      return { key: row.key, outcome: "waiting", text: "Not enough conversions yet to compare with control." };
    }
    const interval = intervalOf(row);
    const range = interval ? ` (${signed(interval[0])} to ${signed(interval[1])})` : "";
    if (row.method === "frequentist") {
      const p = row.p_value ?? 1;
      if (!row.significant) return { key: row.key, outcome: "undecided", text: `No significant difference from control (p = ${p.toFixed(3)})${range}.` };
      const midpoint = interval ? interval[0] + interval[1] : 0;
      const better = interval ? (goal === "decrease" ? midpoint < 0 : midpoint > 0) : true;
      return { key: row.key, outcome: better ? "won" : "lost", text: `${better ? "Better" : "Worse"} than control (p = ${p.toFixed(3)})${range}.` };
    }
    const chance = row.chance_to_win ?? 0;
    if (row.significant && chance > 0.5) return { key: row.key, outcome: "won", text: `Better than control: ${percent(chance)} chance to win${range}.` };
    if (row.significant) return { key: row.key, outcome: "lost", text: `Worse than control: only ${percent(chance)} chance to win${range}.` };
    return { key: row.key, outcome: "undecided", text: `No clear difference yet: ${percent(chance)} chance to beat control${range}.` };
  });
  const winners = variants.filter((row, i) => lines[i]!.outcome === "won").sort((a, b) => (b.chance_to_win ?? 1 - (b.p_value ?? 1)) - (a.chance_to_win ?? 1 - (a.p_value ?? 1)));
  const winner = winners[0]?.key ?? null;
  let headline: string;
  if (winner) headline = `${winner} wins: it does better than control with statistical significance.`;
  else if (lines.length > 0 && lines.every((line) => line.outcome === "lost")) headline = "Control wins: every variant does worse.";
  else if (lines.some((line) => line.outcome === "waiting")) headline = "Too early to tell: the experiment needs more data.";
  else headline = "No significant difference between the variants yet.";
  return { headline, lines, winner };
}
