/**
 * An insight's result as CSV (RFC 4180, CRLF rows), for "Export CSV": one table per kind's
 * shape — series by bucket (trends, stickiness, lifecycle), funnel steps, retention cohorts by
 * period, path links, a SQL result's columns — and, for anything else, the objects' plain fields.
 */
import { isObject } from "@/server/input/json-object";

type Cell = string | number | boolean | null | undefined;

/** One CSV field: quoted when it holds a comma, quote or line break; formula-looking text is prefixed so spreadsheets do not run it. */
export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "string" ? value : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvOf(rows: Cell[][]): string {
  return rows.map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

const plain = (value: unknown): Cell => (value === null || ["string", "number", "boolean"].includes(typeof value) ? (value as Cell) : JSON.stringify(value));
const breakdownText = (value: unknown): Cell => (Array.isArray(value) ? value.map((one) => String(one)).join(" / ") : plain(value ?? null));

/** The rows of `results` (as the query API answers them) under their header. */
export function resultRows(results: unknown, columns?: unknown): Cell[][] {
  if (!Array.isArray(results) || results.length === 0) return [];
  // A SQL result: rows of cells under named columns.
  if (Array.isArray(columns) && results.every(Array.isArray)) {
    return [columns.map((one) => String(one)), ...(results as unknown[][]).map((row) => row.map(plain))];
  }
  // Funnels with a breakdown: one list of steps per breakdown value.
  const flat = results.every(Array.isArray) ? (results as unknown[][]).flat() : results;
  const objects = flat.filter(isObject);
  if (objects.length === 0) return [];
  const first = objects[0]!;
  if (Array.isArray(first.data)) {
    const labels = (Array.isArray(first.labels) ? first.labels : Array.isArray(first.days) ? first.days : first.data.map((_, index) => index)) as unknown[];
    return [
      ["series", "breakdown", ...labels.map(plain)],
      ...objects.map((series) => [plain(series.label ?? null), breakdownText(series.breakdown_value), ...(series.data as unknown[]).map(plain)]),
    ];
  }
  if (Array.isArray(first.values)) {
    const periods = Math.max(...objects.map((row) => (Array.isArray(row.values) ? row.values.length : 0)));
    return [
      ["cohort", ...Array.from({ length: periods }, (_, index) => `period ${index}`)],
      ...objects.map((row) => [plain(row.label ?? row.date ?? null), ...(row.values as unknown[]).map((cell) => (isObject(cell) ? plain(cell.count ?? null) : plain(cell)))]),
    ];
  }
  if ("order" in first && "count" in first) {
    return [
      ["step", "event", "breakdown", "count", "conversion from first step"],
      ...objects.map((step) => {
        const firstCount = objects.find((one) => one.order === 0 && JSON.stringify(one.breakdown_value) === JSON.stringify(step.breakdown_value))?.count;
        const rate = typeof firstCount === "number" && firstCount > 0 && typeof step.count === "number" ? `${((100 * step.count) / firstCount).toFixed(1)}%` : "";
        return [typeof step.order === "number" ? step.order + 1 : plain(step.order), plain(step.custom_name ?? step.name ?? null), breakdownText(step.breakdown_value), plain(step.count), rate];
      }),
    ];
  }
  if ("source" in first && "target" in first) {
    return [["source", "target", "value"], ...objects.map((link) => [plain(link.source), plain(link.target), plain(link.value ?? null)])];
  }
  const keys = [...new Set(objects.flatMap((one) => Object.keys(one).filter((key) => !isObject(one[key]) && !Array.isArray(one[key]))))];
  return [keys, ...objects.map((one) => keys.map((key) => plain(one[key] ?? null)))];
}

/** The CSV of a result, or null when it has no rows. */
export function resultCsv(results: unknown, columns?: unknown): string | null {
  const rows = resultRows(results, columns);
  return rows.length > 1 ? csvOf(rows) : null;
}

/** A file name from an insight's name: letters, digits and dashes. */
export function csvFileName(name: string): string {
  const base = name.normalize("NFKD").replace(/[^\w-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 80);
  return `${base || "insight"}.csv`;
}
