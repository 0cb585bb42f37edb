/**
 * The SQL editor's chart of a result: a numeric column (y) over the first column (x), as
 * PostHog's SQL insight draws its line and bar charts. Client-safe and pure.
 */

/** The most rows a chart draws (the first ones; the table pages through them all). */
export const MAX_CHART_ROWS = 500;

const numeric = (cell: unknown): number | null => {
  if (typeof cell === "number") return Number.isFinite(cell) ? cell : null;
  if (typeof cell === "string" && cell.trim() !== "" && Number.isFinite(Number(cell))) return Number(cell);
  return null;
};

/** The columns after the first whose every value is a number (or null), with at least one number: what a chart can draw. */
export function numericColumns(columns: readonly string[], rows: readonly unknown[][]): number[] {
  return columns.flatMap((_, index) => {
    if (index === 0) return [];
    let seen = false;
    for (const row of rows) {
      const cell = row[index];
      if (cell === null || cell === undefined) continue;
      if (numeric(cell) === null) return [];
      seen = true;
    }
    return seen ? [index] : [];
  });
}

export interface ChartPoint {
  x: string;
  y: number | null;
}

/** The points of column `y` over the first column, for the first MAX_CHART_ROWS rows. */
export function chartPoints(rows: readonly unknown[][], y: number): ChartPoint[] {
  return rows.slice(0, MAX_CHART_ROWS).map((row) => {
    const x = row[0];
    return { x: x === null || x === undefined ? "null" : typeof x === "object" ? JSON.stringify(x) : String(x), y: numeric(row[y]) };
  });
}
